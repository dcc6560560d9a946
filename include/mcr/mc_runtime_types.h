/* MACA runtime types (opemu): <mcr/mc_runtime_types.h>, included by mc_runtime_api.h.
 *
 * MetaX ships this header (public code cites /opt/maca/include/mcr/mc_runtime_types.h for mcError_t's
 * mcErrorDeinitialized = 4 and for mcDeviceProp_t) but does not publish it. The MACA runtime mirrors
 * the CUDA runtime name for name (cudaX -> mcX, CUDA_X -> MC_X, CUx_st -> MCx_st), so every enum,
 * value, struct and flag below is CUDA 11.8's, renamed, unless a comment gives MACA evidence that
 * differs. Only mcDeviceProp_t and mcDeviceAttribute_t are MACA's own shapes (see there). */
#ifndef OPEMU_MC_RUNTIME_TYPES_H
#define OPEMU_MC_RUNTIME_TYPES_H

#include <stddef.h>

/* Grid and block sizes. MACA's dim3 is three unsigned ints (common/__clang_maca_base_type.h); in C++ it
 * converts from one to three extents, missing ones 1, as CUDA's does. AscendCL's acl/acl_rt.h declares
 * the same struct dim3 (three uint32_t, same constructor): a program may include both runtimes, in
 * either order, so the first one included declares it. */
#ifndef OPEMU_DIM3_DECLARED_ /* whichever runtime header comes first declares it */
#define OPEMU_DIM3_DECLARED_
struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
#endif
};
typedef struct dim3 dim3;
#endif

typedef enum mcError {
    mcSuccess = 0,
    mcErrorInvalidValue = 1,
    mcErrorMemoryAllocation = 2,
    mcErrorInitializationError = 3,
    mcErrorDeinitialized = 4,
    mcErrorProfilerDisabled = 5,
    mcErrorProfilerNotInitialized = 6,
    mcErrorProfilerAlreadyStarted = 7,
    mcErrorProfilerAlreadyStopped = 8,
    mcErrorInvalidConfiguration = 9,
    mcErrorInvalidPitchValue = 12,
    mcErrorInvalidSymbol = 13,
    mcErrorInvalidHostPointer = 16,
    mcErrorInvalidDevicePointer = 17,
    mcErrorInvalidTexture = 18,
    mcErrorInvalidTextureBinding = 19,
    mcErrorInvalidChannelDescriptor = 20,
    mcErrorInvalidMemcpyDirection = 21,
    mcErrorAddressOfConstant = 22,
    mcErrorTextureFetchFailed = 23,
    mcErrorTextureNotBound = 24,
    mcErrorSynchronizationError = 25,
    mcErrorInvalidFilterSetting = 26,
    mcErrorInvalidNormSetting = 27,
    mcErrorMixedDeviceExecution = 28,
    mcErrorNotYetImplemented = 31,
    mcErrorMemoryValueTooLarge = 32,
    mcErrorStubLibrary = 34,
    mcErrorInsufficientDriver = 35,
    mcErrorCallRequiresNewerDriver = 36,
    mcErrorInvalidSurface = 37,
    mcErrorDuplicateVariableName = 43,
    mcErrorDuplicateTextureName = 44,
    mcErrorDuplicateSurfaceName = 45,
    mcErrorDevicesUnavailable = 46,
    mcErrorIncompatibleDriverContext = 49,
    mcErrorMissingConfiguration = 52,
    mcErrorPriorLaunchFailure = 53,
    mcErrorLaunchMaxDepthExceeded = 65,
    mcErrorLaunchFileScopedTex = 66,
    mcErrorLaunchFileScopedSurf = 67,
    mcErrorSyncDepthExceeded = 68,
    mcErrorLaunchPendingCountExceeded = 69,
    mcErrorInvalidDeviceFunction = 98,
    mcErrorNoDevice = 100,
    mcErrorInvalidDevice = 101,
    mcErrorDeviceNotLicensed = 102,
    mcErrorSoftwareValidityNotEstablished = 103,
    mcErrorStartupFailure = 127,
    mcErrorInvalidKernelImage = 200,
    mcErrorDeviceUninitialized = 201,
    mcErrorMapBufferObjectFailed = 205,
    mcErrorUnmapBufferObjectFailed = 206,
    mcErrorArrayIsMapped = 207,
    mcErrorAlreadyMapped = 208,
    mcErrorNoKernelImageForDevice = 209,
    mcErrorAlreadyAcquired = 210,
    mcErrorNotMapped = 211,
    mcErrorNotMappedAsArray = 212,
    mcErrorNotMappedAsPointer = 213,
    mcErrorECCUncorrectable = 214,
    mcErrorUnsupportedLimit = 215,
    mcErrorDeviceAlreadyInUse = 216,
    mcErrorPeerAccessUnsupported = 217,
    mcErrorInvalidPtx = 218,
    mcErrorInvalidGraphicsContext = 219,
    mcErrorNvlinkUncorrectable = 220,
    mcErrorJitCompilerNotFound = 221,
    mcErrorUnsupportedPtxVersion = 222,
    mcErrorJitCompilationDisabled = 223,
    mcErrorUnsupportedExecAffinity = 224,
    mcErrorInvalidSource = 300,
    mcErrorFileNotFound = 301,
    mcErrorSharedObjectSymbolNotFound = 302,
    mcErrorSharedObjectInitFailed = 303,
    mcErrorOperatingSystem = 304,
    mcErrorInvalidResourceHandle = 400,
    mcErrorIllegalState = 401,
    mcErrorSymbolNotFound = 500,
    mcErrorNotReady = 600,
    mcErrorIllegalAddress = 700,
    mcErrorLaunchOutOfResources = 701,
    mcErrorLaunchTimeout = 702,
    mcErrorLaunchIncompatibleTexturing = 703,
    mcErrorPeerAccessAlreadyEnabled = 704,
    mcErrorPeerAccessNotEnabled = 705,
    mcErrorSetOnActiveProcess = 708,
    mcErrorContextIsDestroyed = 709,
    mcErrorAssert = 710,
    mcErrorTooManyPeers = 711,
    mcErrorHostMemoryAlreadyRegistered = 712,
    mcErrorHostMemoryNotRegistered = 713,
    mcErrorHardwareStackError = 714,
    mcErrorIllegalInstruction = 715,
    mcErrorMisalignedAddress = 716,
    mcErrorInvalidAddressSpace = 717,
    mcErrorInvalidPc = 718,
    mcErrorLaunchFailure = 719,
    mcErrorCooperativeLaunchTooLarge = 720,
    mcErrorNotPermitted = 800,
    mcErrorNotSupported = 801,
    mcErrorSystemNotReady = 802,
    mcErrorSystemDriverMismatch = 803,
    mcErrorCompatNotSupportedOnDevice = 804,
    mcErrorMpsConnectionFailed = 805,
    mcErrorMpsRpcFailure = 806,
    mcErrorMpsServerNotReady = 807,
    mcErrorMpsMaxClientsReached = 808,
    mcErrorMpsMaxConnectionsReached = 809,
    mcErrorMpsClientTerminated = 810,
    mcErrorStreamCaptureUnsupported = 900,
    mcErrorStreamCaptureInvalidated = 901,
    mcErrorStreamCaptureMerge = 902,
    mcErrorStreamCaptureUnmatched = 903,
    mcErrorStreamCaptureUnjoined = 904,
    mcErrorStreamCaptureIsolation = 905,
    mcErrorStreamCaptureImplicit = 906,
    mcErrorCapturedEvent = 907,
    mcErrorStreamCaptureWrongThread = 908,
    mcErrorTimeout = 909,
    mcErrorGraphExecUpdateFailure = 910,
    mcErrorExternalDevice = 911,
    mcErrorInvalidClusterSize = 912,
    mcErrorUnknown = 999,
    mcErrorApiFailureBase = 10000
} mcError_t;

