// mcblasLt, as cuBLASLt's LtSgemm sample drives it, with an epilogue: D = relu(A^T B + bias) for a layer's
// forward pass (A stored k x m, transposed by the operation; bias one value per row of D), the ReLU mask
// kept in the epilogue's aux buffer, then the backward epilogue DRELU_BGRAD: dZ = relu'(Z) * (W dY) and
// the bias gradient (the sums of dZ's rows). Descriptors, a workspace preference and the heuristic's first
// algorithm, as programs set them up.
// The sample checks its numbers against the same products computed here in double and exits 1 on a
// mismatch.
#include <cmath>
#include <cstdio>
#include <vector>
#include <mc_runtime.h>
#include <mcblas/mcblasLt.h>

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)
#define CHECK_MCBLAS(call)                                                                        \
    do {                                                                                          \
        mcblasStatus_t status_ = (call);                                                          \
        if (status_ != MCBLAS_STATUS_SUCCESS) {                                                   \
            printf("%s failed: %s\n", #call, mcblasGetStatusName(status_));                       \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static const int M = 24, N = 16, K = 40;   // D is M x N (column-major), A is K x M, B is K x N

// One matmul D = epilogue(alpha op(A) op(B)) with the heuristic's first algorithm.
static mcblasStatus_t matmul(mcblasLtHandle_t lt, mcblasLtMatmulDesc_t desc, const float *a, mcblasLtMatrixLayout_t la,
                             const float *b, mcblasLtMatrixLayout_t lb, float *d, mcblasLtMatrixLayout_t ld,
                             void *workspace, size_t workspaceSize)
{
    mcblasLtMatmulPreference_t pref;
    mcblasStatus_t s = mcblasLtMatmulPreferenceCreate(&pref);
    if (s != MCBLAS_STATUS_SUCCESS)
        return s;
    s = mcblasLtMatmulPreferenceSetAttribute(pref, MCBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceSize,
                                             sizeof workspaceSize);
    mcblasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    if (s == MCBLAS_STATUS_SUCCESS)
        s = mcblasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &result, &found);
    if (s == MCBLAS_STATUS_SUCCESS && found == 0)
        s = MCBLAS_STATUS_NOT_SUPPORTED;
    const float alpha = 1.0f, beta = 0.0f;
    if (s == MCBLAS_STATUS_SUCCESS)
        s = mcblasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &result.algo, workspace, workspaceSize,
                           nullptr);
    mcblasLtMatmulPreferenceDestroy(pref);
    return s;
}

int main()
{
    std::vector<float> a(K * M), b(K * N), bias(M), d(M * N), w(M * M), dd(M * N);
    for (size_t i = 0; i < a.size(); i++)
        a[i] = 0.3f * std::sin(0.11f * (float)i);
    for (size_t i = 0; i < b.size(); i++)
        b[i] = 0.5f * std::cos(0.07f * (float)i + 1.0f);
    for (int i = 0; i < M; i++)
        bias[i] = 0.05f * (float)(i % 7) - 0.15f;
    for (size_t i = 0; i < w.size(); i++)
        w[i] = 0.2f * std::sin(0.5f * (float)i);

    float *dA, *dB, *dBias, *dD, *dW, *dDz, *dBgrad;
    void *dMask, *workspace;
    const size_t workspaceSize = 1 << 20;
    const int64_t maskLd = ((M + 127) / 128) * 128;   // the ReLU mask: one bit per element, ld a multiple of 128
    CHECK_MC(mcMalloc(&dA, a.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dB, b.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dBias, bias.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dD, d.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dW, w.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDz, dd.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dBgrad, M * sizeof(float)));
    CHECK_MC(mcMalloc(&dMask, (size_t)maskLd * N / 8));
    CHECK_MC(mcMalloc(&workspace, workspaceSize));
    CHECK_MC(mcMemcpy(dA, a.data(), a.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dB, b.data(), b.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dBias, bias.data(), bias.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dW, w.data(), w.size() * sizeof(float), mcMemcpyHostToDevice));

    mcblasLtHandle_t lt;
    CHECK_MCBLAS(mcblasLtCreate(&lt));

    // forward: D = relu(A^T B + bias), the mask in the aux buffer
    mcblasLtMatmulDesc_t forward;
    mcblasOperation_t transA = MCBLAS_OP_T, transB = MCBLAS_OP_N;
    mcblasLtEpilogue_t epilogue = MCBLASLT_EPILOGUE_RELU_AUX_BIAS;
    CHECK_MCBLAS(mcblasLtMatmulDescCreate(&forward, MCBLAS_COMPUTE_32F, MACA_R_32F));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof transA));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof transB));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &dMask,
                                                sizeof dMask));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(forward, MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &maskLd, sizeof maskLd));
    mcblasLtMatrixLayout_t la, lb, ld, lw;
    CHECK_MCBLAS(mcblasLtMatrixLayoutCreate(&la, MACA_R_32F, K, M, K));
    CHECK_MCBLAS(mcblasLtMatrixLayoutCreate(&lb, MACA_R_32F, K, N, K));
    CHECK_MCBLAS(mcblasLtMatrixLayoutCreate(&ld, MACA_R_32F, M, N, M));
    CHECK_MCBLAS(mcblasLtMatrixLayoutCreate(&lw, MACA_R_32F, M, M, M));
    CHECK_MCBLAS(matmul(lt, forward, dA, la, dB, lb, dD, ld, workspace, workspaceSize));

    // backward: dZ = relu'(Z) * (W dD) with the forward's mask, and the bias gradient
    mcblasLtMatmulDesc_t backward;
    mcblasLtEpilogue_t drelu = MCBLASLT_EPILOGUE_DRELU_BGRAD;
    CHECK_MCBLAS(mcblasLtMatmulDescCreate(&backward, MCBLAS_COMPUTE_32F, MACA_R_32F));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(backward, MCBLASLT_MATMUL_DESC_EPILOGUE, &drelu, sizeof drelu));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(backward, MCBLASLT_MATMUL_DESC_BIAS_POINTER, &dBgrad, sizeof dBgrad));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(backward, MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &dMask,
                                                sizeof dMask));
    CHECK_MCBLAS(mcblasLtMatmulDescSetAttribute(backward, MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &maskLd,
                                                sizeof maskLd));
    CHECK_MCBLAS(matmul(lt, backward, dW, lw, dD, ld, dDz, ld, workspace, workspaceSize));
    CHECK_MC(mcDeviceSynchronize());
    std::vector<float> bgrad(M);
    CHECK_MC(mcMemcpy(d.data(), dD, d.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dd.data(), dDz, dd.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(bgrad.data(), dBgrad, M * sizeof(float), mcMemcpyDeviceToHost));

    // the same in double
    std::vector<double> z(M * N), y(M * N);
    double forwardError = 0.0, backwardError = 0.0, biasError = 0.0, total = 0.0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = bias[i];
            for (int p = 0; p < K; p++)
                s += (double)a[i * K + p] * b[j * K + p];
            z[j * M + i] = s;
            y[j * M + i] = s > 0 ? s : 0;
            forwardError = std::fmax(forwardError, std::fabs(d[j * M + i] - y[j * M + i]));
            total += d[j * M + i];
        }
    for (int i = 0; i < M; i++) {
        double rowSum = 0.0;
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int p = 0; p < M; p++)
                s += (double)w[p * M + i] * d[j * M + p];
            double grad = z[j * M + i] > 0 ? s : 0.0;
            rowSum += grad;
            backwardError = std::fmax(backwardError, std::fabs(dd[j * M + i] - grad));
        }
        biasError = std::fmax(biasError, std::fabs(bgrad[i] - rowSum));
    }
    printf("sum of relu(A^T B + bias) = %.5f\n", total);
    printf("max |D - double| = %.3g, max |dZ - double| = %.3g, max |bias gradient - double| = %.3g\n", forwardError,
           backwardError, biasError);
    bool ok = forwardError < 1e-5 && backwardError < 1e-5 && biasError < 1e-4;
    printf("%s\n", ok ? "PASSED" : "FAILED");

    for (mcblasLtMatrixLayout_t l : {la, lb, ld, lw})
        CHECK_MCBLAS(mcblasLtMatrixLayoutDestroy(l));
    CHECK_MCBLAS(mcblasLtMatmulDescDestroy(forward));
    CHECK_MCBLAS(mcblasLtMatmulDescDestroy(backward));
    CHECK_MCBLAS(mcblasLtDestroy(lt));
    for (void *p : {(void *)dA, (void *)dB, (void *)dBias, (void *)dD, (void *)dW, (void *)dDz, (void *)dBgrad, dMask,
                    workspace})
        CHECK_MC(mcFree(p));
    return ok ? 0 : 1;
}
