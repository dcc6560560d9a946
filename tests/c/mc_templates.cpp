// A C++ MACA program written against the real header's overloads: typed pointers without casts,
// defaulted flags, kernels and symbols passed as themselves, and printf/memcpy/sqrt used without
// their headers (mc_runtime.h brings them, as the vendor's does). Built with -Wall -Werror.
#include <mc_runtime.h>

#define CHECK(call, expected)                                                            \
    do {                                                                                 \
        mcError_t status_ = (call);                                                      \
        if (status_ != (expected)) {                                                     \
            printf("FAIL line %d: %s gave %s\n", __LINE__, #call, mcGetErrorName(status_)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static void scale(float *x, int n) { (void)x, (void)n; }  // stands for a __global__ kernel
static int device_constant;                                 // stands for a __constant__ symbol

int main()
{
    float *d = nullptr, *h = nullptr, *m = nullptr, *pitched = nullptr, *mapped = nullptr;
    double *a = nullptr, *b = nullptr;
    size_t pitch = 0;
    CHECK(mcMalloc(&d, 16 * sizeof(float)), mcSuccess);
    CHECK(mcMallocHost(&h, 16 * sizeof(float)), mcSuccess);
    CHECK(mcMallocManaged(&m, 16 * sizeof(float)), mcSuccess);
    CHECK(mcMallocPitch(&pitched, &pitch, 3 * sizeof(float), 4), mcSuccess);
    for (int i = 0; i < 16; i++)
        h[i] = std::sqrt((float)(i * i));
    CHECK(mcMemcpy(d, h, 16 * sizeof(float), mcMemcpyHostToDevice), mcSuccess);
    CHECK(mcMemcpy(m, d, 16 * sizeof(float), mcMemcpyDefault), mcSuccess);
    float first[16];
    std::memcpy(first, m, sizeof first);
    if (first[15] != 15.0f) {
        printf("FAIL: managed memory holds %f\n", first[15]);
        return 1;
    }
    CHECK(mcHostGetDevicePointer(&mapped, h, 0), mcSuccess);
    CHECK(mcHostAlloc(&a, sizeof(double), mcHostAllocMapped), mcSuccess);
    CHECK(mcMallocHost((void **)&b, sizeof(double), mcHostAllocPortable), mcSuccess);

    mcStream_t stream = nullptr;
    mcEvent_t event = nullptr;
    mcMemPool_t pool = nullptr;
    CHECK(mcStreamCreate(&stream), mcSuccess);
    CHECK(mcEventCreate(&event, mcEventDisableTiming), mcSuccess);
    CHECK(mcDeviceGetDefaultMemPool(&pool, 0), mcSuccess);
    int *async_a = nullptr, *async_b = nullptr, *async_c = nullptr;
    CHECK(mcMallocAsync(&async_a, 64, stream), mcSuccess);
    CHECK(mcMallocAsync(&async_b, 64, pool, stream), mcSuccess);
    CHECK(mcMallocFromPoolAsync(&async_c, 64, pool, stream), mcSuccess);
    for (int *p : {async_a, async_b, async_c})
        CHECK(mcFreeAsync(p, stream), mcSuccess);
    CHECK(mcEventRecord(event, stream), mcSuccess);
    CHECK(mcStreamSynchronize(stream), mcSuccess);

    // device code is not emulated: the overloads compile and the calls answer mcErrorNotSupported
    mcFuncAttributes attributes;
    int grid = 0, block = 0;
    int n = 16;
    void *args[] = {&d, &n};
    mcLaunchConfig_t config = {};
    CHECK(mcFuncGetAttributes(&attributes, scale), mcErrorNotSupported);
    CHECK(mcFuncSetCacheConfig(scale, mcFuncCachePreferShared), mcErrorNotSupported);
    CHECK(mcOccupancyMaxPotentialBlockSize(&grid, &block, scale), mcErrorNotSupported);
    CHECK(mcOccupancyMaxActiveBlocksPerMultiprocessor(&grid, scale, 64, 0), mcErrorNotSupported);
    CHECK(mcLaunchKernel(scale, dim3(4), dim3(64, 1), args), mcErrorNotSupported);
    CHECK(mcLaunchKernelEx(&config, scale, d, n), mcErrorNotSupported);
    CHECK(mcMemcpyToSymbol(device_constant, &n, sizeof n), mcErrorNotSupported);
    CHECK(mcMemcpyFromSymbol(&n, device_constant, sizeof n), mcErrorNotSupported);
    mcGetLastError();

    CHECK(mcEventDestroy(event), mcSuccess);
    CHECK(mcStreamDestroy(stream), mcSuccess);
    CHECK(mcFreeHost(a), mcSuccess);
    CHECK(mcFreeHost(b), mcSuccess);
    CHECK(mcFreeHost(h), mcSuccess);
    for (float *p : {d, m, pitched})
        CHECK(mcFree(p), mcSuccess);
    printf("PASS\n");
    return 0;
}