enum mcChannelFormatKind {
    mcChannelFormatKindSigned = 0,
    mcChannelFormatKindUnsigned = 1,
    mcChannelFormatKindFloat = 2,
    mcChannelFormatKindNone = 3,
    mcChannelFormatKindNV12 = 4,
    mcChannelFormatKindUnsignedNormalized8X1 = 5,
    mcChannelFormatKindUnsignedNormalized8X2 = 6,
    mcChannelFormatKindUnsignedNormalized8X4 = 7,
    mcChannelFormatKindUnsignedNormalized16X1 = 8,
    mcChannelFormatKindUnsignedNormalized16X2 = 9,
    mcChannelFormatKindUnsignedNormalized16X4 = 10,
    mcChannelFormatKindSignedNormalized8X1 = 11,
    mcChannelFormatKindSignedNormalized8X2 = 12,
    mcChannelFormatKindSignedNormalized8X4 = 13,
    mcChannelFormatKindSignedNormalized16X1 = 14,
    mcChannelFormatKindSignedNormalized16X2 = 15,
    mcChannelFormatKindSignedNormalized16X4 = 16,
    mcChannelFormatKindUnsignedBlockCompressed1 = 17,
    mcChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
    mcChannelFormatKindUnsignedBlockCompressed2 = 19,
    mcChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
    mcChannelFormatKindUnsignedBlockCompressed3 = 21,
    mcChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
    mcChannelFormatKindUnsignedBlockCompressed4 = 23,
    mcChannelFormatKindSignedBlockCompressed4 = 24,
    mcChannelFormatKindUnsignedBlockCompressed5 = 25,
    mcChannelFormatKindSignedBlockCompressed5 = 26,
    mcChannelFormatKindUnsignedBlockCompressed6H = 27,
    mcChannelFormatKindSignedBlockCompressed6H = 28,
    mcChannelFormatKindUnsignedBlockCompressed7 = 29,
    mcChannelFormatKindUnsignedBlockCompressed7SRGB = 30
};

struct mcChannelFormatDesc {
    int x;
    int y;
    int z;
    int w;
    enum mcChannelFormatKind f;
};

typedef struct mcArray *mcArray_t;

typedef const struct mcArray *mcArray_const_t;

struct mcArray;

typedef struct mcMipmappedArray *mcMipmappedArray_t;

typedef const struct mcMipmappedArray *mcMipmappedArray_const_t;

struct mcMipmappedArray;

struct mcArraySparseProperties {
    struct {
        unsigned int width;
        unsigned int height;
        unsigned int depth;
    } tileExtent;
    unsigned int miptailFirstLevel;
    unsigned long long miptailSize;
    unsigned int flags;
    unsigned int reserved[4];
};

struct mcArrayMemoryRequirements {
    size_t size;
    size_t alignment;
    unsigned int reserved[4];
};

enum mcMemoryType {
    mcMemoryTypeUnregistered = 0,
    mcMemoryTypeHost = 1,
    mcMemoryTypeDevice = 2,
    mcMemoryTypeManaged = 3
};

enum mcMemcpyKind {
    mcMemcpyHostToHost = 0,
    mcMemcpyHostToDevice = 1,
    mcMemcpyDeviceToHost = 2,
    mcMemcpyDeviceToDevice = 3,
    mcMemcpyDefault = 4
};

struct mcPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};

struct mcExtent {
    size_t width;
    size_t height;
    size_t depth;
};

struct mcPos {
    size_t x;
    size_t y;
    size_t z;
};

struct mcMemcpy3DParms {
    mcArray_t srcArray;
    struct mcPos srcPos;
    struct mcPitchedPtr srcPtr;
    mcArray_t dstArray;
    struct mcPos dstPos;
    struct mcPitchedPtr dstPtr;
    struct mcExtent extent;
    enum mcMemcpyKind kind;
};

struct mcMemcpy3DPeerParms {
    mcArray_t srcArray;
    struct mcPos srcPos;
    struct mcPitchedPtr srcPtr;
    int srcDevice;
    mcArray_t dstArray;
    struct mcPos dstPos;
    struct mcPitchedPtr dstPtr;
    int dstDevice;
    struct mcExtent extent;
};

struct mcMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};

enum mcAccessProperty {
    mcAccessPropertyNormal = 0,
    mcAccessPropertyStreaming = 1,
    mcAccessPropertyPersisting = 2
};

struct mcAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum mcAccessProperty hitProp;
    enum mcAccessProperty missProp;
};

typedef void (*mcHostFn_t)(void *userData);

struct mcHostNodeParams {
    mcHostFn_t fn;
    void *userData;
};

