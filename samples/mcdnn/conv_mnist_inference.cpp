// MNIST-style inference, the network of the classic cuDNN sample under MACA names:
//   28x28 image -> conv 20@5x5 + bias + ReLU (mcdnnConvolutionBiasActivationForward) -> 2x2 max pool
//   -> conv 50@5x5 (mcdnnConvolutionForward) + bias (mcdnnAddTensor) -> 2x2 max pool
//   -> fully connected 800->500 (mcblasSgemm) + bias -> ReLU -> fully connected 500->10 (mcblasSgemm) -> softmax.
// The images are seven-segment digits 0..9. With no trained weight files at hand, the convolution and first
// fully connected layers keep fixed pseudo-random weights and the last layer is a nearest-template classifier:
// its weights are the centred, normalised 500-feature codes the network gives the ten clean digits. The sample
// then classifies shifted, noisy digits it has never seen and prints each prediction and the accuracy.
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

static const int kSide = 28, kBatch = 10, kHidden = 500, kClasses = 10;

static unsigned int g_seed = 2024u;
static float uniform()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

// Segments a..g of a seven-segment display, per digit.
static const char *kSegments[10] = {"abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg",
                                    "abcdfg"};

static void draw_digit(int digit, int dx, int dy, float noise, float *image)
{
    for (int i = 0; i < kSide * kSide; i++)
        image[i] = noise * (uniform() - 0.5f);
    struct { char name; int x0, y0, x1, y1; } segs[7] = {
        {'a', 8, 4, 19, 6}, {'b', 18, 5, 20, 13}, {'c', 18, 14, 20, 22}, {'d', 8, 21, 19, 23},
        {'e', 7, 14, 9, 22}, {'f', 7, 5, 9, 13}, {'g', 8, 12, 19, 14}};
    for (const char *s = kSegments[digit]; *s; s++)
        for (const auto &seg : segs)
            if (seg.name == *s)
                for (int y = seg.y0; y <= seg.y1; y++)
                    for (int x = seg.x0; x <= seg.x1; x++)
                        image[(y + dy) * kSide + (x + dx)] += 1.0f;
}

struct Tensor {
    mcdnnTensorDescriptor_t desc;
    float *data;
};

