/* MACA runtime API (opemu).
 *
 * MetaX does not publish this header; what is public (reference mcdnn.md §1, §1c) is the names, the
 * CUDA-runtime argument order of every function below, the mcError_t numbering (values 0..999 mirror
 * cudaError_t), the mcMemcpyKind values and the opaque stream/event types. Everything else here
 * (mcDeviceProp_t's field list, the event flag values) follows the CUDA runtime the MACA API mirrors
 * and is marked where it is an assumption. Include as <mcr/mc_runtime_api.h> or, with
 * -I$MACA_PATH/include/mcr, as <mc_runtime.h>. */
#ifndef OPEMU_MC_RUNTIME_API_H
#define OPEMU_MC_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: values 0..999 mirror cudaError_t. Sticky per thread: every failing call records its
 * code, mcGetLastError returns and clears it, mcPeekAtLastError returns it. */
typedef enum mcError {
    mcSuccess                      = 0,
    mcErrorInvalidValue            = 1,
    mcErrorMemoryAllocation        = 2,
    mcErrorInitializationError     = 3,
    mcErrorDeinitialized           = 4,
    mcErrorProfilerDisabled        = 5,
    mcErrorInvalidConfiguration    = 9,
    mcErrorInvalidPitchValue       = 12,
    mcErrorInvalidSymbol           = 13,
    mcErrorInvalidHostPointer      = 16,
    mcErrorInvalidDevicePointer    = 17,
    mcErrorInvalidMemcpyDirection  = 21,
    mcErrorNotYetImplemented       = 31,
    mcErrorInvalidDeviceFunction   = 98,
    mcErrorNoDevice                = 100,
    mcErrorInvalidDevice           = 101,
    mcErrorInvalidResourceHandle   = 400,
    mcErrorNotReady                = 600,
    mcErrorIllegalAddress          = 700,
    mcErrorLaunchOutOfResources    = 701,
    mcErrorLaunchFailure           = 719,
    mcErrorNotSupported            = 801,
    mcErrorUnknown                 = 999
} mcError_t;

/* Copy directions (H2H=0, H2D=1, D2H=2, D2D=3 confirmed by two bindings; Default=4 as CUDA's). */
typedef enum mcMemcpyKind {
    mcMemcpyHostToHost     = 0,
    mcMemcpyHostToDevice   = 1,
    mcMemcpyDeviceToHost   = 2,
    mcMemcpyDeviceToDevice = 3,
    mcMemcpyDefault        = 4
} mcMemcpyKind;
typedef mcMemcpyKind mcMemcpyKind_t;

typedef struct MCstream_st *mcStream_t;
typedef struct MCevent_st *mcEvent_t;

/* Stream flags (mcStreamNonBlocking 0x01 is public; the default is 0). */
#define mcStreamDefault     0x00
#define mcStreamNonBlocking 0x01

/* Event flags: the CUDA runtime's values (assumption: not published for MACA). */
#define mcEventDefault       0x00
#define mcEventBlockingSync  0x01
#define mcEventDisableTiming 0x02
#define mcEventInterprocess  0x04

/* Device properties: the leading fields of CUDA's cudaDeviceProp that MACA code reads, in CUDA's order
 * (assumption: MetaX's struct is not published). */
typedef struct mcDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int reserved[64];
} mcDeviceProp_t;

/* ---- errors ---- */
mcError_t mcGetLastError(void);
mcError_t mcPeekAtLastError(void);
const char *mcGetErrorString(mcError_t error);
const char *mcGetErrorName(mcError_t error);

/* ---- devices ---- */
mcError_t mcGetDeviceCount(int *count);
mcError_t mcGetDevice(int *device);
mcError_t mcSetDevice(int device);
mcError_t mcDeviceSynchronize(void);
mcError_t mcDeviceReset(void);
mcError_t mcGetDeviceProperties(mcDeviceProp_t *prop, int device);

/* ---- memory ---- */
mcError_t mcMalloc(void **devPtr, size_t size);
mcError_t mcFree(void *devPtr);
mcError_t mcMallocHost(void **ptr, size_t size);
mcError_t mcFreeHost(void *ptr);
mcError_t mcMemcpy(void *dst, const void *src, size_t count, mcMemcpyKind kind);
mcError_t mcMemcpyAsync(void *dst, const void *src, size_t count, mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemset(void *devPtr, int value, size_t count);
mcError_t mcMemsetAsync(void *devPtr, int value, size_t count, mcStream_t stream);
mcError_t mcMemGetInfo(size_t *free, size_t *total);

/* ---- streams ---- */
mcError_t mcStreamCreate(mcStream_t *pStream);
mcError_t mcStreamCreateWithFlags(mcStream_t *pStream, unsigned int flags);
mcError_t mcStreamDestroy(mcStream_t stream);
mcError_t mcStreamSynchronize(mcStream_t stream);
mcError_t mcStreamQuery(mcStream_t stream);
mcError_t mcStreamWaitEvent(mcStream_t stream, mcEvent_t event, unsigned int flags);

/* ---- events ---- */
mcError_t mcEventCreate(mcEvent_t *event);
mcError_t mcEventCreateWithFlags(mcEvent_t *event, unsigned int flags);
mcError_t mcEventRecord(mcEvent_t event, mcStream_t stream);
mcError_t mcEventSynchronize(mcEvent_t event);
mcError_t mcEventQuery(mcEvent_t event);
mcError_t mcEventElapsedTime(float *ms, mcEvent_t start, mcEvent_t end);
mcError_t mcEventDestroy(mcEvent_t event);

#ifdef __cplusplus
}
#endif
#endif