enum mcStreamCaptureStatus {
    mcStreamCaptureStatusNone = 0,
    mcStreamCaptureStatusActive = 1,
    mcStreamCaptureStatusInvalidated = 2
};

enum mcStreamCaptureMode {
    mcStreamCaptureModeGlobal = 0,
    mcStreamCaptureModeThreadLocal = 1,
    mcStreamCaptureModeRelaxed = 2
};

enum mcSynchronizationPolicy {
    mcSyncPolicyAuto = 1,
    mcSyncPolicySpin = 2,
    mcSyncPolicyYield = 3,
    mcSyncPolicyBlockingSync = 4
};

enum mcClusterSchedulingPolicy {
    mcClusterSchedulingPolicyDefault = 0,
    mcClusterSchedulingPolicySpread = 1,
    mcClusterSchedulingPolicyLoadBalancing = 2
};

enum mcStreamUpdateCaptureDependenciesFlags {
    mcStreamAddCaptureDependencies = 0x0,
    mcStreamSetCaptureDependencies = 0x1
};

enum mcUserObjectFlags {
    mcUserObjectNoDestructorSync = 0x1
};

enum mcUserObjectRetainFlags {
    mcGraphUserObjectMove = 0x1
};

struct mcGraphicsResource;

enum mcGraphicsRegisterFlags {
    mcGraphicsRegisterFlagsNone = 0,
    mcGraphicsRegisterFlagsReadOnly = 1,
    mcGraphicsRegisterFlagsWriteDiscard = 2,
    mcGraphicsRegisterFlagsSurfaceLoadStore = 4,
    mcGraphicsRegisterFlagsTextureGather = 8
};

enum mcGraphicsMapFlags {
    mcGraphicsMapFlagsNone = 0,
    mcGraphicsMapFlagsReadOnly = 1,
    mcGraphicsMapFlagsWriteDiscard = 2
};

enum mcGraphicsCubeFace {
    mcGraphicsCubeFacePositiveX = 0x00,
    mcGraphicsCubeFaceNegativeX = 0x01,
    mcGraphicsCubeFacePositiveY = 0x02,
    mcGraphicsCubeFaceNegativeY = 0x03,
    mcGraphicsCubeFacePositiveZ = 0x04,
    mcGraphicsCubeFaceNegativeZ = 0x05
};

enum mcResourceType {
    mcResourceTypeArray = 0x00,
    mcResourceTypeMipmappedArray = 0x01,
    mcResourceTypeLinear = 0x02,
    mcResourceTypePitch2D = 0x03
};

enum mcResourceViewFormat {
    mcResViewFormatNone = 0x00,
    mcResViewFormatUnsignedChar1 = 0x01,
    mcResViewFormatUnsignedChar2 = 0x02,
    mcResViewFormatUnsignedChar4 = 0x03,
    mcResViewFormatSignedChar1 = 0x04,
    mcResViewFormatSignedChar2 = 0x05,
    mcResViewFormatSignedChar4 = 0x06,
    mcResViewFormatUnsignedShort1 = 0x07,
    mcResViewFormatUnsignedShort2 = 0x08,
    mcResViewFormatUnsignedShort4 = 0x09,
    mcResViewFormatSignedShort1 = 0x0a,
    mcResViewFormatSignedShort2 = 0x0b,
    mcResViewFormatSignedShort4 = 0x0c,
    mcResViewFormatUnsignedInt1 = 0x0d,
    mcResViewFormatUnsignedInt2 = 0x0e,
    mcResViewFormatUnsignedInt4 = 0x0f,
    mcResViewFormatSignedInt1 = 0x10,
    mcResViewFormatSignedInt2 = 0x11,
    mcResViewFormatSignedInt4 = 0x12,
    mcResViewFormatHalf1 = 0x13,
    mcResViewFormatHalf2 = 0x14,
    mcResViewFormatHalf4 = 0x15,
    mcResViewFormatFloat1 = 0x16,
    mcResViewFormatFloat2 = 0x17,
    mcResViewFormatFloat4 = 0x18,
    mcResViewFormatUnsignedBlockCompressed1 = 0x19,
    mcResViewFormatUnsignedBlockCompressed2 = 0x1a,
    mcResViewFormatUnsignedBlockCompressed3 = 0x1b,
    mcResViewFormatUnsignedBlockCompressed4 = 0x1c,
    mcResViewFormatSignedBlockCompressed4 = 0x1d,
    mcResViewFormatUnsignedBlockCompressed5 = 0x1e,
    mcResViewFormatSignedBlockCompressed5 = 0x1f,
    mcResViewFormatUnsignedBlockCompressed6H = 0x20,
    mcResViewFormatSignedBlockCompressed6H = 0x21,
    mcResViewFormatUnsignedBlockCompressed7 = 0x22
};

struct mcResourceDesc {
    enum mcResourceType resType;
    union {
        struct {
            mcArray_t array;
        } array;
        struct {
            mcMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct mcChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct mcChannelFormatDesc desc;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
    } res;
};

struct mcResourceViewDesc {
    enum mcResourceViewFormat format;
    size_t width;
    size_t height;
    size_t depth;
    unsigned int firstMipmapLevel;
    unsigned int lastMipmapLevel;
    unsigned int firstLayer;
    unsigned int lastLayer;
};

struct mcPointerAttributes {
    enum mcMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};

struct mcFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};

enum mcFuncAttribute {
    mcFuncAttributeMaxDynamicSharedMemorySize = 8,
    mcFuncAttributePreferredSharedMemoryCarveout = 9,
    mcFuncAttributeClusterDimMustBeSet = 10,
    mcFuncAttributeRequiredClusterWidth = 11,
    mcFuncAttributeRequiredClusterHeight = 12,
    mcFuncAttributeRequiredClusterDepth = 13,
    mcFuncAttributeNonPortableClusterSizeAllowed = 14,
    mcFuncAttributeClusterSchedulingPolicyPreference = 15,
    mcFuncAttributeMax
};

enum mcFuncCache {
    mcFuncCachePreferNone = 0,
    mcFuncCachePreferShared = 1,
    mcFuncCachePreferL1 = 2,
    mcFuncCachePreferEqual = 3
};

enum mcSharedMemConfig {
    mcSharedMemBankSizeDefault = 0,
    mcSharedMemBankSizeFourByte = 1,
    mcSharedMemBankSizeEightByte = 2
};