static Tensor tensor(int n, int c, int h, int w)
{
    Tensor t;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&t.desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(t.desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    CHECK_MC(mcMalloc((void **)&t.data, (size_t)n * c * h * w * sizeof(float)));
    return t;
}

static float *random_weights(size_t count, int fan_in)
{
    std::vector<float> w(count);
    const float limit = sqrtf(3.0f / (float)fan_in);
    for (size_t i = 0; i < count; i++)
        w[i] = (2.0f * uniform() - 1.0f) * limit;
    float *p;
    CHECK_MC(mcMalloc((void **)&p, count * sizeof(float)));
    CHECK_MC(mcMemcpy(p, w.data(), count * sizeof(float), mcMemcpyHostToDevice));
    return p;
}

int main()
{
    mcdnnHandle_t dnn;
    mcblasHandle_t blas;
    CHECK_MCDNN(mcdnnCreate(&dnn));
    CHECK_MCBLAS(mcblasCreate(&blas));
    const float one = 1.0f, zero = 0.0f;

    // layers
    mcdnnFilterDescriptor_t w1Desc, w2Desc;
    mcdnnConvolutionDescriptor_t convDesc;
    mcdnnPoolingDescriptor_t pool;
    mcdnnActivationDescriptor_t relu;
    CHECK_MCDNN(mcdnnCreateFilterDescriptor(&w1Desc));
    CHECK_MCDNN(mcdnnSetFilter4dDescriptor(w1Desc, MCDNN_DATA_FLOAT, MCDNN_TENSOR_NCHW, 20, 1, 5, 5));
    CHECK_MCDNN(mcdnnCreateFilterDescriptor(&w2Desc));
    CHECK_MCDNN(mcdnnSetFilter4dDescriptor(w2Desc, MCDNN_DATA_FLOAT, MCDNN_TENSOR_NCHW, 50, 20, 5, 5));
    CHECK_MCDNN(mcdnnCreateConvolutionDescriptor(&convDesc));
    CHECK_MCDNN(mcdnnSetConvolution2dDescriptor(convDesc, 0, 0, 1, 1, 1, 1, MCDNN_CROSS_CORRELATION, MCDNN_DATA_FLOAT));
    CHECK_MCDNN(mcdnnCreatePoolingDescriptor(&pool));
    CHECK_MCDNN(mcdnnSetPooling2dDescriptor(pool, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    CHECK_MCDNN(mcdnnCreateActivationDescriptor(&relu));
    CHECK_MCDNN(mcdnnSetActivationDescriptor(relu, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0));
    float *w1 = random_weights(20 * 25, 25), *w2 = random_weights(50 * 20 * 25, 500);
    float *w3 = random_weights(800 * kHidden, 800), *w4;
    CHECK_MC(mcMalloc((void **)&w4, kHidden * kClasses * sizeof(float)));
    std::vector<float> bias(kHidden, 0.05f);
    Tensor b1 = tensor(1, 20, 1, 1), b2 = tensor(1, 50, 1, 1), b3 = tensor(1, kHidden, 1, 1);
    CHECK_MC(mcMemcpy(b1.data, bias.data(), 20 * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(b2.data, bias.data(), 50 * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(b3.data, bias.data(), kHidden * sizeof(float), mcMemcpyHostToDevice));

    // activations, batch of 10
    Tensor x = tensor(kBatch, 1, kSide, kSide);
    int n, c, h, w;
    CHECK_MCDNN(mcdnnGetConvolution2dForwardOutputDim(convDesc, x.desc, w1Desc, &n, &c, &h, &w));
    Tensor c1 = tensor(n, c, h, w), p1 = tensor(n, c, h / 2, w / 2);
    CHECK_MCDNN(mcdnnGetConvolution2dForwardOutputDim(convDesc, p1.desc, w2Desc, &n, &c, &h, &w));
    Tensor c2 = tensor(n, c, h, w), p2 = tensor(n, c, h / 2, w / 2);
    Tensor f1 = tensor(kBatch, kHidden, 1, 1), h1 = tensor(kBatch, kHidden, 1, 1);
    Tensor f2 = tensor(kBatch, kClasses, 1, 1), prob = tensor(kBatch, kClasses, 1, 1);
    printf("feature maps: conv1 20x24x24, conv2 %dx%dx%d, flattened %d\n", c, h, w, c * (h / 2) * (w / 2));

    // the fused conv1 + bias + ReLU needs the IMPLICIT_PRECOMP_GEMM algorithm's workspace
    mcdnnConvolutionFwdAlgo_t algo = MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws1 = 0, ws2 = 0;
    CHECK_MCDNN(mcdnnGetConvolutionForwardWorkspaceSize(dnn, x.desc, w1Desc, convDesc, c1.desc, algo, &ws1));
    CHECK_MCDNN(mcdnnGetConvolutionForwardWorkspaceSize(dnn, p1.desc, w2Desc, convDesc, c2.desc,
                                                        MCDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws2));
    size_t wsBytes = ws1 > ws2 ? ws1 : ws2;
    void *workspace = nullptr;
    if (wsBytes)
        CHECK_MC(mcMalloc(&workspace, wsBytes));

    auto features = [&](const std::vector<float> &images) {
        CHECK_MC(mcMemcpy(x.data, images.data(), images.size() * sizeof(float), mcMemcpyHostToDevice));
        CHECK_MCDNN(mcdnnConvolutionBiasActivationForward(dnn, &one, x.desc, x.data, w1Desc, w1, convDesc, algo,
                                                          workspace, wsBytes, &zero, c1.desc, c1.data, b1.desc, b1.data,
                                                          relu, c1.desc, c1.data));
        CHECK_MCDNN(mcdnnPoolingForward(dnn, pool, &one, c1.desc, c1.data, &zero, p1.desc, p1.data));
        CHECK_MCDNN(mcdnnConvolutionForward(dnn, &one, p1.desc, p1.data, w2Desc, w2, convDesc,
                                            MCDNN_CONVOLUTION_FWD_ALGO_GEMM, workspace, wsBytes, &zero, c2.desc,
                                            c2.data));
        CHECK_MCDNN(mcdnnAddTensor(dnn, &one, b2.desc, b2.data, &one, c2.desc, c2.data));
        CHECK_MCDNN(mcdnnPoolingForward(dnn, pool, &one, c2.desc, c2.data, &zero, p2.desc, p2.data));
        // f1 (500 x batch, column-major) = w3^T (500 x 800) p2 (800 x batch)
        CHECK_MCBLAS(mcblasSgemm(blas, MCBLAS_OP_T, MCBLAS_OP_N, kHidden, kBatch, 800, &one, w3, 800, p2.data, 800,
                                 &zero, f1.data, kHidden));
        CHECK_MCDNN(mcdnnAddTensor(dnn, &one, b3.desc, b3.data, &one, f1.desc, f1.data));
        CHECK_MCDNN(mcdnnActivationForward(dnn, relu, &one, f1.desc, f1.data, &zero, h1.desc, h1.data));
    };

    // the templates: the codes of the ten clean digits, and the biases -|c_k|^2/2
    std::vector<float> images((size_t)kBatch * kSide * kSide);
    for (int d = 0; d < kBatch; d++)
        draw_digit(d, 0, 0, 0.0f, &images[(size_t)d * kSide * kSide]);
    features(images);
    std::vector<float> codes((size_t)kBatch * kHidden), offsets(kClasses, 0.0f);
    CHECK_MC(mcMemcpy(codes.data(), h1.data, codes.size() * sizeof(float), mcMemcpyDeviceToHost));
    for (int d = 0; d < kBatch; d++)
        for (int j = 0; j < kHidden; j++)
            offsets[d] -= 0.5f * codes[(size_t)d * kHidden + j] * codes[(size_t)d * kHidden + j];
    Tensor b4 = tensor(1, kClasses, 1, 1);
    CHECK_MC(mcMemcpy(w4, codes.data(), codes.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(b4.data, offsets.data(), offsets.size() * sizeof(float), mcMemcpyHostToDevice));

    // classify three rounds of shifted, noisy digits
    int right = 0, total = 0;
    for (int round = 0; round < 3; round++) {
        std::vector<int> labels(kBatch);
        for (int i = 0; i < kBatch; i++) {
            labels[i] = (i * 3 + round) % kClasses;
            draw_digit(labels[i], (i + round) % 3 - 1, (i * 2 + round) % 3 - 1, 0.6f,
                       &images[(size_t)i * kSide * kSide]);
        }
        features(images);
        CHECK_MCBLAS(mcblasSgemm(blas, MCBLAS_OP_T, MCBLAS_OP_N, kClasses, kBatch, kHidden, &one, w4, kHidden,
                                 h1.data, kHidden, &zero, f2.data, kClasses));
        CHECK_MCDNN(mcdnnAddTensor(dnn, &one, b4.desc, b4.data, &one, f2.desc, f2.data));
        CHECK_MCDNN(mcdnnSoftmaxForward(dnn, MCDNN_SOFTMAX_ACCURATE, MCDNN_SOFTMAX_MODE_CHANNEL, &one, f2.desc,
                                        f2.data, &zero, prob.desc, prob.data));
        std::vector<float> p((size_t)kBatch * kClasses);
        CHECK_MC(mcMemcpy(p.data(), prob.data, p.size() * sizeof(float), mcMemcpyDeviceToHost));
        for (int i = 0; i < kBatch; i++) {
            int best = 0;
            for (int k = 1; k < kClasses; k++)
                best = p[(size_t)i * kClasses + k] > p[(size_t)i * kClasses + best] ? k : best;
            right += best == labels[i];
            total++;
            printf("image %2d: digit %d, classified as %d (probability %.3f)\n", total, labels[i], best,
                   p[(size_t)i * kClasses + best]);
        }
    }
    printf("accuracy %d/%d\n", right, total);
    CHECK_MCBLAS(mcblasDestroy(blas));
    CHECK_MCDNN(mcdnnDestroy(dnn));
    return right * 10 >= total * 9 ? 0 : 1;
}
