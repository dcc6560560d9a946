// LeNet-5 trained with mcDNN and mcBLAS on a small synthetic data set of 10 classes of 32x32 images.
//   conv1 6@5x5 -> 2x2 max pool -> ReLU -> conv2 16@5x5 -> 2x2 max pool -> ReLU
//   -> fully connected 400->84 (mcblasSgemm) -> ReLU -> fully connected 84->10 (mcblasSgemm)
//   -> softmax -> cross-entropy loss; backward through every layer; plain SGD with mcblasSaxpy.
// Each class is a bright bar at its own position and angle, drawn with noise. The loss printed every 25
// steps falls; the last lines give the accuracy on the training set and on images never seen.
#include <cmath>
#include <cstdio>
#include <vector>
#include <mc_runtime.h>
#include <mcblas/mcblas.h>
#include <mcdnn/mcdnn.h>

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define CHECK_MCDNN(call)                                                                         \
    do {                                                                                          \
        mcdnnStatus_t status_ = (call);                                                           \
        if (status_ != MCDNN_STATUS_SUCCESS) {                                                    \
            printf("%s failed: %s\n", #call, mcdnnGetErrorString(status_));                       \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define CHECK_MCBLAS(call)                                                                        \
    do {                                                                                          \
        mcblasStatus_t status_ = (call);                                                          \
        if (status_ != MCBLAS_STATUS_SUCCESS) {                                                   \
            printf("%s failed: %d\n", #call, (int)status_);                                       \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static const int kBatch = 16, kClasses = 10, kSide = 32, kSteps = 300, kTrainImages = 320, kTestImages = 160;
static const float kLearningRate = 0.05f;

// A small linear congruential generator: the same data and weights on every run.
static unsigned int g_seed = 12345u;
static float uniform()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

// Class k: a bar 3 pixels wide through the image centre region at angle k*18 degrees, offset by class.
static void draw(int label, float *image)
{
    const float angle = (float)label * 0.31415926f, c = cosf(angle), s = sinf(angle);
    const float cx = 16.0f + 4.0f * cosf((float)label), cy = 16.0f + 4.0f * sinf((float)label);
    for (int y = 0; y < kSide; y++)
        for (int x = 0; x < kSide; x++) {
            const float dx = (float)x - cx, dy = (float)y - cy;
            const float across = -dx * s + dy * c, along = dx * c + dy * s;
            const float bar = (fabsf(across) < 1.5f && fabsf(along) < 10.0f) ? 1.0f : 0.0f;
            image[y * kSide + x] = bar + 0.3f * (uniform() - 0.5f);
        }
}

struct Tensor4d {
    mcdnnTensorDescriptor_t desc;
    int n, c, h, w;
    float *data;
    size_t count() const { return (size_t)n * c * h * w; }
};

static Tensor4d tensor(int n, int c, int h, int w)
{
    Tensor4d t = {nullptr, n, c, h, w, nullptr};
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&t.desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(t.desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    CHECK_MC(mcMalloc((void **)&t.data, t.count() * sizeof(float)));
    return t;
}

static float *device_copy(const std::vector<float> &host)
{
    float *p = nullptr;
    CHECK_MC(mcMalloc((void **)&p, host.size() * sizeof(float)));
    CHECK_MC(mcMemcpy(p, host.data(), host.size() * sizeof(float), mcMemcpyHostToDevice));
    return p;
}

// Glorot-uniform weights.
static std::vector<float> glorot(size_t count, int fan_in, int fan_out)
{
    std::vector<float> w(count);
    const float limit = sqrtf(6.0f / (float)(fan_in + fan_out));
    for (size_t i = 0; i < count; i++)
        w[i] = (2.0f * uniform() - 1.0f) * limit;
    return w;
}

// A convolution layer: filter, bias, their gradients, the descriptors and the algorithms' workspace.
struct ConvLayer {
    mcdnnFilterDescriptor_t filter;
    mcdnnConvolutionDescriptor_t conv;
    mcdnnTensorDescriptor_t biasDesc;
    float *w, *b, *dw, *db;
    int k, c, r;
    size_t wcount() const { return (size_t)k * c * r * r; }
};

static ConvLayer conv_layer(int k, int c, int r)
{
    ConvLayer l;
    l.k = k, l.c = c, l.r = r;
    CHECK_MCDNN(mcdnnCreateFilterDescriptor(&l.filter));
    CHECK_MCDNN(mcdnnSetFilter4dDescriptor(l.filter, MCDNN_DATA_FLOAT, MCDNN_TENSOR_NCHW, k, c, r, r));
    CHECK_MCDNN(mcdnnCreateConvolutionDescriptor(&l.conv));
    CHECK_MCDNN(mcdnnSetConvolution2dDescriptor(l.conv, 0, 0, 1, 1, 1, 1, MCDNN_CROSS_CORRELATION, MCDNN_DATA_FLOAT));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&l.biasDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(l.biasDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 1, k, 1, 1));
    l.w = device_copy(glorot(l.wcount(), c * r * r, k * r * r));
    l.b = device_copy(std::vector<float>(k, 0.0f));
    l.dw = device_copy(std::vector<float>(l.wcount(), 0.0f));
    l.db = device_copy(std::vector<float>(k, 0.0f));
    return l;
}

struct FcLayer {
    mcdnnTensorDescriptor_t biasDesc;
    float *w, *b, *dw, *db;  // w: out x in, row-major (in x out column-major)
    int in, out;
};

static FcLayer fc_layer(int in, int out)
{
    FcLayer l;
    l.in = in, l.out = out;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&l.biasDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(l.biasDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 1, out, 1, 1));
    l.w = device_copy(glorot((size_t)in * out, in, out));
    l.b = device_copy(std::vector<float>(out, 0.0f));
    l.dw = device_copy(std::vector<float>((size_t)in * out, 0.0f));
    l.db = device_copy(std::vector<float>(out, 0.0f));
    return l;
}

struct Net {
    mcdnnHandle_t dnn;
    mcblasHandle_t blas;
    mcdnnPoolingDescriptor_t pool;
    mcdnnActivationDescriptor_t relu;
    mcdnnOpTensorDescriptor_t add;
    ConvLayer conv1, conv2;
    FcLayer fc1, fc2;
    Tensor4d x, c1, p1, a1, c2, p2, a2, f1, h1, f2, prob, onehot;  // activations
    Tensor4d dc1, dp1, da1, dc2, dp2, da2, df1, dh1, df2;           // their gradients
    void *workspace;
    size_t workspaceBytes;
    mcdnnConvolutionFwdAlgo_t fwdAlgo;
    mcdnnConvolutionBwdDataAlgo_t bwdDataAlgo;
    mcdnnConvolutionBwdFilterAlgo_t bwdFilterAlgo;
};

static const float kOne = 1.0f, kZero = 0.0f;

// The fastest algorithms Find reports for conv1, and a workspace for the largest need of both layers.
static void choose_algorithms(Net &n)
{
    mcdnnConvolutionFwdAlgoPerf_t fwd[MCDNN_CONVOLUTION_FWD_ALGO_COUNT];
    mcdnnConvolutionBwdDataAlgoPerf_t data[MCDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    mcdnnConvolutionBwdFilterAlgoPerf_t filt[MCDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int got = 0;
    CHECK_MCDNN(mcdnnFindConvolutionForwardAlgorithm(n.dnn, n.x.desc, n.conv1.filter, n.conv1.conv, n.c1.desc,
                                                     MCDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fwd));
    n.fwdAlgo = fwd[0].algo;
    CHECK_MCDNN(mcdnnFindConvolutionBackwardDataAlgorithm(n.dnn, n.conv2.filter, n.c2.desc, n.conv2.conv, n.a1.desc,
                                                          MCDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, data));
    n.bwdDataAlgo = data[0].algo;
    CHECK_MCDNN(mcdnnFindConvolutionBackwardFilterAlgorithm(n.dnn, n.x.desc, n.c1.desc, n.conv1.conv, n.conv1.filter,
                                                            MCDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, filt));
    n.bwdFilterAlgo = filt[0].algo;
    printf("algorithms: forward %d (%.3f ms), backward data %d, backward filter %d\n", (int)n.fwdAlgo, fwd[0].time,
           (int)n.bwdDataAlgo, (int)n.bwdFilterAlgo);
    size_t need = 0, size = 0;
    const Tensor4d *ins[2] = {&n.x, &n.a1}, *outs[2] = {&n.c1, &n.c2};
    const ConvLayer *layers[2] = {&n.conv1, &n.conv2};
    for (int i = 0; i < 2; i++) {
        CHECK_MCDNN(mcdnnGetConvolutionForwardWorkspaceSize(n.dnn, ins[i]->desc, layers[i]->filter, layers[i]->conv,
                                                            outs[i]->desc, n.fwdAlgo, &size));
        need = size > need ? size : need;
        CHECK_MCDNN(mcdnnGetConvolutionBackwardDataWorkspaceSize(n.dnn, layers[i]->filter, outs[i]->desc,
                                                                 layers[i]->conv, ins[i]->desc, n.bwdDataAlgo, &size));
        need = size > need ? size : need;
        CHECK_MCDNN(mcdnnGetConvolutionBackwardFilterWorkspaceSize(n.dnn, ins[i]->desc, outs[i]->desc,
                                                                   layers[i]->conv, layers[i]->filter,
                                                                   n.bwdFilterAlgo, &size));
        need = size > need ? size : need;
    }
    n.workspaceBytes = need;
    n.workspace = nullptr;
    if (need)
        CHECK_MC(mcMalloc(&n.workspace, need));
}

static void conv_forward(Net &n, ConvLayer &l, Tensor4d &in, Tensor4d &out)
{
    CHECK_MCDNN(mcdnnConvolutionForward(n.dnn, &kOne, in.desc, in.data, l.filter, l.w, l.conv, n.fwdAlgo, n.workspace,
                                        n.workspaceBytes, &kZero, out.desc, out.data));
    CHECK_MCDNN(mcdnnAddTensor(n.dnn, &kOne, l.biasDesc, l.b, &kOne, out.desc, out.data));
}

// Y (batch x out, row-major) = X (batch x in) W^T + b: in column-major terms Y^T = W^T(in x out)^T X^T.
static void fc_forward(Net &n, FcLayer &l, Tensor4d &in, Tensor4d &out)
{
    CHECK_MCBLAS(mcblasSgemm(n.blas, MCBLAS_OP_T, MCBLAS_OP_N, l.out, kBatch, l.in, &kOne, l.w, l.in, in.data, l.in,
                             &kZero, out.data, l.out));
    CHECK_MCDNN(mcdnnAddTensor(n.dnn, &kOne, l.biasDesc, l.b, &kOne, out.desc, out.data));
}

static void forward(Net &n)
{
    conv_forward(n, n.conv1, n.x, n.c1);
    CHECK_MCDNN(mcdnnPoolingForward(n.dnn, n.pool, &kOne, n.c1.desc, n.c1.data, &kZero, n.p1.desc, n.p1.data));
    CHECK_MCDNN(mcdnnActivationForward(n.dnn, n.relu, &kOne, n.p1.desc, n.p1.data, &kZero, n.a1.desc, n.a1.data));
    conv_forward(n, n.conv2, n.a1, n.c2);
    CHECK_MCDNN(mcdnnPoolingForward(n.dnn, n.pool, &kOne, n.c2.desc, n.c2.data, &kZero, n.p2.desc, n.p2.data));
    CHECK_MCDNN(mcdnnActivationForward(n.dnn, n.relu, &kOne, n.p2.desc, n.p2.data, &kZero, n.a2.desc, n.a2.data));
    fc_forward(n, n.fc1, n.a2, n.f1);
    CHECK_MCDNN(mcdnnActivationForward(n.dnn, n.relu, &kOne, n.f1.desc, n.f1.data, &kZero, n.h1.desc, n.h1.data));
    fc_forward(n, n.fc2, n.h1, n.f2);
    CHECK_MCDNN(mcdnnSoftmaxForward(n.dnn, MCDNN_SOFTMAX_ACCURATE, MCDNN_SOFTMAX_MODE_CHANNEL, &kOne, n.f2.desc,
                                    n.f2.data, &kZero, n.prob.desc, n.prob.data));
}

static void fc_backward(Net &n, FcLayer &l, Tensor4d &in, Tensor4d &dout, Tensor4d *din)
{
    // dW (in x out, column-major) = X^T(in x batch) dY^T(batch x out); db = sum of dY over the batch
    CHECK_MCBLAS(mcblasSgemm(n.blas, MCBLAS_OP_N, MCBLAS_OP_T, l.in, l.out, kBatch, &kOne, in.data, l.in, dout.data,
                             l.out, &kZero, l.dw, l.in));
    CHECK_MCDNN(mcdnnConvolutionBackwardBias(n.dnn, &kOne, dout.desc, dout.data, &kZero, l.biasDesc, l.db));
    if (din)
        CHECK_MCBLAS(mcblasSgemm(n.blas, MCBLAS_OP_N, MCBLAS_OP_N, l.in, kBatch, l.out, &kOne, l.w, l.in, dout.data,
                                 l.out, &kZero, din->data, l.in));
}

static void conv_backward(Net &n, ConvLayer &l, Tensor4d &in, Tensor4d &dout, Tensor4d *din)
{
    CHECK_MCDNN(mcdnnConvolutionBackwardFilter(n.dnn, &kOne, in.desc, in.data, dout.desc, dout.data, l.conv,
                                               n.bwdFilterAlgo, n.workspace, n.workspaceBytes, &kZero, l.filter,
                                               l.dw));
    CHECK_MCDNN(mcdnnConvolutionBackwardBias(n.dnn, &kOne, dout.desc, dout.data, &kZero, l.biasDesc, l.db));
    if (din)
        CHECK_MCDNN(mcdnnConvolutionBackwardData(n.dnn, &kOne, l.filter, l.w, dout.desc, dout.data, l.conv,
                                                 n.bwdDataAlgo, n.workspace, n.workspaceBytes, &kZero, din->desc,
                                                 din->data));
}

// dlogits = (softmax - onehot) / batch, the gradient of the mean cross-entropy, with mcdnnOpTensor.
static void backward(Net &n)
{
    const float scale = 1.0f / (float)kBatch, minusScale = -scale;
    CHECK_MCDNN(mcdnnOpTensor(n.dnn, n.add, &scale, n.prob.desc, n.prob.data, &minusScale, n.onehot.desc,
                              n.onehot.data, &kZero, n.df2.desc, n.df2.data));
    fc_backward(n, n.fc2, n.h1, n.df2, &n.dh1);
    CHECK_MCDNN(mcdnnActivationBackward(n.dnn, n.relu, &kOne, n.h1.desc, n.h1.data, n.dh1.desc, n.dh1.data,
                                        n.f1.desc, n.f1.data, &kZero, n.df1.desc, n.df1.data));
    fc_backward(n, n.fc1, n.a2, n.df1, &n.da2);
    CHECK_MCDNN(mcdnnActivationBackward(n.dnn, n.relu, &kOne, n.a2.desc, n.a2.data, n.da2.desc, n.da2.data,
                                        n.p2.desc, n.p2.data, &kZero, n.dp2.desc, n.dp2.data));
    CHECK_MCDNN(mcdnnPoolingBackward(n.dnn, n.pool, &kOne, n.p2.desc, n.p2.data, n.dp2.desc, n.dp2.data, n.c2.desc,
                                     n.c2.data, &kZero, n.dc2.desc, n.dc2.data));
    conv_backward(n, n.conv2, n.a1, n.dc2, &n.da1);
    CHECK_MCDNN(mcdnnActivationBackward(n.dnn, n.relu, &kOne, n.a1.desc, n.a1.data, n.da1.desc, n.da1.data,
                                        n.p1.desc, n.p1.data, &kZero, n.dp1.desc, n.dp1.data));
    CHECK_MCDNN(mcdnnPoolingBackward(n.dnn, n.pool, &kOne, n.p1.desc, n.p1.data, n.dp1.desc, n.dp1.data, n.c1.desc,
                                     n.c1.data, &kZero, n.dc1.desc, n.dc1.data));
    conv_backward(n, n.conv1, n.x, n.dc1, nullptr);
}

static void sgd(Net &n)
{
    const float step = -kLearningRate;
    ConvLayer *convs[2] = {&n.conv1, &n.conv2};
    for (ConvLayer *l : convs) {
        CHECK_MCBLAS(mcblasSaxpy(n.blas, (int)l->wcount(), &step, l->dw, 1, l->w, 1));
        CHECK_MCBLAS(mcblasSaxpy(n.blas, l->k, &step, l->db, 1, l->b, 1));
    }
    FcLayer *fcs[2] = {&n.fc1, &n.fc2};
    for (FcLayer *l : fcs) {
        CHECK_MCBLAS(mcblasSaxpy(n.blas, l->in * l->out, &step, l->dw, 1, l->w, 1));
        CHECK_MCBLAS(mcblasSaxpy(n.blas, l->out, &step, l->db, 1, l->b, 1));
    }
}

// Loads images [first, first + kBatch) of a data set into x and the one-hot labels; returns the labels.
static std::vector<int> load_batch(Net &n, const std::vector<float> &images, const std::vector<int> &labels,
                                   int first, int size)
{
    const int pixels = kSide * kSide;
    std::vector<float> batch((size_t)kBatch * pixels), onehot((size_t)kBatch * kClasses, 0.0f);
    std::vector<int> picked(kBatch);
    for (int i = 0; i < kBatch; i++) {
        const int index = (first + i) % size;
        for (int p = 0; p < pixels; p++)
            batch[(size_t)i * pixels + p] = images[(size_t)index * pixels + p];
        picked[i] = labels[index];
        onehot[(size_t)i * kClasses + picked[i]] = 1.0f;
    }
    CHECK_MC(mcMemcpy(n.x.data, batch.data(), batch.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(n.onehot.data, onehot.data(), onehot.size() * sizeof(float), mcMemcpyHostToDevice));
    return picked;
}

// Mean cross-entropy and number of correct predictions of the batch in n.prob.
static float evaluate(Net &n, const std::vector<int> &labels, int *correct)
{
    std::vector<float> prob((size_t)kBatch * kClasses);
    CHECK_MC(mcMemcpy(prob.data(), n.prob.data, prob.size() * sizeof(float), mcMemcpyDeviceToHost));
    float loss = 0.0f;
    *correct = 0;
    for (int i = 0; i < kBatch; i++) {
        const float *p = &prob[(size_t)i * kClasses];
        int best = 0;
        for (int k = 1; k < kClasses; k++)
            best = p[k] > p[best] ? k : best;
        *correct += best == labels[i];
        loss -= logf(p[labels[i]] > 1e-30f ? p[labels[i]] : 1e-30f);
    }
    return loss / (float)kBatch;
}

static void make_data(int count, std::vector<float> &images, std::vector<int> &labels)
{
    images.resize((size_t)count * kSide * kSide);
    labels.resize(count);
    for (int i = 0; i < count; i++) {
        labels[i] = (i * 7 + i / 10) % kClasses;
        draw(labels[i], &images[(size_t)i * kSide * kSide]);
    }
}

static float accuracy(Net &n, const std::vector<float> &images, const std::vector<int> &labels, int size)
{
    int right = 0, seen = 0;
    for (int first = 0; first + kBatch <= size; first += kBatch) {
        std::vector<int> picked = load_batch(n, images, labels, first, size);
        forward(n);
        int correct = 0;
        evaluate(n, picked, &correct);
        right += correct;
        seen += kBatch;
    }
    return (float)right / (float)seen;
}

int main()
{
    Net n;
    CHECK_MCDNN(mcdnnCreate(&n.dnn));
    CHECK_MCBLAS(mcblasCreate(&n.blas));
    CHECK_MCDNN(mcdnnCreatePoolingDescriptor(&n.pool));
    CHECK_MCDNN(mcdnnSetPooling2dDescriptor(n.pool, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    CHECK_MCDNN(mcdnnCreateActivationDescriptor(&n.relu));
    CHECK_MCDNN(mcdnnSetActivationDescriptor(n.relu, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0));
    CHECK_MCDNN(mcdnnCreateOpTensorDescriptor(&n.add));
    CHECK_MCDNN(mcdnnSetOpTensorDescriptor(n.add, MCDNN_OP_TENSOR_ADD, MCDNN_DATA_FLOAT, MCDNN_NOT_PROPAGATE_NAN));

    n.conv1 = conv_layer(6, 1, 5);
    n.conv2 = conv_layer(16, 6, 5);
    n.fc1 = fc_layer(16 * 5 * 5, 84);
    n.fc2 = fc_layer(84, kClasses);
    n.x = tensor(kBatch, 1, kSide, kSide);
    int on, oc, oh, ow;
    CHECK_MCDNN(mcdnnGetConvolution2dForwardOutputDim(n.conv1.conv, n.x.desc, n.conv1.filter, &on, &oc, &oh, &ow));
    n.c1 = tensor(on, oc, oh, ow), n.dc1 = tensor(on, oc, oh, ow);                     // 6x28x28
    n.p1 = tensor(on, oc, oh / 2, ow / 2), n.dp1 = tensor(on, oc, oh / 2, ow / 2);     // 6x14x14
    n.a1 = tensor(on, oc, oh / 2, ow / 2), n.da1 = tensor(on, oc, oh / 2, ow / 2);
    CHECK_MCDNN(mcdnnGetConvolution2dForwardOutputDim(n.conv2.conv, n.a1.desc, n.conv2.filter, &on, &oc, &oh, &ow));
    n.c2 = tensor(on, oc, oh, ow), n.dc2 = tensor(on, oc, oh, ow);                     // 16x10x10
    n.p2 = tensor(on, oc, oh / 2, ow / 2), n.dp2 = tensor(on, oc, oh / 2, ow / 2);     // 16x5x5
    n.a2 = tensor(on, oc, oh / 2, ow / 2), n.da2 = tensor(on, oc, oh / 2, ow / 2);
    n.f1 = tensor(kBatch, 84, 1, 1), n.df1 = tensor(kBatch, 84, 1, 1);
    n.h1 = tensor(kBatch, 84, 1, 1), n.dh1 = tensor(kBatch, 84, 1, 1);
    n.f2 = tensor(kBatch, kClasses, 1, 1), n.df2 = tensor(kBatch, kClasses, 1, 1);
    n.prob = tensor(kBatch, kClasses, 1, 1), n.onehot = tensor(kBatch, kClasses, 1, 1);
    choose_algorithms(n);

    std::vector<float> train, test;
    std::vector<int> trainLabels, testLabels;
    make_data(kTrainImages, train, trainLabels);
    make_data(kTestImages, test, testLabels);

    float running = 0.0f;
    for (int step = 1; step <= kSteps; step++) {
        std::vector<int> picked = load_batch(n, train, trainLabels, (step - 1) * kBatch, kTrainImages);
        forward(n);
        int correct = 0;
        running += evaluate(n, picked, &correct);
        backward(n);
        sgd(n);
        if (step % 25 == 0) {
            printf("step %3d  loss %.4f\n", step, running / 25.0f);
            running = 0.0f;
        }
    }
    CHECK_MC(mcDeviceSynchronize());
    printf("training accuracy %.3f\n", accuracy(n, train, trainLabels, kTrainImages));
    printf("test accuracy %.3f\n", accuracy(n, test, testLabels, kTestImages));
    CHECK_MCBLAS(mcblasDestroy(n.blas));
    CHECK_MCDNN(mcdnnDestroy(n.dnn));
    return 0;
}