enum mcSharedCarveout {
    mcSharedmemCarveoutDefault = -1,
    mcSharedmemCarveoutMaxShared = 100,
    mcSharedmemCarveoutMaxL1 = 0
};

enum mcComputeMode {
    mcComputeModeDefault = 0,
    mcComputeModeExclusive = 1,
    mcComputeModeProhibited = 2,
    mcComputeModeExclusiveProcess = 3
};

enum mcLimit {
    mcLimitStackSize = 0x00,
    mcLimitPrintfFifoSize = 0x01,
    mcLimitMallocHeapSize = 0x02,
    mcLimitDevRuntimeSyncDepth = 0x03,
    mcLimitDevRuntimePendingLaunchCount = 0x04,
    mcLimitMaxL2FetchGranularity = 0x05,
    mcLimitPersistingL2CacheSize = 0x06
};

enum mcMemoryAdvise {
    mcMemAdviseSetReadMostly = 1,
    mcMemAdviseUnsetReadMostly = 2,
    mcMemAdviseSetPreferredLocation = 3,
    mcMemAdviseUnsetPreferredLocation = 4,
    mcMemAdviseSetAccessedBy = 5,
    mcMemAdviseUnsetAccessedBy = 6
};

enum mcMemRangeAttribute {
    mcMemRangeAttributeReadMostly = 1,
    mcMemRangeAttributePreferredLocation = 2,
    mcMemRangeAttributeAccessedBy = 3,
    mcMemRangeAttributeLastPrefetchLocation = 4
};

enum mcOutputMode {
    mcKeyValuePair = 0x00,
    mcCSV = 0x01
};

enum mcFlushGPUDirectRDMAWritesOptions {
    mcFlushGPUDirectRDMAWritesOptionHost = 1 << 0,
    mcFlushGPUDirectRDMAWritesOptionMemOps = 1 << 1
};

enum mcGPUDirectRDMAWritesOrdering {
    mcGPUDirectRDMAWritesOrderingNone = 0,
    mcGPUDirectRDMAWritesOrderingOwner = 100,
    mcGPUDirectRDMAWritesOrderingAllDevices = 200
};

enum mcFlushGPUDirectRDMAWritesScope {
    mcFlushGPUDirectRDMAWritesToOwner = 100,
    mcFlushGPUDirectRDMAWritesToAllDevices = 200
};

enum mcFlushGPUDirectRDMAWritesTarget {
    mcFlushGPUDirectRDMAWritesTargetCurrentDevice
};

enum mcMemPoolAttr {
    mcMemPoolReuseFollowEventDependencies = 0x1,
    mcMemPoolReuseAllowOpportunistic = 0x2,
    mcMemPoolReuseAllowInternalDependencies = 0x3,
    mcMemPoolAttrReleaseThreshold = 0x4,
    mcMemPoolAttrReservedMemCurrent = 0x5,
    mcMemPoolAttrReservedMemHigh = 0x6,
    mcMemPoolAttrUsedMemCurrent = 0x7,
    mcMemPoolAttrUsedMemHigh = 0x8
};

enum mcMemLocationType {
    mcMemLocationTypeInvalid = 0,
    mcMemLocationTypeDevice = 1
};

struct mcMemLocation {
    enum mcMemLocationType type;
    int id;
};

enum mcMemAccessFlags {
    mcMemAccessFlagsProtNone = 0,
    mcMemAccessFlagsProtRead = 1,
    mcMemAccessFlagsProtReadWrite = 3
};

struct mcMemAccessDesc {
    struct mcMemLocation location;
    enum mcMemAccessFlags flags;
};

enum mcMemAllocationType {
    mcMemAllocationTypeInvalid = 0x0,
    mcMemAllocationTypePinned = 0x1,
    mcMemAllocationTypeMax = 0x7FFFFFFF
};

enum mcMemAllocationHandleType {
    mcMemHandleTypeNone = 0x0,
    mcMemHandleTypePosixFileDescriptor = 0x1,
    mcMemHandleTypeWin32 = 0x2,
    mcMemHandleTypeWin32Kmt = 0x4
};

struct mcMemPoolProps {
    enum mcMemAllocationType allocType;
    enum mcMemAllocationHandleType handleTypes;
    struct mcMemLocation location;
    void *win32SecurityAttributes;
    unsigned char reserved[64];
};

struct mcMemPoolPtrExportData {
    unsigned char reserved[64];
};

struct mcMemAllocNodeParams {
    struct mcMemPoolProps poolProps;
    const struct mcMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
};

enum mcGraphMemAttributeType {
    mcGraphMemAttrUsedMemCurrent = 0x0,
    mcGraphMemAttrUsedMemHigh = 0x1,
    mcGraphMemAttrReservedMemCurrent = 0x2,
    mcGraphMemAttrReservedMemHigh = 0x3
};

enum mcDeviceP2PAttr {
    mcDevP2PAttrPerformanceRank = 1,
    mcDevP2PAttrAccessSupported = 2,
    mcDevP2PAttrNativeAtomicSupported = 3,
    mcDevP2PAttrCudaArrayAccessSupported = 4
};

struct MCuuid_st {
    char bytes[16];
};

typedef struct MCuuid_st mcUUID_t;

typedef struct mcIpcEventHandle_st {
    char reserved[64];
} mcIpcEventHandle_t;

typedef struct mcIpcMemHandle_st {
    char reserved[64];
} mcIpcMemHandle_t;

enum mcExternalMemoryHandleType {
    mcExternalMemoryHandleTypeOpaqueFd = 1,
    mcExternalMemoryHandleTypeOpaqueWin32 = 2,
    mcExternalMemoryHandleTypeOpaqueWin32Kmt = 3,
    mcExternalMemoryHandleTypeD3D12Heap = 4,
    mcExternalMemoryHandleTypeD3D12Resource = 5,
    mcExternalMemoryHandleTypeD3D11Resource = 6,
    mcExternalMemoryHandleTypeD3D11ResourceKmt = 7,
    mcExternalMemoryHandleTypeNvSciBuf = 8
};

struct mcExternalMemoryHandleDesc {
    enum mcExternalMemoryHandleType type;
    union {
        int fd;
        struct {
            void *handle;
            const void *name;
        } win32;
        const void *nvSciBufObject;
    } handle;
    unsigned long long size;
    unsigned int flags;
};

