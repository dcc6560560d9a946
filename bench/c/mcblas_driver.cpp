// mcBLAS timings from a C program: sgemm of size N^3 (alpha 1, beta 0, median of 5 after a warm-up,
// each synchronised) and the cost of tiny calls (mcblasSaxpy n=1, mcblasSgemm 4^3) averaged over a loop.
// Prints `name value` lines for bench/mcblas.py.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <mc_runtime.h>
#include <mcblas/mcblas.h>

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* The process's CPU time: on a shared machine a tiny call's own cost, without the waits for a core. */
static double cpu_ms()
{
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define CHECK(call)                                                                               \
    do {                                                                                          \
        if ((call) != 0) {                                                                        \
            fprintf(stderr, "%s failed\n", #call);                                                \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 2048;
    const size_t count = (size_t)n * n;
    std::vector<float> host(count);
    for (size_t i = 0; i < count; i++)
        host[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    float *a, *b, *c;
    CHECK(mcMalloc((void **)&a, count * sizeof(float)));
    CHECK(mcMalloc((void **)&b, count * sizeof(float)));
    CHECK(mcMalloc((void **)&c, count * sizeof(float)));
    CHECK(mcMemcpy(a, host.data(), count * sizeof(float), mcMemcpyHostToDevice));
    CHECK(mcMemcpy(b, host.data(), count * sizeof(float), mcMemcpyHostToDevice));
    mcblasHandle_t handle;
    CHECK(mcblasCreate(&handle));
    const float one = 1.0f, zero = 0.0f;

    std::vector<double> times;
    for (int i = 0; i < 6; i++) {
        double start = now_ms();
        CHECK(mcblasSgemm(handle, MCBLAS_OP_N, MCBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
        CHECK(mcDeviceSynchronize());
        if (i > 0)
            times.push_back(now_ms() - start);
    }
    std::sort(times.begin(), times.end());
    printf("sgemm_ms %f\n", times[times.size() / 2]);

    const int calls = 20000;
    for (int round = 0; round < 2; round++) {  // the first round warms up
        double start = now_ms(), cpu = cpu_ms();
        for (int i = 0; i < calls; i++)
            CHECK(mcblasSaxpy(handle, 1, &one, a, 1, c, 1));
        CHECK(mcDeviceSynchronize());
        double saxpy = (now_ms() - start) * 1000.0 / calls, saxpy_cpu = (cpu_ms() - cpu) * 1000.0 / calls;
        start = now_ms();
        cpu = cpu_ms();
        for (int i = 0; i < calls; i++)
            CHECK(mcblasSgemm(handle, MCBLAS_OP_N, MCBLAS_OP_N, 4, 4, 4, &one, a, 4, b, 4, &zero, c, 4));
        CHECK(mcDeviceSynchronize());
        double sgemm = (now_ms() - start) * 1000.0 / calls, sgemm_cpu = (cpu_ms() - cpu) * 1000.0 / calls;
        if (round == 1)
            printf("saxpy_tiny_us %f\nsgemm_tiny_us %f\nsaxpy_tiny_cpu_us %f\nsgemm_tiny_cpu_us %f\n", saxpy,
                   sgemm, saxpy_cpu, sgemm_cpu);
    }
    CHECK(mcblasDestroy(handle));
    for (float *p : {a, b, c})
        CHECK(mcFree(p));
    return 0;
}
