// One training step of an LSTM with the RNN v8 API, as cuDNN's RNN sample drives it:
//   descriptors (RNN, RNN data with padded sequences of lengths 6, 4, 2), the weight space and its
//   per-gate matrices and biases (mcdnnGetRNNWeightParams), mcdnnRNNForward in training mode,
//   mcdnnRNNBackwardData_v8 and mcdnnRNNBackwardWeights_v8 for the loss 0.5 * sum(y^2), one SGD step.
// The sample checks its numbers: y, hy and cy against an LSTM computed here in double (cuDNN's gate order
// i, f, g, o), weight and input gradients against central differences of that LSTM, and a lower loss
// after the step. It prints them and exits 1 on a mismatch.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <mc_runtime.h>
#include <mcdnn/mcdnn.h>

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)
#define CHECK_MCDNN(call)                                                                         \
    do {                                                                                          \
        mcdnnStatus_t status_ = (call);                                                           \
        if (status_ != MCDNN_STATUS_SUCCESS) {                                                    \
            printf("%s failed: %s\n", #call, mcdnnGetErrorString(status_));                       \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static const int T = 6, B = 3, I = 4, H = 5;
static const int LENGTHS[B] = {6, 4, 2};

// Where each gate's matrices and biases sit in the weight space (offsets in floats).
struct Layout {
    size_t w[4], r[4], bw[4], br[4];
};

static double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The LSTM on the host, in double: y (T x B x H, zero past each sequence), hy and cy (B x H); the loss
// 0.5 * sum(y^2).
static double lstm(const std::vector<float> &space, const Layout &at, const std::vector<double> &x,
                   std::vector<double> &y, std::vector<double> &hy, std::vector<double> &cy)
{
    y.assign(T * B * H, 0.0);
    hy.assign(B * H, 0.0);
    cy.assign(B * H, 0.0);
    double loss = 0.0;
    for (int b = 0; b < B; b++) {
        std::vector<double> h(H, 0.0), c(H, 0.0);
        for (int t = 0; t < LENGTHS[b]; t++) {
            double gate[4][H];
            for (int g = 0; g < 4; g++)
                for (int j = 0; j < H; j++) {
                    double s = space[at.bw[g] + j] + space[at.br[g] + j];
                    for (int k = 0; k < I; k++)
                        s += space[at.w[g] + j * I + k] * x[(t * B + b) * I + k];
                    for (int k = 0; k < H; k++)
                        s += space[at.r[g] + j * H + k] * h[k];
                    gate[g][j] = g == 2 ? std::tanh(s) : sigmoid(s);
                }
            for (int j = 0; j < H; j++) {
                c[j] = gate[1][j] * c[j] + gate[0][j] * gate[2][j];
                h[j] = gate[3][j] * std::tanh(c[j]);
                y[(t * B + b) * H + j] = h[j];
                loss += 0.5 * h[j] * h[j];
            }
        }
        for (int j = 0; j < H; j++) {
            hy[b * H + j] = h[j];
            cy[b * H + j] = c[j];
        }
    }
    return loss;
}

static double max_difference(const std::vector<float> &got, const std::vector<double> &want)
{
    double worst = 0.0;
    for (size_t i = 0; i < want.size(); i++)
        worst = std::fmax(worst, std::fabs((double)got[i] - want[i]));
    return worst;
}

int main()
{
    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnRNNDescriptor_t rnn;
    CHECK_MCDNN(mcdnnCreateRNNDescriptor(&rnn));
    CHECK_MCDNN(mcdnnSetRNNDescriptor_v8(rnn, MCDNN_RNN_ALGO_STANDARD, MCDNN_LSTM, MCDNN_RNN_DOUBLE_BIAS,
                                         MCDNN_UNIDIRECTIONAL, MCDNN_LINEAR_INPUT, MCDNN_DATA_FLOAT, MCDNN_DATA_FLOAT,
                                         MCDNN_DEFAULT_MATH, I, H, H, 1, nullptr, MCDNN_RNN_PADDED_IO_ENABLED));
    float fill = 0.0f;
    mcdnnRNNDataDescriptor_t xDesc, yDesc;
    CHECK_MCDNN(mcdnnCreateRNNDataDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateRNNDataDescriptor(&yDesc));
    CHECK_MCDNN(mcdnnSetRNNDataDescriptor(xDesc, MCDNN_DATA_FLOAT, MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, I,
                                          LENGTHS, &fill));
    CHECK_MCDNN(mcdnnSetRNNDataDescriptor(yDesc, MCDNN_DATA_FLOAT, MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, H,
                                          LENGTHS, &fill));
    mcdnnTensorDescriptor_t hDesc;   // hx, hy, cx, cy: layers x batch x hidden
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&hDesc));
    const int hDims[3] = {1, B, H}, hStrides[3] = {B * H, H, 1};
    CHECK_MCDNN(mcdnnSetTensorNdDescriptor(hDesc, MCDNN_DATA_FLOAT, 3, hDims, hStrides));

    size_t weightBytes, workBytes, reserveBytes;
    CHECK_MCDNN(mcdnnGetRNNWeightSpaceSize(handle, rnn, &weightBytes));
    CHECK_MCDNN(mcdnnGetRNNTempSpaceSizes(handle, rnn, MCDNN_FWD_MODE_TRAINING, xDesc, &workBytes, &reserveBytes));
    std::vector<float> space(weightBytes / sizeof(float));
    for (size_t i = 0; i < space.size(); i++)
        space[i] = 0.35f * std::sin(0.7f * (float)i + 0.3f);

    float *dSpace, *dGrad, *dX, *dY, *dDy, *dDx, *dHy, *dCy;
    void *work, *reserve;
    int32_t *dLengths;
    CHECK_MC(mcMalloc(&dSpace, weightBytes));
    CHECK_MC(mcMalloc(&dGrad, weightBytes));
    CHECK_MC(mcMalloc(&dX, T * B * I * sizeof(float)));
    CHECK_MC(mcMalloc(&dDx, T * B * I * sizeof(float)));
    CHECK_MC(mcMalloc(&dY, T * B * H * sizeof(float)));
    CHECK_MC(mcMalloc(&dDy, T * B * H * sizeof(float)));
    CHECK_MC(mcMalloc(&dHy, B * H * sizeof(float)));
    CHECK_MC(mcMalloc(&dCy, B * H * sizeof(float)));
    CHECK_MC(mcMalloc(&work, workBytes ? workBytes : 1));
    CHECK_MC(mcMalloc(&reserve, reserveBytes ? reserveBytes : 1));
    CHECK_MC(mcMalloc(&dLengths, sizeof LENGTHS));
    CHECK_MC(mcMemcpy(dSpace, space.data(), weightBytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dLengths, LENGTHS, sizeof LENGTHS, mcMemcpyHostToDevice));

    Layout at;
    mcdnnTensorDescriptor_t mDesc, bDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&mDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&bDesc));
    for (int lin = 0; lin < 8; lin++) {
        void *m, *b;
        CHECK_MCDNN(mcdnnGetRNNWeightParams(handle, rnn, 0, weightBytes, dSpace, lin, mDesc, &m, bDesc, &b));
        size_t mOffset = (size_t)((char *)m - (char *)dSpace) / sizeof(float);
        size_t bOffset = (size_t)((char *)b - (char *)dSpace) / sizeof(float);
        if (lin < 4) {
            at.w[lin] = mOffset;
            at.bw[lin] = bOffset;
        } else {
            at.r[lin - 4] = mOffset;
            at.br[lin - 4] = bOffset;
        }
    }

    std::vector<float> x(T * B * I, 0.0f);
    std::vector<double> xd(T * B * I, 0.0);
    for (int t = 0; t < T; t++)
        for (int b = 0; b < B; b++)
            for (int k = 0; k < I; k++)
                if (t < LENGTHS[b]) {
                    int i = (t * B + b) * I + k;
                    x[i] = 0.8f * std::cos(0.37f * (float)i);
                    xd[i] = x[i];
                }
    CHECK_MC(mcMemcpy(dX, x.data(), x.size() * sizeof(float), mcMemcpyHostToDevice));

    // forward (training: the reserve space keeps what the backward passes need)
    CHECK_MCDNN(mcdnnRNNForward(handle, rnn, MCDNN_FWD_MODE_TRAINING, dLengths, xDesc, dX, yDesc, dY, hDesc, nullptr,
                                dHy, hDesc, nullptr, dCy, weightBytes, dSpace, workBytes, work, reserveBytes, reserve));
    std::vector<float> y(T * B * H), hy(B * H), cy(B * H);
    CHECK_MC(mcMemcpy(y.data(), dY, y.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(hy.data(), dHy, hy.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(cy.data(), dCy, cy.size() * sizeof(float), mcMemcpyDeviceToHost));
    std::vector<double> yRef, hyRef, cyRef;
    double loss = lstm(space, at, xd, yRef, hyRef, cyRef);
    double yError = std::fmax(max_difference(y, yRef), std::fmax(max_difference(hy, hyRef), max_difference(cy, cyRef)));

    // backward: dy = y, then the input and weight gradients
    CHECK_MC(mcMemcpy(dDy, dY, y.size() * sizeof(float), mcMemcpyDeviceToDevice));
    CHECK_MCDNN(mcdnnRNNBackwardData_v8(handle, rnn, dLengths, yDesc, dY, dDy, xDesc, dDx, hDesc, nullptr, nullptr,
                                        nullptr, hDesc, nullptr, nullptr, nullptr, weightBytes, dSpace, workBytes, work,
                                        reserveBytes, reserve));
    CHECK_MC(mcMemset(dGrad, 0, weightBytes));
    CHECK_MCDNN(mcdnnRNNBackwardWeights_v8(handle, rnn, MCDNN_WGRAD_MODE_ADD, dLengths, xDesc, dX, hDesc, nullptr, yDesc,
                                           dY, weightBytes, dGrad, workBytes, work, reserveBytes, reserve));
    std::vector<float> grad(space.size()), dx(x.size());
    CHECK_MC(mcMemcpy(grad.data(), dGrad, weightBytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDx, dx.size() * sizeof(float), mcMemcpyDeviceToHost));

    // central differences of the host LSTM for a few weights (one per kind) and inputs
    std::vector<double> unusedY, unusedH, unusedC;
    const double eps = 1e-4;
    double gradError = 0.0;
    const size_t probes[4] = {at.w[0] + 3, at.r[1] + 7, at.bw[2] + 1, at.br[3] + 4};
    for (size_t p : probes) {
        std::vector<float> plus = space, minus = space;
        plus[p] += (float)eps;
        minus[p] -= (float)eps;
        double numeric = (lstm(plus, at, xd, unusedY, unusedH, unusedC) - lstm(minus, at, xd, unusedY, unusedH, unusedC))
                         / ((double)plus[p] - (double)minus[p]);
        gradError = std::fmax(gradError, std::fabs(numeric - grad[p]));
    }
    const int inputs[3] = {0, (1 * B + 2) * I + 1, (3 * B + 0) * I + 3};
    for (int i : inputs) {
        std::vector<double> plus = xd, minus = xd;
        plus[i] += eps;
        minus[i] -= eps;
        double numeric = (lstm(space, at, plus, unusedY, unusedH, unusedC) - lstm(space, at, minus, unusedY, unusedH,
                                                                                    unusedC)) / (2 * eps);
        gradError = std::fmax(gradError, std::fabs(numeric - dx[i]));
    }

    // one SGD step on the weight space, then the loss again (inference mode)
    for (size_t i = 0; i < space.size(); i++)
        space[i] -= 0.1f * grad[i];
    CHECK_MC(mcMemcpy(dSpace, space.data(), weightBytes, mcMemcpyHostToDevice));
    CHECK_MCDNN(mcdnnRNNForward(handle, rnn, MCDNN_FWD_MODE_INFERENCE, dLengths, xDesc, dX, yDesc, dY, hDesc, nullptr,
                                nullptr, hDesc, nullptr, nullptr, weightBytes, dSpace, workBytes, work, 0, nullptr));
    CHECK_MC(mcMemcpy(y.data(), dY, y.size() * sizeof(float), mcMemcpyDeviceToHost));
    double after = 0.0;
    for (float v : y)
        after += 0.5 * (double)v * (double)v;

    printf("weight space %zu floats, workspace %zu bytes, reserve space %zu bytes\n", space.size(), workBytes,
           reserveBytes);
    printf("loss %.6f -> %.6f after one SGD step\n", loss, after);
    printf("max |y, hy, cy - double LSTM| = %.3g\n", yError);
    printf("max |gradient - central difference| = %.3g\n", gradError);
    bool ok = yError < 1e-5 && gradError < 2e-3 && after < loss;
    printf("%s\n", ok ? "PASSED" : "FAILED");

    for (void *p : {(void *)dSpace, (void *)dGrad, (void *)dX, (void *)dDx, (void *)dY, (void *)dDy, (void *)dHy,
                    (void *)dCy, work, reserve, (void *)dLengths})
        CHECK_MC(mcFree(p));
    CHECK_MCDNN(mcdnnDestroyTensorDescriptor(mDesc));
    CHECK_MCDNN(mcdnnDestroyTensorDescriptor(bDesc));
    CHECK_MCDNN(mcdnnDestroyTensorDescriptor(hDesc));
    CHECK_MCDNN(mcdnnDestroyRNNDataDescriptor(xDesc));
    CHECK_MCDNN(mcdnnDestroyRNNDataDescriptor(yDesc));
    CHECK_MCDNN(mcdnnDestroyRNNDescriptor(rnn));
    CHECK_MCDNN(mcdnnDestroy(handle));
    return ok ? 0 : 1;
}