struct mcExternalMemoryBufferDesc {
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
};

struct mcExternalMemoryMipmappedArrayDesc {
    unsigned long long offset;
    struct mcChannelFormatDesc formatDesc;
    struct mcExtent extent;
    unsigned int flags;
    unsigned int numLevels;
};

enum mcExternalSemaphoreHandleType {
    mcExternalSemaphoreHandleTypeOpaqueFd = 1,
    mcExternalSemaphoreHandleTypeOpaqueWin32 = 2,
    mcExternalSemaphoreHandleTypeOpaqueWin32Kmt = 3,
    mcExternalSemaphoreHandleTypeD3D12Fence = 4,
    mcExternalSemaphoreHandleTypeD3D11Fence = 5,
    mcExternalSemaphoreHandleTypeNvSciSync = 6,
    mcExternalSemaphoreHandleTypeKeyedMutex = 7,
    mcExternalSemaphoreHandleTypeKeyedMutexKmt = 8,
    mcExternalSemaphoreHandleTypeTimelineSemaphoreFd = 9,
    mcExternalSemaphoreHandleTypeTimelineSemaphoreWin32 = 10
};

struct mcExternalSemaphoreHandleDesc {
    enum mcExternalSemaphoreHandleType type;
    union {
        int fd;
        struct {
            void *handle;
            const void *name;
        } win32;
        const void *nvSciSyncObj;
    } handle;
    unsigned int flags;
};

struct mcExternalSemaphoreSignalParams_v1 {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
    } params;
    unsigned int flags;
};

struct mcExternalSemaphoreWaitParams_v1 {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
    } params;
    unsigned int flags;
};

struct mcExternalSemaphoreSignalParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

struct mcExternalSemaphoreWaitParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

typedef struct MCstream_st *mcStream_t;

typedef struct MCevent_st *mcEvent_t;

typedef struct mcGraphicsResource *mcGraphicsResource_t;

typedef enum mcOutputMode mcOutputMode_t;

typedef struct MCexternalMemory_st *mcExternalMemory_t;

typedef struct MCexternalSemaphore_st *mcExternalSemaphore_t;

typedef struct MCgraph_st *mcGraph_t;

typedef struct MCgraphNode_st *mcGraphNode_t;

typedef struct MCuserObject_st *mcUserObject_t;

typedef struct MCfunc_st *mcFunction_t;

typedef struct MCmemPoolHandle_st *mcMemPool_t;

enum mcCGScope {
    mcCGScopeInvalid = 0,
    mcCGScopeGrid = 1,
    mcCGScopeMultiGrid = 2
};

struct mcLaunchParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    void **args;
    size_t sharedMem;
    mcStream_t stream;
};

struct mcKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};

struct mcExternalSemaphoreSignalNodeParams {
    mcExternalSemaphore_t *extSemArray;
    const struct mcExternalSemaphoreSignalParams *paramsArray;
    unsigned int numExtSems;
};

struct mcExternalSemaphoreWaitNodeParams {
    mcExternalSemaphore_t *extSemArray;
    const struct mcExternalSemaphoreWaitParams *paramsArray;
    unsigned int numExtSems;
};

enum mcGraphNodeType {
    mcGraphNodeTypeKernel = 0x00,
    mcGraphNodeTypeMemcpy = 0x01,
    mcGraphNodeTypeMemset = 0x02,
    mcGraphNodeTypeHost = 0x03,
    mcGraphNodeTypeGraph = 0x04,
    mcGraphNodeTypeEmpty = 0x05,
    mcGraphNodeTypeWaitEvent = 0x06,
    mcGraphNodeTypeEventRecord = 0x07,
    mcGraphNodeTypeExtSemaphoreSignal = 0x08,
    mcGraphNodeTypeExtSemaphoreWait = 0x09,
    mcGraphNodeTypeMemAlloc = 0x0a,
    mcGraphNodeTypeMemFree = 0x0b,
    mcGraphNodeTypeCount
};

typedef struct MCgraphExec_st *mcGraphExec_t;

enum mcGraphExecUpdateResult {
    mcGraphExecUpdateSuccess = 0x0,
    mcGraphExecUpdateError = 0x1,
    mcGraphExecUpdateErrorTopologyChanged = 0x2,
    mcGraphExecUpdateErrorNodeTypeChanged = 0x3,
    mcGraphExecUpdateErrorFunctionChanged = 0x4,
    mcGraphExecUpdateErrorParametersChanged = 0x5,
    mcGraphExecUpdateErrorNotSupported = 0x6,
    mcGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    mcGraphExecUpdateErrorAttributesChanged = 0x8
};

enum mcGetDriverEntryPointFlags {
    mcEnableDefault = 0x0,
    mcEnableLegacyStream = 0x1,
    mcEnablePerThreadDefaultStream = 0x2
};

enum mcGraphDebugDotFlags {
    mcGraphDebugDotFlagsVerbose = 1 << 0,
    mcGraphDebugDotFlagsKernelNodeParams = 1 << 2,
    mcGraphDebugDotFlagsMemcpyNodeParams = 1 << 3,
    mcGraphDebugDotFlagsMemsetNodeParams = 1 << 4,
    mcGraphDebugDotFlagsHostNodeParams = 1 << 5,
    mcGraphDebugDotFlagsEventNodeParams = 1 << 6,
    mcGraphDebugDotFlagsExtSemasSignalNodeParams = 1 << 7,
    mcGraphDebugDotFlagsExtSemasWaitNodeParams = 1 << 8,
    mcGraphDebugDotFlagsKernelNodeAttributes = 1 << 9,
    mcGraphDebugDotFlagsHandles = 1 << 10
};

enum mcGraphInstantiateFlags {
    mcGraphInstantiateFlagAutoFreeOnLaunch = 1,
    mcGraphInstantiateFlagUseNodePriority = 8
};

typedef enum mcLaunchAttributeID {
    mcLaunchAttributeIgnore = 0,
    mcLaunchAttributeAccessPolicyWindow = 1,
    mcLaunchAttributeCooperative = 2,
    mcLaunchAttributeSynchronizationPolicy = 3,
    mcLaunchAttributeClusterDimension = 4,
    mcLaunchAttributeClusterSchedulingPolicyPreference = 5,
    mcLaunchAttributeProgrammaticStreamSerialization = 6,
    mcLaunchAttributeProgrammaticEvent = 7,
    mcLaunchAttributePriority = 8
} mcLaunchAttributeID;

