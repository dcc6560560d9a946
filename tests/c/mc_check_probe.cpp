// MACA misuse for `opemu check`, one case per finding kind, plus leaks found at a device reset.
// `mc_check_probe CASE`; without a case it lists them.
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <mc_runtime.h>
#include <mcdnn/mcdnn.h>

static int relu(size_t y_bytes, bool read_before_sync = false)  // y: 64 floats described, y_bytes allocated
{
    mcdnnHandle_t h;
    mcdnnTensorDescriptor_t d;
    mcdnnActivationDescriptor_t act;
    float x_host[64] = {0}, alpha = 1, beta = 0;
    void *x, *y;
    mcdnnCreate(&h);
    mcdnnCreateTensorDescriptor(&d);
    mcdnnSetTensor4dDescriptor(d, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 1, 1, 8, 8);
    mcdnnCreateActivationDescriptor(&act);
    mcdnnSetActivationDescriptor(act, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0);
    mcMalloc(&x, sizeof x_host);
    mcMalloc(&y, y_bytes);
    mcMemcpy(x, x_host, sizeof x_host, mcMemcpyHostToDevice);
    mcStream_t stream = nullptr;
    if (read_before_sync) {  // a stream the legacy default stream does not wait for
        mcStreamCreateWithFlags(&stream, mcStreamNonBlocking);
        mcdnnSetStream(h, stream);
    }
    int rc = mcdnnActivationForward(h, act, &alpha, d, x, &beta, d, y);
    if (read_before_sync)
        mcMemcpy(x_host, y, sizeof x_host, mcMemcpyDeviceToHost);  // y before its stream is synchronised
    mcDeviceSynchronize();
    if (stream)
        mcStreamDestroy(stream);
    mcFree(x);
    mcFree(y);
    mcdnnDestroyActivationDescriptor(act);
    mcdnnDestroyTensorDescriptor(d);
    mcdnnDestroy(h);
    return rc;
}

static int convolution(size_t workspace_bytes)  // 8x8 image, 3x3 filter, explicit GEMM: its workspace
{
    mcdnnHandle_t h;
    mcdnnTensorDescriptor_t d;
    mcdnnFilterDescriptor_t f;
    mcdnnConvolutionDescriptor_t c;
    float x_host[64] = {0}, w_host[9] = {0}, alpha = 1, beta = 0;
    void *x, *w, *y, *ws;
    size_t need = 0;
    mcdnnCreate(&h);
    mcdnnCreateTensorDescriptor(&d);
    mcdnnSetTensor4dDescriptor(d, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 1, 1, 8, 8);
    mcdnnCreateFilterDescriptor(&f);
    mcdnnSetFilter4dDescriptor(f, MCDNN_DATA_FLOAT, MCDNN_TENSOR_NCHW, 1, 1, 3, 3);
    mcdnnCreateConvolutionDescriptor(&c);
    mcdnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, MCDNN_CROSS_CORRELATION, MCDNN_DATA_FLOAT);
    mcdnnGetConvolutionForwardWorkspaceSize(h, d, f, c, d, MCDNN_CONVOLUTION_FWD_ALGO_GEMM, &need);
    mcMalloc(&x, sizeof x_host);
    mcMalloc(&w, sizeof w_host);
    mcMalloc(&y, sizeof x_host);
    mcMalloc(&ws, workspace_bytes ? workspace_bytes : need);
    mcMemcpy(x, x_host, sizeof x_host, mcMemcpyHostToDevice);
    mcMemcpy(w, w_host, sizeof w_host, mcMemcpyHostToDevice);
    int rc = mcdnnConvolutionForward(h, &alpha, d, x, f, w, c, MCDNN_CONVOLUTION_FWD_ALGO_GEMM, ws, need, &beta, d, y);
    mcDeviceSynchronize();
    mcFree(x);
    mcFree(w);
    mcFree(y);
    mcFree(ws);
    mcdnnDestroyConvolutionDescriptor(c);
    mcdnnDestroyFilterDescriptor(f);
    mcdnnDestroyTensorDescriptor(d);
    mcdnnDestroy(h);
    return rc;
}

static std::map<std::string, std::function<int()>> cases = {
    {"clean", [] { return relu(256) | convolution(0); }},
    {"uninitialized-read", [] {
         void *d;
         char host[64];
         mcMalloc(&d, sizeof host);
         mcMemcpy(host, d, sizeof host, mcMemcpyDeviceToHost);
         return (int)mcFree(d);
     }},
    {"out-of-bounds", [] {
         void *d;
         char host[200] = {0};
         mcMalloc(&d, 100);  // mapped as 256: the copy fits the mapping, not the request
         mcMemcpy(d, host, sizeof host, mcMemcpyHostToDevice);
         return (int)mcFree(d);
     }},
    {"double-free", [] {
         void *d;
         mcMalloc(&d, 64);
         mcFree(d);
         mcFree(d);
         return 0;
     }},
    {"use-after-free", [] {  // the copy fails (not device memory); under check it is named for what it is
         void *d;
         char host[64];
         mcMalloc(&d, sizeof host);
         mcFree(d);
         return (int)mcMemcpy(host, d, sizeof host, mcMemcpyDeviceToHost);
     }},
    {"routine-overrun", [] { return relu(200); }},  // 256 bytes written, 200 requested
    {"unsynchronized-read", [] { return relu(256, true); }},
    {"workspace-overrun", [] { return convolution(64); }},  // the size passed is the one queried
    {"mcdnn-leak", [] {
         mcdnnHandle_t h;
         mcdnnTensorDescriptor_t d;
         mcdnnCreate(&h);
         mcdnnCreateTensorDescriptor(&d);
         return 0;
     }},
    {"mc-reset-leak", [] {
         void *d;
         mcMalloc(&d, 64);
         return (int)mcDeviceReset();
     }},
    {"host-access", [] {  // on the device a host dereference of device memory faults
         void *d;
         mcMalloc(&d, 64);
         mcMemset(d, 0, 64);
         printf("read %d\n", ((volatile char *)d)[0]);
         return (int)mcFree(d);
     }},
};

int main(int argc, char **argv)
{
    if (argc < 2 || cases.find(argv[1]) == cases.end()) {
        for (auto &c : cases)
            printf("%s\n", c.first.c_str());
        return argc < 2 ? 0 : 2;
    }
    return cases[argv[1]]();
}
