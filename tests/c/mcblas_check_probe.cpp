// mcBLAS under `opemu check`: one case per argument. clean: a correct GEMM; uninitialized-read: GEMM
// reading a matrix nothing wrote; out-of-bounds: GEMM whose lda x n reaches past the bytes requested
// (but inside the allocator's rounding, where the hardware would not fault); unsynchronized-read: C
// copied to the host before the non-blocking stream the GEMM runs on is synchronised.
#include <cstdio>
#include <cstring>
#include <vector>
#include <mc_runtime.h>
#include <mcblas/mcblas.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("clean\nuninitialized-read\nout-of-bounds\nunsynchronized-read\n");
        return 0;
    }
    const char *kind = argv[1];
    const int n = 4;
    std::vector<float> host(n * n, 1.0f);
    float *a, *b, *c;
    mcMalloc((void **)&a, n * n * sizeof(float));
    mcMalloc((void **)&b, (n * n - 2) * sizeof(float)); // two floats short of a 4 x 4 matrix
    mcMalloc((void **)&c, n * n * sizeof(float));
    mcblasSetMatrix(n, n, sizeof(float), host.data(), n, a, n);
    if (strcmp(kind, "uninitialized-read") != 0)
        mcblasSetVector(n * n - 2, sizeof(float), host.data(), 1, b, 1);
    mcblasHandle_t handle;
    mcblasCreate(&handle);
    mcStream_t stream = nullptr;
    if (strcmp(kind, "unsynchronized-read") == 0) {
        mcStreamCreateWithFlags(&stream, mcStreamNonBlocking);
        mcblasSetStream(handle, stream);
    }
    const float one = 1.0f, zero = 0.0f;
    int cols = strcmp(kind, "out-of-bounds") == 0 ? n : n - 1; // the clean cases stay inside b
    mcblasStatus_t status = mcblasSgemm(handle, MCBLAS_OP_N, MCBLAS_OP_N, n, cols, n, &one, a, n, b, n, &zero, c, n);
    if (stream)
        mcMemcpy(host.data(), c, n * n * sizeof(float), mcMemcpyDeviceToHost);  // before the stream's sync
    mcDeviceSynchronize();
    if (stream)
        mcStreamDestroy(stream);
    mcblasDestroy(handle);
    mcFree(a);
    mcFree(b);
    mcFree(c);
    printf("status %d\n", (int)status);
    return status == MCBLAS_STATUS_SUCCESS ? 0 : 1;
}
