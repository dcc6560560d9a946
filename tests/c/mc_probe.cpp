// Probes of the MACA runtime and the mcDNN object model, one named case per documented behaviour.
// Built with the MACA line (g++ app.cpp -I$MACA_PATH/include -I$MACA_PATH/include/mcr -L$MACA_PATH/lib
// -lmcdnn -lmcruntime); `mc_probe CASE` prints "PASS" or the first failed expectation.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <mc_runtime.h>
#include <mcdnn/mcdnn.h>
#include "probe.h"

static probe_cases cases = {
    {"malloc_free_and_sticky_errors", [] {
         void *p = nullptr;
         EXPECT_EQ(mcGetLastError(), mcSuccess);
         EXPECT_EQ(mcMalloc(nullptr, 16), mcErrorInvalidValue);
         EXPECT_EQ(mcPeekAtLastError(), mcErrorInvalidValue);   // peek keeps it
         EXPECT_EQ(mcPeekAtLastError(), mcErrorInvalidValue);
         EXPECT_EQ(mcGetLastError(), mcErrorInvalidValue);      // get returns and clears
         EXPECT_EQ(mcGetLastError(), mcSuccess);
         EXPECT_EQ(mcMalloc(&p, 0), mcSuccess);
         EXPECT_TRUE(p == nullptr);
         EXPECT_EQ(mcMalloc(&p, 100), mcSuccess);
         EXPECT_TRUE(((uintptr_t)p % 256) == 0);
         EXPECT_EQ(mcFree(nullptr), mcSuccess);
         EXPECT_EQ(mcFree((char *)p + 8), mcErrorInvalidValue);
         EXPECT_EQ(mcFree(p), mcSuccess);
         EXPECT_EQ(mcFree(p), mcErrorInvalidValue);
         size_t huge = (size_t)1 << 62;
         EXPECT_EQ(mcMalloc(&p, huge), mcErrorMemoryAllocation);
         EXPECT_EQ(mcGetLastError(), mcErrorMemoryAllocation);
         return 0;
     }},
    {"error_names_and_strings", [] {
         EXPECT_TRUE(strcmp(mcGetErrorName(mcErrorInvalidValue), "mcErrorInvalidValue") == 0);
         EXPECT_TRUE(strcmp(mcGetErrorString(mcErrorInvalidValue), "invalid argument") == 0);
         EXPECT_TRUE(strcmp(mcGetErrorName(mcErrorNotReady), "mcErrorNotReady") == 0);
         EXPECT_TRUE(strcmp(mcGetErrorName((mcError_t)12345), "unrecognized error code") == 0);
         EXPECT_EQ(mcErrorInvalidResourceHandle, 400);
         EXPECT_EQ(mcErrorIllegalAddress, 700);
         EXPECT_EQ(mcErrorNotSupported, 801);
         EXPECT_EQ(mcErrorUnknown, 999);
         return 0;
     }},
    {"memcpy_memset_and_meminfo", [] {
         size_t free0 = 0, total = 0;
         EXPECT_EQ(mcMemGetInfo(&free0, &total), mcSuccess);
         EXPECT_TRUE(total > 0 && free0 <= total);
         float host[64], back[64];
         for (int i = 0; i < 64; i++) host[i] = (float)i;
         void *d = nullptr, *e = nullptr;
         EXPECT_EQ(mcMalloc(&d, sizeof host), mcSuccess);
         EXPECT_EQ(mcMalloc(&e, sizeof host), mcSuccess);
         size_t free1 = 0;
         EXPECT_EQ(mcMemGetInfo(&free1, &total), mcSuccess);
         EXPECT_TRUE(free0 - free1 >= 2 * sizeof host);
         EXPECT_EQ(mcMemcpy(d, host, sizeof host, mcMemcpyHostToDevice), mcSuccess);
         EXPECT_EQ(mcMemcpy(e, d, sizeof host, mcMemcpyDeviceToDevice), mcSuccess);
         EXPECT_EQ(mcMemcpy(back, e, sizeof host, mcMemcpyDefault), mcSuccess);
         EXPECT_TRUE(memcmp(host, back, sizeof host) == 0);
         EXPECT_EQ(mcMemcpy(back, host, sizeof host, (mcMemcpyKind)7), mcErrorInvalidMemcpyDirection);
         EXPECT_EQ(mcMemcpy(host, back, sizeof host, mcMemcpyHostToDevice), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy(d, host, 100000, mcMemcpyHostToDevice), mcErrorInvalidValue);  // past the allocation
         EXPECT_EQ(mcMemcpy(nullptr, host, 4, mcMemcpyHostToDevice), mcErrorInvalidValue);
         EXPECT_EQ(mcMemset(d, 0x3F, sizeof host), mcSuccess);
         EXPECT_EQ(mcMemcpy(back, d, sizeof host, mcMemcpyDeviceToHost), mcSuccess);
         unsigned char *bytes = (unsigned char *)back;
         EXPECT_TRUE(bytes[0] == 0x3F && bytes[sizeof host - 1] == 0x3F);
         EXPECT_EQ(mcMemset(host, 0, 4), mcErrorInvalidValue);
         void *pinned = nullptr;
         EXPECT_EQ(mcMallocHost(&pinned, 256), mcSuccess);
         EXPECT_EQ(mcFree(pinned), mcErrorInvalidValue);
         EXPECT_EQ(mcFreeHost(pinned), mcSuccess);
         EXPECT_EQ(mcFree(d), mcSuccess);
         EXPECT_EQ(mcFree(e), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"streams_and_async_copies", [] {
         mcStream_t s = nullptr, nb = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         EXPECT_EQ(mcStreamCreateWithFlags(&nb, mcStreamNonBlocking), mcSuccess);
         EXPECT_EQ(mcStreamCreateWithFlags(&nb, 0x10), mcErrorInvalidValue);
         int host[16], back[16];
         for (int i = 0; i < 16; i++) host[i] = i * 3;
         void *d = nullptr;
         EXPECT_EQ(mcMalloc(&d, sizeof host), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(d, host, sizeof host, mcMemcpyHostToDevice, s), mcSuccess);
         EXPECT_EQ(mcMemsetAsync(d, 0, 4, s), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(back, d, sizeof host, mcMemcpyDeviceToHost, s), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(mcStreamQuery(s), mcSuccess);
         EXPECT_TRUE(back[0] == 0 && back[15] == 45);
         EXPECT_EQ(mcStreamSynchronize(nullptr), mcSuccess);  // the default stream
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         EXPECT_EQ(mcStreamDestroy(s), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamSynchronize(s), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamDestroy(nullptr), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamDestroy(nb), mcSuccess);
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"deferred_stream_runs_at_synchronisation", [] {  // run with OPEMU_STREAM=deferred
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         int host = 7, back = 0;
         void *d = nullptr;
         EXPECT_EQ(mcMalloc(&d, sizeof host), mcSuccess);
         EXPECT_EQ(mcMemset(d, 0, sizeof host), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(d, &host, sizeof host, mcMemcpyHostToDevice, s), mcSuccess);
         EXPECT_EQ(mcStreamQuery(s), mcErrorNotReady);
         EXPECT_EQ(mcGetLastError(), mcSuccess);  // not ready is an answer, not a sticky error
         mcEvent_t e = nullptr;
         EXPECT_EQ(mcEventCreate(&e), mcSuccess);
         EXPECT_EQ(mcEventRecord(e, s), mcSuccess);
         EXPECT_EQ(mcEventQuery(e), mcErrorNotReady);
         EXPECT_EQ(mcEventSynchronize(e), mcSuccess);
         EXPECT_EQ(mcEventQuery(e), mcSuccess);
         EXPECT_EQ(mcMemcpy(&back, d, sizeof back, mcMemcpyDeviceToHost), mcSuccess);
         EXPECT_EQ(back, 7);
         EXPECT_EQ(mcEventDestroy(e), mcSuccess);
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         EXPECT_EQ(mcFree(d), mcSuccess);
         return 0;
     }},
    {"events", [] {
         mcEvent_t a = nullptr, b = nullptr, untimed = nullptr;
         EXPECT_EQ(mcEventCreate(&a), mcSuccess);
         EXPECT_EQ(mcEventCreateWithFlags(&b, mcEventBlockingSync), mcSuccess);
         EXPECT_EQ(mcEventCreateWithFlags(&untimed, mcEventDisableTiming), mcSuccess);
         EXPECT_EQ(mcEventCreateWithFlags(&untimed, mcEventInterprocess), mcErrorInvalidValue);
         mcGetLastError();
         float ms = -1;
         EXPECT_EQ(mcEventQuery(a), mcSuccess);  // never recorded: complete
         EXPECT_EQ(mcEventElapsedTime(&ms, a, b), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcEventRecord(a, nullptr), mcSuccess);
         EXPECT_EQ(mcEventRecord(b, nullptr), mcSuccess);
         EXPECT_EQ(mcEventSynchronize(b), mcSuccess);
         EXPECT_EQ(mcEventElapsedTime(&ms, a, b), mcSuccess);
         EXPECT_TRUE(ms >= 0);
         EXPECT_EQ(mcEventRecord(untimed, nullptr), mcSuccess);
         EXPECT_EQ(mcEventElapsedTime(&ms, a, untimed), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcEventElapsedTime(nullptr, a, b), mcErrorInvalidValue);
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         EXPECT_EQ(mcStreamWaitEvent(s, a, 0), mcSuccess);
         EXPECT_EQ(mcStreamWaitEvent(s, a, 5), mcErrorInvalidValue);
         EXPECT_EQ(mcEventDestroy(a), mcSuccess);
         EXPECT_EQ(mcEventDestroy(a), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcEventRecord(a, nullptr), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamWaitEvent(s, a, 0), mcErrorInvalidResourceHandle);
         mcEventDestroy(b);
         mcEventDestroy(untimed);
         mcStreamDestroy(s);
         mcGetLastError();
         return 0;
     }},
    {"devices", [] {
         int count = 0, dev = -1;
         EXPECT_EQ(mcGetDeviceCount(&count), mcSuccess);
         EXPECT_TRUE(count >= 1);
         EXPECT_EQ(mcGetDevice(&dev), mcSuccess);
         EXPECT_EQ(dev, 0);
         EXPECT_EQ(mcSetDevice(count), mcErrorInvalidDevice);
         EXPECT_EQ(mcSetDevice(-1), mcErrorInvalidDevice);
         mcDeviceProp_t prop;
         EXPECT_EQ(mcGetDeviceProperties(&prop, 0), mcSuccess);
         EXPECT_EQ(prop.warpSize, 64);
         EXPECT_TRUE(prop.totalGlobalMem > 0 && strlen(prop.name) > 0);
         EXPECT_EQ(mcGetDeviceProperties(&prop, count), mcErrorInvalidDevice);
         EXPECT_EQ(mcGetDeviceProperties(nullptr, 0), mcErrorInvalidValue);
         if (count > 1) {
             EXPECT_EQ(mcSetDevice(1), mcSuccess);
             EXPECT_EQ(mcGetDevice(&dev), mcSuccess);
             EXPECT_EQ(dev, 1);
             EXPECT_EQ(mcSetDevice(0), mcSuccess);
         }
         void *p = nullptr;
         EXPECT_EQ(mcMalloc(&p, 64), mcSuccess);
         EXPECT_EQ(mcDeviceSynchronize(), mcSuccess);
         EXPECT_EQ(mcDeviceReset(), mcSuccess);  // releases the device's memory
         EXPECT_EQ(mcFree(p), mcErrorInvalidValue);
         mcGetLastError();
         EXPECT_EQ(mcMalloc(&p, 64), mcSuccess);  // a fresh primary context
         EXPECT_EQ(mcFree(p), mcSuccess);
         return 0;
     }},
    {"mcdnn_library_and_handle", [] {
         EXPECT_EQ(mcdnnGetVersion(), MCDNN_VERSION);
         EXPECT_EQ(MCDNN_VERSION, 1101);
         int v = -1;
         EXPECT_EQ(mcdnnGetProperty(MAJOR_VERSION, &v), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(v, MCDNN_MAJOR);
         EXPECT_EQ(mcdnnGetProperty(PATCH_LEVEL, &v), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(v, MCDNN_PATCHLEVEL);
         EXPECT_EQ(mcdnnGetProperty(MAJOR_VERSION, nullptr), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnOpsInferVersionCheck(), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnOpsTrainVersionCheck(), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(strcmp(mcdnnGetErrorString(MCDNN_STATUS_BAD_PARAM), "MCDNN_STATUS_BAD_PARAM") == 0);
         EXPECT_TRUE(strcmp(mcdnnGetErrorString((mcdnnStatus_t)99), "MCDNN_UNKNOWN_STATUS") == 0);
         EXPECT_EQ(mcdnnCreate(nullptr), MCDNN_STATUS_BAD_PARAM);
         mcdnnHandle_t h = nullptr;
         EXPECT_EQ(mcdnnCreate(&h), MCDNN_STATUS_SUCCESS);
         mcStream_t s = nullptr, got = (mcStream_t)1;
         EXPECT_EQ(mcdnnGetStream(h, &got), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(got == nullptr);
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         EXPECT_EQ(mcdnnSetStream(h, s), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetStream(h, &got), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(got == s);
         EXPECT_EQ(mcdnnSetStream(h, (mcStream_t)&v), MCDNN_STATUS_BAD_PARAM);
         mcdnnStatus_t runtime = MCDNN_STATUS_INTERNAL_ERROR;
         EXPECT_EQ(mcdnnQueryRuntimeError(h, &runtime, MCDNN_ERRQUERY_BLOCKING, nullptr), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(runtime, MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnDestroy(h), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnDestroy(h), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetStream(h, nullptr), MCDNN_STATUS_BAD_PARAM);
         mcStreamDestroy(s);
         return 0;
     }},
    {"tensor_descriptors", [] {
         mcdnnTensorDescriptor_t t = nullptr;
         EXPECT_EQ(mcdnnCreateTensorDescriptor(nullptr), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnCreateTensorDescriptor(&t), MCDNN_STATUS_SUCCESS);
         size_t bytes = 0;
         EXPECT_EQ(mcdnnGetTensorSizeInBytes(t, &bytes), MCDNN_STATUS_BAD_PARAM);  // never set
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, MCDNN_TENSOR_NHWC, MCDNN_DATA_HALF, 2, 3, 4, 5), MCDNN_STATUS_SUCCESS);
         mcdnnDataType_t type;
         int n, c, h, w, ns, cs, hs, ws;
         EXPECT_EQ(mcdnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(type == MCDNN_DATA_HALF && n == 2 && c == 3 && h == 4 && w == 5);
         EXPECT_TRUE(ns == 60 && cs == 1 && hs == 15 && ws == 3);
         EXPECT_EQ(mcdnnGetTensorSizeInBytes(t, &bytes), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(bytes, 120 * 2);
         EXPECT_EQ(mcdnnSetTensor4dDescriptorEx(t, MCDNN_DATA_FLOAT, 1, 2, 3, 4, 40, 20, 6, 1), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetTensorSizeInBytes(t, &bytes), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(bytes, (20 + 12 + 3 + 1) * 4);
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 0, 3, 4, 5), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, (mcdnnTensorFormat_t)7, MCDNN_DATA_FLOAT, 1, 3, 4, 5), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, MCDNN_TENSOR_NCHW, (mcdnnDataType_t)42, 1, 3, 4, 5), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensor4dDescriptorEx(t, MCDNN_DATA_FLOAT, 1, 2, 3, 4, 24, -1, 4, 1), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 65536, 65536, 1, 1),
                   MCDNN_STATUS_NOT_SUPPORTED);  // over 2 Giga-elements
         int dims[5] = {2, 3, 4, 5, 6}, strides[5] = {720, 240, 60, 12, 2};
         EXPECT_EQ(mcdnnSetTensorNdDescriptor(t, MCDNN_DATA_DOUBLE, 5, dims, strides), MCDNN_STATUS_SUCCESS);
         int nb = 0, gd[8] = {0}, gs[8] = {0};
         EXPECT_EQ(mcdnnGetTensorNdDescriptor(t, 8, &type, &nb, gd, gs), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(type == MCDNN_DATA_DOUBLE && nb == 5 && gd[4] == 6 && gs[4] == 2 && gs[0] == 720);
         EXPECT_EQ(mcdnnGetTensorNdDescriptor(t, 2, &type, &nb, gd, gs), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(nb, 5);
         EXPECT_EQ(mcdnnSetTensorNdDescriptor(t, MCDNN_DATA_FLOAT, 2, dims, strides), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensorNdDescriptor(t, MCDNN_DATA_FLOAT, 9, dims, strides), MCDNN_STATUS_NOT_SUPPORTED);
         EXPECT_EQ(mcdnnSetTensorNdDescriptor(t, MCDNN_DATA_FLOAT, 5, nullptr, strides), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetTensorNdDescriptorEx(t, MCDNN_TENSOR_NHWC, MCDNN_DATA_FLOAT, 5, dims), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetTensorNdDescriptor(t, 5, &type, &nb, gd, gs), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(gs[1] == 1 && gs[4] == 3 && gs[3] == 18 && gs[2] == 90 && gs[0] == 360);
         EXPECT_EQ(mcdnnSetTensorNdDescriptorEx(t, MCDNN_TENSOR_NCHW_VECT_C, MCDNN_DATA_FLOAT, 4, dims),
                   MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnDestroyTensorDescriptor(t), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnDestroyTensorDescriptor(t), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnDestroyTensorDescriptor(nullptr), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetTensorSizeInBytes(t, &bytes), MCDNN_STATUS_BAD_PARAM);
         return 0;
     }},
    {"activation_pooling_lrn_descriptors", [] {
         mcdnnActivationDescriptor_t a = nullptr;
         EXPECT_EQ(mcdnnCreateActivationDescriptor(&a), MCDNN_STATUS_SUCCESS);
         double beta = 0;
         EXPECT_EQ(mcdnnGetActivationDescriptorSwishBeta(a, &beta), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(beta == 1.0);
         EXPECT_EQ(mcdnnSetActivationDescriptor(a, MCDNN_ACTIVATION_ELU, MCDNN_PROPAGATE_NAN, 0.3), MCDNN_STATUS_SUCCESS);
         mcdnnActivationMode_t mode;
         mcdnnNanPropagation_t nan;
         double coef = 0;
         EXPECT_EQ(mcdnnGetActivationDescriptor(a, &mode, &nan, &coef), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(mode == MCDNN_ACTIVATION_ELU && nan == MCDNN_PROPAGATE_NAN && coef == 0.3);
         EXPECT_EQ(mcdnnSetActivationDescriptor(a, (mcdnnActivationMode_t)9, MCDNN_PROPAGATE_NAN, 0), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetActivationDescriptor(a, MCDNN_ACTIVATION_RELU, (mcdnnNanPropagation_t)2, 0), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetActivationDescriptorSwishBeta(a, 2.5), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetActivationDescriptorSwishBeta(a, &beta), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(beta == 2.5);
         EXPECT_EQ(mcdnnDestroyActivationDescriptor(a), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetActivationDescriptor(a, &mode, &nan, &coef), MCDNN_STATUS_BAD_PARAM);

         mcdnnPoolingDescriptor_t p = nullptr;
         mcdnnTensorDescriptor_t t = nullptr;
         EXPECT_EQ(mcdnnCreatePoolingDescriptor(&p), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnCreateTensorDescriptor(&t), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnSetTensor4dDescriptor(t, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 32, 64, 56, 56), MCDNN_STATUS_SUCCESS);
         int n, c, h, w;
         EXPECT_EQ(mcdnnGetPooling2dForwardOutputDim(p, t, &n, &c, &h, &w), MCDNN_STATUS_BAD_PARAM);  // never set
         EXPECT_EQ(mcdnnSetPooling2dDescriptor(p, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2),
                   MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetPooling2dForwardOutputDim(p, t, &n, &c, &h, &w), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(n == 32 && c == 64 && h == 28 && w == 28);  // 1 + (56 + 2 - 3) / 2
         EXPECT_EQ(mcdnnSetPooling2dDescriptor(p, (mcdnnPoolingMode_t)4, MCDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2),
                   MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetPooling2dDescriptor(p, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 3, 0, 1, 1, 2, 2),
                   MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetPooling2dDescriptor(p, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 3, 3, -1, 1, 2, 2),
                   MCDNN_STATUS_BAD_PARAM);
         int window[3] = {2, 3, 3}, pad[3] = {0, 1, 1}, stride[3] = {1, 2, 2};
         EXPECT_EQ(mcdnnSetPoolingNdDescriptor(p, MCDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, MCDNN_PROPAGATE_NAN, 3,
                                               window, pad, stride), MCDNN_STATUS_SUCCESS);
         mcdnnPoolingMode_t pm;
         int nb = 0, gw[3], gp[3], gs[3];
         EXPECT_EQ(mcdnnGetPoolingNdDescriptor(p, 3, &pm, &nan, &nb, gw, gp, gs), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(pm == MCDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING && nb == 3 && gw[0] == 2 && gp[1] == 1 && gs[2] == 2);
         EXPECT_EQ(mcdnnGetPooling2dForwardOutputDim(p, t, &n, &c, &h, &w), MCDNN_STATUS_BAD_PARAM);  // 3-D pooling
         int dims5[5] = {1, 2, 5, 8, 8}, out[5];
         EXPECT_EQ(mcdnnSetTensorNdDescriptorEx(t, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 5, dims5), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnGetPoolingNdForwardOutputDim(p, t, 5, out), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(out[0] == 1 && out[1] == 2 && out[2] == 4 && out[3] == 4 && out[4] == 4);
         EXPECT_EQ(mcdnnGetPoolingNdForwardOutputDim(p, t, 4, out), MCDNN_STATUS_BAD_PARAM);
         mcdnnDestroyPoolingDescriptor(p);
         mcdnnDestroyTensorDescriptor(t);

         mcdnnLRNDescriptor_t l = nullptr;
         EXPECT_EQ(mcdnnCreateLRNDescriptor(&l), MCDNN_STATUS_SUCCESS);
         unsigned ln = 0;
         double la, lb, lk;
         EXPECT_EQ(mcdnnGetLRNDescriptor(l, &ln, &la, &lb, &lk), MCDNN_STATUS_SUCCESS);
         EXPECT_TRUE(ln == 5 && la == 1e-4 && lb == 0.75 && lk == 2.0);
         EXPECT_EQ(mcdnnSetLRNDescriptor(l, 0, 1e-4, 0.75, 2.0), MCDNN_STATUS_BAD_PARAM);
         EXPECT_EQ(mcdnnSetLRNDescriptor(l, 16, 1e-3, 0.01, 1e-5), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnDestroyLRNDescriptor(l), MCDNN_STATUS_SUCCESS);
         EXPECT_EQ(mcdnnDestroyLRNDescriptor(l), MCDNN_STATUS_BAD_PARAM);
         return 0;
     }},
    /* Every mcDNN routine the headers declare is implemented; what opemu does not implement answers
       NOT_SUPPORTED with a message, never success: here a backend descriptor type it does not emulate. */
    {"unimplemented_features_are_not_supported", [] {
         mcdnnBackendDescriptor_t d = nullptr;
         EXPECT_EQ(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, &d),
                   MCDNN_STATUS_NOT_SUPPORTED);
         EXPECT_TRUE(d == nullptr);
         return 0;
     }},
};

int main(int argc, char **argv) { return run_probe(cases, argc, argv); }