typedef union mcLaunchAttributeValue {
    char pad[64];
    struct mcAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum mcSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    enum mcClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        mcEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
} mcLaunchAttributeValue;

typedef struct mcLaunchAttribute_st {
    mcLaunchAttributeID id;
    char pad[4]; /* 8 - sizeof(mcLaunchAttributeID): val starts at offset 8 */
    mcLaunchAttributeValue val;
} mcLaunchAttribute;

typedef struct mcLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    mcStream_t stream;
    mcLaunchAttribute *attrs;
    unsigned int numAttrs;
} mcLaunchConfig_t;

enum mcSurfaceBoundaryMode {
    mcBoundaryModeZero = 0,
    mcBoundaryModeClamp = 1,
    mcBoundaryModeTrap = 2
};

enum mcSurfaceFormatMode {
    mcFormatModeForced = 0,
    mcFormatModeAuto = 1
};

struct surfaceReference {
    struct mcChannelFormatDesc channelDesc;
};

typedef unsigned long long mcSurfaceObject_t;

enum mcTextureAddressMode {
    mcAddressModeWrap = 0,
    mcAddressModeClamp = 1,
    mcAddressModeMirror = 2,
    mcAddressModeBorder = 3
};

enum mcTextureFilterMode {
    mcFilterModePoint = 0,
    mcFilterModeLinear = 1
};

enum mcTextureReadMode {
    mcReadModeElementType = 0,
    mcReadModeNormalizedFloat = 1
};

struct textureReference {
    int normalized;
    enum mcTextureFilterMode filterMode;
    enum mcTextureAddressMode addressMode[3];
    struct mcChannelFormatDesc channelDesc;
    int sRGB;
    unsigned int maxAnisotropy;
    enum mcTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int __mcReserved[14];
};

struct mcTextureDesc {
    enum mcTextureAddressMode addressMode[3];
    enum mcTextureFilterMode filterMode;
    enum mcTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum mcTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
};

struct mcTextureDesc_v2 {
    enum mcTextureAddressMode addressMode[3];
    enum mcTextureFilterMode filterMode;
    enum mcTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum mcTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

typedef unsigned long long mcTextureObject_t;

/* Spellings MACA code uses besides the CUDA-style enum tags (mcMemcpyKind_t, mcLimit_t and
 * mcDeviceAttribute_t in bindings' extern declarations, mcFuncCache_t and mcUuid_t in Kokkos' MACA
 * backend), plus C typedefs of the tags opemu's own C code names bare. */
typedef enum mcMemcpyKind mcMemcpyKind;
typedef enum mcMemcpyKind mcMemcpyKind_t;
typedef enum mcLimit mcLimit_t;
typedef enum mcFuncCache mcFuncCache_t;
typedef struct MCuuid_st mcUuid_t;

/* Device attributes. MACA names them mcDeviceAttributeX (mcDeviceAttributeMaxThreadsPerBlock,
 * ...WarpSize, ...MultiProcessorCount, ...MaxSharedMemoryPerBlock, ...MaxRegistersPerBlock,
 * ...ClockRate, ...ComputeCapabilityMajor, ...MemoryPoolsSupported, ...ManagedMemory,
 * ...PageableMemoryAccess, ...MaxPersistingL2CacheSize in public MACA code) where CUDA says
 * cudaDevAttrX; the enum type is mcDeviceAttribute_t. The members are CUDA 11.8's list under that
 * naming, with CUDA's values (assumption: MACA's numbering is not public; its error codes do mirror
 * CUDA's). */
typedef enum mcDeviceAttr {
    mcDeviceAttributeMaxThreadsPerBlock = 1,
    mcDeviceAttributeMaxBlockDimX = 2,
    mcDeviceAttributeMaxBlockDimY = 3,
    mcDeviceAttributeMaxBlockDimZ = 4,
    mcDeviceAttributeMaxGridDimX = 5,
    mcDeviceAttributeMaxGridDimY = 6,
    mcDeviceAttributeMaxGridDimZ = 7,
    mcDeviceAttributeMaxSharedMemoryPerBlock = 8,
    mcDeviceAttributeTotalConstantMemory = 9,
    mcDeviceAttributeWarpSize = 10,
    mcDeviceAttributeMaxPitch = 11,
    mcDeviceAttributeMaxRegistersPerBlock = 12,
    mcDeviceAttributeClockRate = 13,
    mcDeviceAttributeTextureAlignment = 14,
    mcDeviceAttributeGpuOverlap = 15,
    mcDeviceAttributeMultiProcessorCount = 16,
    mcDeviceAttributeKernelExecTimeout = 17,
    mcDeviceAttributeIntegrated = 18,
    mcDeviceAttributeCanMapHostMemory = 19,
    mcDeviceAttributeComputeMode = 20,
    mcDeviceAttributeMaxTexture1DWidth = 21,
    mcDeviceAttributeMaxTexture2DWidth = 22,
    mcDeviceAttributeMaxTexture2DHeight = 23,
    mcDeviceAttributeMaxTexture3DWidth = 24,
    mcDeviceAttributeMaxTexture3DHeight = 25,
    mcDeviceAttributeMaxTexture3DDepth = 26,
    mcDeviceAttributeMaxTexture2DLayeredWidth = 27,
    mcDeviceAttributeMaxTexture2DLayeredHeight = 28,
    mcDeviceAttributeMaxTexture2DLayeredLayers = 29,
    mcDeviceAttributeSurfaceAlignment = 30,
    mcDeviceAttributeConcurrentKernels = 31,
    mcDeviceAttributeEccEnabled = 32,
    mcDeviceAttributePciBusId = 33,
    mcDeviceAttributePciDeviceId = 34,
    mcDeviceAttributeTccDriver = 35,
    mcDeviceAttributeMemoryClockRate = 36,
    mcDeviceAttributeGlobalMemoryBusWidth = 37,
    mcDeviceAttributeL2CacheSize = 38,
    mcDeviceAttributeMaxThreadsPerMultiProcessor = 39,
    mcDeviceAttributeAsyncEngineCount = 40,
    mcDeviceAttributeUnifiedAddressing = 41,
    mcDeviceAttributeMaxTexture1DLayeredWidth = 42,
    mcDeviceAttributeMaxTexture1DLayeredLayers = 43,
    mcDeviceAttributeMaxTexture2DGatherWidth = 45,
    mcDeviceAttributeMaxTexture2DGatherHeight = 46,
    mcDeviceAttributeMaxTexture3DWidthAlt = 47,
    mcDeviceAttributeMaxTexture3DHeightAlt = 48,
    mcDeviceAttributeMaxTexture3DDepthAlt = 49,
    mcDeviceAttributePciDomainId = 50,
    mcDeviceAttributeTexturePitchAlignment = 51,
    mcDeviceAttributeMaxTextureCubemapWidth = 52,
    mcDeviceAttributeMaxTextureCubemapLayeredWidth = 53,
    mcDeviceAttributeMaxTextureCubemapLayeredLayers = 54,
    mcDeviceAttributeMaxSurface1DWidth = 55,
    mcDeviceAttributeMaxSurface2DWidth = 56,
    mcDeviceAttributeMaxSurface2DHeight = 57,
    mcDeviceAttributeMaxSurface3DWidth = 58,
    mcDeviceAttributeMaxSurface3DHeight = 59,
    mcDeviceAttributeMaxSurface3DDepth = 60,
    mcDeviceAttributeMaxSurface1DLayeredWidth = 61,
    mcDeviceAttributeMaxSurface1DLayeredLayers = 62,
    mcDeviceAttributeMaxSurface2DLayeredWidth = 63,
    mcDeviceAttributeMaxSurface2DLayeredHeight = 64,
    mcDeviceAttributeMaxSurface2DLayeredLayers = 65,
    mcDeviceAttributeMaxSurfaceCubemapWidth = 66,
    mcDeviceAttributeMaxSurfaceCubemapLayeredWidth = 67,
    mcDeviceAttributeMaxSurfaceCubemapLayeredLayers = 68,
    mcDeviceAttributeMaxTexture1DLinearWidth = 69,
    mcDeviceAttributeMaxTexture2DLinearWidth = 70,
    mcDeviceAttributeMaxTexture2DLinearHeight = 71,
    mcDeviceAttributeMaxTexture2DLinearPitch = 72,
    mcDeviceAttributeMaxTexture2DMipmappedWidth = 73,
    mcDeviceAttributeMaxTexture2DMipmappedHeight = 74,
    mcDeviceAttributeComputeCapabilityMajor = 75,
    mcDeviceAttributeComputeCapabilityMinor = 76,
    mcDeviceAttributeMaxTexture1DMipmappedWidth = 77,
    mcDeviceAttributeStreamPrioritiesSupported = 78,
    mcDeviceAttributeGlobalL1CacheSupported = 79,
    mcDeviceAttributeLocalL1CacheSupported = 80,
    mcDeviceAttributeMaxSharedMemoryPerMultiprocessor = 81,
    mcDeviceAttributeMaxRegistersPerMultiprocessor = 82,
    mcDeviceAttributeManagedMemory = 83,
    mcDeviceAttributeIsMultiGpuBoard = 84,
    mcDeviceAttributeMultiGpuBoardGroupID = 85,
    mcDeviceAttributeHostNativeAtomicSupported = 86,
    mcDeviceAttributeSingleToDoublePrecisionPerfRatio = 87,
    mcDeviceAttributePageableMemoryAccess = 88,
    mcDeviceAttributeConcurrentManagedAccess = 89,
    mcDeviceAttributeComputePreemptionSupported = 90,
    mcDeviceAttributeCanUseHostPointerForRegisteredMem = 91,
    mcDeviceAttributeReserved92 = 92,
    mcDeviceAttributeReserved93 = 93,
    mcDeviceAttributeReserved94 = 94,
    mcDeviceAttributeCooperativeLaunch = 95,
    mcDeviceAttributeCooperativeMultiDeviceLaunch = 96,
    mcDeviceAttributeMaxSharedMemoryPerBlockOptin = 97,
    mcDeviceAttributeCanFlushRemoteWrites = 98,
    mcDeviceAttributeHostRegisterSupported = 99,
    mcDeviceAttributePageableMemoryAccessUsesHostPageTables = 100,
    mcDeviceAttributeDirectManagedMemAccessFromHost = 101,
    mcDeviceAttributeMaxBlocksPerMultiprocessor = 106,
    mcDeviceAttributeMaxPersistingL2CacheSize = 108,
    mcDeviceAttributeMaxAccessPolicyWindowSize = 109,
    mcDeviceAttributeReservedSharedMemoryPerBlock = 111,
    mcDeviceAttributeSparseCudaArraySupported = 112,
    mcDeviceAttributeHostRegisterReadOnlySupported = 113,
    mcDeviceAttributeTimelineSemaphoreInteropSupported = 114,
    mcDeviceAttributeMaxTimelineSemaphoreInteropSupported = 114,
    mcDeviceAttributeMemoryPoolsSupported = 115,
    mcDeviceAttributeGPUDirectRDMASupported = 116,
    mcDeviceAttributeGPUDirectRDMAFlushWritesOptions = 117,
    mcDeviceAttributeGPUDirectRDMAWritesOrdering = 118,
    mcDeviceAttributeMemoryPoolSupportedHandleTypes = 119,
    mcDeviceAttributeClusterLaunch = 120,
    mcDeviceAttributeDeferredMappingCudaArraySupported = 121,
    mcDeviceAttributeMax
} mcDeviceAttribute_t;

/* The device's architecture feature bits. MACA code copies `prop.arch` as a whole
 * (memcpy(.., &devProp.arch, sizeof(mcDeviceArch_t)) in MetaX's mccl topology code); the members are
 * HIP's hipDeviceArch_t flags, which the MACA runtime's HIP-like parts follow (assumption). */
typedef struct {
    unsigned hasGlobalInt32Atomics : 1;
    unsigned hasGlobalFloatAtomicExch : 1;
    unsigned hasSharedInt32Atomics : 1;
    unsigned hasSharedFloatAtomicExch : 1;
    unsigned hasFloatAtomicAdd : 1;
    unsigned hasGlobalInt64Atomics : 1;
    unsigned hasSharedInt64Atomics : 1;
    unsigned hasDoubles : 1;
    unsigned hasWarpVote : 1;
    unsigned hasWarpBallot : 1;
    unsigned hasWarpShuffle : 1;
    unsigned hasFunnelShift : 1;
    unsigned hasThreadFenceSystem : 1;
    unsigned hasSyncThreadsExt : 1;
    unsigned hasSurfaceFuncs : 1;
    unsigned has3dGrid : 1;
    unsigned hasDynamicParallelism : 1;
} mcDeviceArch_t;

/* Device properties (mcGetDeviceProperties). Evidence for MACA's struct, from public MACA code:
 * `name` is the first member, char[256] (an interposer reads the name at offset 0 of the raw
 * struct, citing mc_runtime_types.h); MACA programs read waveSize (64 on C500/C550) and warpSize
 * both, arch (an mcDeviceArch_t), and the CUDA members name, totalGlobalMem, totalConstMem,
 * sharedMemPerBlock, l2CacheSize, managedMemory, ECCEnabled, multiProcessorCount,
 * maxThreadsPerMultiProcessor, maxThreadsPerBlock, maxThreadsDim, maxGridSize, major, minor,
 * clockRate. The order of the CUDA members is CUDA 11.8's; MACA's own members (waveSize, arch)
 * follow them, and a reserved tail keeps room for members a newer runtime adds. The exact offsets of
 * MetaX's struct are not public: a binary built against the real header must not rely on them. */
typedef struct mcDeviceProp {
    char name[256];
    mcUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
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
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture1DLinear;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int waveSize;
    mcDeviceArch_t arch;
    int reserved[64];
} mcDeviceProp_t;

/* Callbacks of mcStreamAddCallback (mcHostFn_t, for mcLaunchHostFunc, is above). */
typedef void (*mcStreamCallback_t)(mcStream_t stream, mcError_t status, void *userData);

/* Flags and special values. */
#define mcHostAllocDefault 0x00
#define mcHostAllocPortable 0x01
#define mcHostAllocMapped 0x02
#define mcHostAllocWriteCombined 0x04
#define mcHostRegisterDefault 0x00
#define mcHostRegisterPortable 0x01
#define mcHostRegisterMapped 0x02
#define mcHostRegisterIoMemory 0x04
#define mcHostRegisterReadOnly 0x08
#define mcPeerAccessDefault 0x00
#define mcStreamDefault 0x00
#define mcStreamNonBlocking 0x01
#define mcStreamLegacy ((mcStream_t)0x1)
#define mcStreamPerThread ((mcStream_t)0x2)
#define mcEventDefault 0x00
#define mcEventBlockingSync 0x01
#define mcEventDisableTiming 0x02
#define mcEventInterprocess 0x04
#define mcEventRecordDefault 0x00
#define mcEventRecordExternal 0x01
#define mcEventWaitDefault 0x00
#define mcEventWaitExternal 0x01
#define mcDeviceScheduleAuto 0x00
#define mcDeviceScheduleSpin 0x01
#define mcDeviceScheduleYield 0x02
#define mcDeviceScheduleBlockingSync 0x04
#define mcDeviceBlockingSync 0x04
#define mcDeviceScheduleMask 0x07
#define mcDeviceMapHost 0x08
#define mcDeviceLmemResizeToMax 0x10
#define mcDeviceMask 0x1f
#define mcArrayDefault 0x00
#define mcArrayLayered 0x01
#define mcArraySurfaceLoadStore 0x02
#define mcArrayCubemap 0x04
#define mcArrayTextureGather 0x08
#define mcArrayColorAttachment 0x20
#define mcArraySparse 0x40
#define mcArrayDeferredMapping 0x80
#define mcIpcMemLazyEnablePeerAccess 0x01
#define mcMemAttachGlobal 0x01
#define mcMemAttachHost 0x02
#define mcMemAttachSingle 0x04
#define mcOccupancyDefault 0x00
#define mcOccupancyDisableCachingOverride 0x01
#define mcCpuDeviceId ((int)-1)
#define mcInvalidDeviceId ((int)-2)
#define mcCooperativeLaunchMultiDeviceNoPreSync 0x01
#define mcCooperativeLaunchMultiDeviceNoPostSync 0x02
#define mcArraySparsePropertiesSingleMipTail 0x1
#define MC_IPC_HANDLE_SIZE 64
#define mcExternalMemoryDedicated 0x1
#define mcExternalSemaphoreSignalSkipNvSciBufMemSync 0x01
#define mcExternalSemaphoreWaitSkipNvSciBufMemSync 0x02
#define mcNvSciSyncAttrSignal 0x1
#define mcNvSciSyncAttrWait 0x2
#define mcStreamAttrID mcLaunchAttributeID
#define mcStreamAttributeAccessPolicyWindow mcLaunchAttributeAccessPolicyWindow
#define mcStreamAttributeSynchronizationPolicy mcLaunchAttributeSynchronizationPolicy
#define mcStreamAttrValue mcLaunchAttributeValue
#define mcKernelNodeAttrID mcLaunchAttributeID
#define mcKernelNodeAttributeAccessPolicyWindow mcLaunchAttributeAccessPolicyWindow
#define mcKernelNodeAttributeCooperative mcLaunchAttributeCooperative
#define mcKernelNodeAttributePriority mcLaunchAttributePriority
#define mcKernelNodeAttributeClusterDimension mcLaunchAttributeClusterDimension
#define mcKernelNodeAttributeClusterSchedulingPolicyPreference mcLaunchAttributeClusterSchedulingPolicyPreference
#define mcKernelNodeAttrValue mcLaunchAttributeValue
#define mcSurfaceType1D 0x01
#define mcSurfaceType2D 0x02
#define mcSurfaceType3D 0x03
#define mcSurfaceTypeCubemap 0x0C
#define mcSurfaceType1DLayered 0xF1
#define mcSurfaceType2DLayered 0xF2
#define mcSurfaceTypeCubemapLayered 0xFC
#define mcTextureType1D 0x01
#define mcTextureType2D 0x02
#define mcTextureType3D 0x03
#define mcTextureTypeCubemap 0x0C
#define mcTextureType1DLayered 0xF1
#define mcTextureType2DLayered 0xF2
#define mcTextureTypeCubemapLayered 0xFC

#endif
