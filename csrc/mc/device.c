/* MACA devices: properties and attributes, PCI identities, peer access, versions, synchronisation
 * and reset.
 *
 * The emulated devices are MetaX C500s (xcore1000: 64-lane waves; mcTriton maps its major 10 to
 * capability 8.0) whose memory is opemu's configured device memory. Textures and surfaces are not
 * emulated; their limits are CUDA-class figures so programs that size by them get sane numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mc_internal.h"

static void describe(mcDeviceProp_t *p, int device)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "MetaX C500 (opemu)");
    for (int i = 0; i < 16; i++) /* stable per device: "opemu" then the device id */
        p->uuid.bytes[i] = (char)(i < 5 ? "opemu"[i] : i == 15 ? device : 0);
    p->totalGlobalMem = (size_t)opemu_device_memory_bytes();
    p->sharedMemPerBlock = 64 << 10;
    p->regsPerBlock = 131072;
    p->warpSize = 64;
    p->waveSize = 64;
    p->memPitch = (size_t)1 << 31;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->clockRate = 1600000;
    p->totalConstMem = 64 << 10;
    p->major = 10;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->deviceOverlap = 1;
    p->multiProcessorCount = 104;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture1DLinear = 1 << 28;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000, p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768, p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768, p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->pciBusID = device + 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryClockRate = 1800000;
    p->memoryBusWidth = 4096;
    p->l2CacheSize = 8 << 20;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 64 << 10;
    p->regsPerMultiprocessor = 131072;
    p->managedMemory = 1;
    p->hostNativeAtomicSupported = 1; /* device memory is host memory */
    p->singleToDoublePrecisionPerfRatio = 2;
    p->pageableMemoryAccess = 1;
    p->concurrentManagedAccess = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->sharedMemPerBlockOptin = 64 << 10;
    p->directManagedMemAccessFromHost = 1;
    p->maxBlocksPerMultiProcessor = 32;
    p->arch.hasGlobalInt32Atomics = p->arch.hasGlobalFloatAtomicExch = p->arch.hasSharedInt32Atomics = 1;
    p->arch.hasSharedFloatAtomicExch = p->arch.hasFloatAtomicAdd = p->arch.hasGlobalInt64Atomics = 1;
    p->arch.hasSharedInt64Atomics = p->arch.hasDoubles = p->arch.hasWarpVote = p->arch.hasWarpBallot = 1;
    p->arch.hasWarpShuffle = p->arch.hasFunnelShift = p->arch.hasThreadFenceSystem = 1;
    p->arch.hasSyncThreadsExt = p->arch.hasSurfaceFuncs = p->arch.has3dGrid = 1;
}

OPEMU_EXPORT mcError_t mcGetDeviceProperties(struct mcDeviceProp *prop, int device)
{
    if (prop == NULL)
        return mc_fail(mcErrorInvalidValue, "mcGetDeviceProperties: prop is null");
    mcError_t rc = mc_check_device(device, "mcGetDeviceProperties");
    if (rc)
        return rc;
    describe(prop, device);
    return mcSuccess;
}

/* The attribute's value from the device's properties; -1 for an attribute CUDA 11.8 does not define. */
static long long attribute(const mcDeviceProp_t *p, enum mcDeviceAttr attr)
{
    switch (attr) {
    case mcDeviceAttributeMaxThreadsPerBlock: return p->maxThreadsPerBlock;
    case mcDeviceAttributeMaxBlockDimX: return p->maxThreadsDim[0];
    case mcDeviceAttributeMaxBlockDimY: return p->maxThreadsDim[1];
    case mcDeviceAttributeMaxBlockDimZ: return p->maxThreadsDim[2];
    case mcDeviceAttributeMaxGridDimX: return p->maxGridSize[0];
    case mcDeviceAttributeMaxGridDimY: return p->maxGridSize[1];
    case mcDeviceAttributeMaxGridDimZ: return p->maxGridSize[2];
    case mcDeviceAttributeMaxSharedMemoryPerBlock: return (long long)p->sharedMemPerBlock;
    case mcDeviceAttributeTotalConstantMemory: return (long long)p->totalConstMem;
    case mcDeviceAttributeWarpSize: return p->warpSize;
    case mcDeviceAttributeMaxPitch: return (long long)p->memPitch;
    case mcDeviceAttributeMaxRegistersPerBlock: return p->regsPerBlock;
    case mcDeviceAttributeClockRate: return p->clockRate;
    case mcDeviceAttributeTextureAlignment: return (long long)p->textureAlignment;
    case mcDeviceAttributeGpuOverlap: return p->deviceOverlap;
    case mcDeviceAttributeMultiProcessorCount: return p->multiProcessorCount;
    case mcDeviceAttributeKernelExecTimeout: return p->kernelExecTimeoutEnabled;
    case mcDeviceAttributeIntegrated: return p->integrated;
    case mcDeviceAttributeCanMapHostMemory: return p->canMapHostMemory;
    case mcDeviceAttributeComputeMode: return p->computeMode;
    case mcDeviceAttributeMaxTexture1DWidth: return p->maxTexture1D;
    case mcDeviceAttributeMaxTexture2DWidth: return p->maxTexture2D[0];
    case mcDeviceAttributeMaxTexture2DHeight: return p->maxTexture2D[1];
    case mcDeviceAttributeMaxTexture3DWidth: return p->maxTexture3D[0];
    case mcDeviceAttributeMaxTexture3DHeight: return p->maxTexture3D[1];
    case mcDeviceAttributeMaxTexture3DDepth: return p->maxTexture3D[2];
    case mcDeviceAttributeMaxTexture2DLayeredWidth: return p->maxTexture2DLayered[0];
    case mcDeviceAttributeMaxTexture2DLayeredHeight: return p->maxTexture2DLayered[1];
    case mcDeviceAttributeMaxTexture2DLayeredLayers: return p->maxTexture2DLayered[2];
    case mcDeviceAttributeSurfaceAlignment: return (long long)p->surfaceAlignment;
    case mcDeviceAttributeConcurrentKernels: return p->concurrentKernels;
    case mcDeviceAttributeEccEnabled: return p->ECCEnabled;
    case mcDeviceAttributePciBusId: return p->pciBusID;
    case mcDeviceAttributePciDeviceId: return p->pciDeviceID;
    case mcDeviceAttributeTccDriver: return p->tccDriver;
    case mcDeviceAttributeMemoryClockRate: return p->memoryClockRate;
    case mcDeviceAttributeGlobalMemoryBusWidth: return p->memoryBusWidth;
    case mcDeviceAttributeL2CacheSize: return p->l2CacheSize;
    case mcDeviceAttributeMaxThreadsPerMultiProcessor: return p->maxThreadsPerMultiProcessor;
    case mcDeviceAttributeAsyncEngineCount: return p->asyncEngineCount;
    case mcDeviceAttributeUnifiedAddressing: return p->unifiedAddressing;
    case mcDeviceAttributeMaxTexture1DLayeredWidth: return p->maxTexture1DLayered[0];
    case mcDeviceAttributeMaxTexture1DLayeredLayers: return p->maxTexture1DLayered[1];
    case mcDeviceAttributeMaxTexture2DGatherWidth: return p->maxTexture2DGather[0];
    case mcDeviceAttributeMaxTexture2DGatherHeight: return p->maxTexture2DGather[1];
    case mcDeviceAttributeMaxTexture3DWidthAlt: return p->maxTexture3DAlt[0];
    case mcDeviceAttributeMaxTexture3DHeightAlt: return p->maxTexture3DAlt[1];
    case mcDeviceAttributeMaxTexture3DDepthAlt: return p->maxTexture3DAlt[2];
    case mcDeviceAttributePciDomainId: return p->pciDomainID;
    case mcDeviceAttributeTexturePitchAlignment: return (long long)p->texturePitchAlignment;
    case mcDeviceAttributeMaxTextureCubemapWidth: return p->maxTextureCubemap;
    case mcDeviceAttributeMaxTextureCubemapLayeredWidth: return p->maxTextureCubemapLayered[0];
    case mcDeviceAttributeMaxTextureCubemapLayeredLayers: return p->maxTextureCubemapLayered[1];
    case mcDeviceAttributeMaxSurface1DWidth: return p->maxSurface1D;
    case mcDeviceAttributeMaxSurface2DWidth: return p->maxSurface2D[0];
    case mcDeviceAttributeMaxSurface2DHeight: return p->maxSurface2D[1];
    case mcDeviceAttributeMaxSurface3DWidth: return p->maxSurface3D[0];
    case mcDeviceAttributeMaxSurface3DHeight: return p->maxSurface3D[1];
    case mcDeviceAttributeMaxSurface3DDepth: return p->maxSurface3D[2];
    case mcDeviceAttributeMaxSurface1DLayeredWidth: return p->maxSurface1DLayered[0];
    case mcDeviceAttributeMaxSurface1DLayeredLayers: return p->maxSurface1DLayered[1];
    case mcDeviceAttributeMaxSurface2DLayeredWidth: return p->maxSurface2DLayered[0];
    case mcDeviceAttributeMaxSurface2DLayeredHeight: return p->maxSurface2DLayered[1];
    case mcDeviceAttributeMaxSurface2DLayeredLayers: return p->maxSurface2DLayered[2];
    case mcDeviceAttributeMaxSurfaceCubemapWidth: return p->maxSurfaceCubemap;
    case mcDeviceAttributeMaxSurfaceCubemapLayeredWidth: return p->maxSurfaceCubemapLayered[0];
    case mcDeviceAttributeMaxSurfaceCubemapLayeredLayers: return p->maxSurfaceCubemapLayered[1];
    case mcDeviceAttributeMaxTexture1DLinearWidth: return p->maxTexture1DLinear;
    case mcDeviceAttributeMaxTexture2DLinearWidth: return p->maxTexture2DLinear[0];
    case mcDeviceAttributeMaxTexture2DLinearHeight: return p->maxTexture2DLinear[1];
    case mcDeviceAttributeMaxTexture2DLinearPitch: return p->maxTexture2DLinear[2];
    case mcDeviceAttributeMaxTexture2DMipmappedWidth: return p->maxTexture2DMipmap[0];
    case mcDeviceAttributeMaxTexture2DMipmappedHeight: return p->maxTexture2DMipmap[1];
    case mcDeviceAttributeComputeCapabilityMajor: return p->major;
    case mcDeviceAttributeComputeCapabilityMinor: return p->minor;
    case mcDeviceAttributeMaxTexture1DMipmappedWidth: return p->maxTexture1DMipmap;
    case mcDeviceAttributeStreamPrioritiesSupported: return p->streamPrioritiesSupported;
    case mcDeviceAttributeGlobalL1CacheSupported: return p->globalL1CacheSupported;
    case mcDeviceAttributeLocalL1CacheSupported: return p->localL1CacheSupported;
    case mcDeviceAttributeMaxSharedMemoryPerMultiprocessor: return (long long)p->sharedMemPerMultiprocessor;
    case mcDeviceAttributeMaxRegistersPerMultiprocessor: return p->regsPerMultiprocessor;
    case mcDeviceAttributeManagedMemory: return p->managedMemory;
    case mcDeviceAttributeIsMultiGpuBoard: return p->isMultiGpuBoard;
    case mcDeviceAttributeMultiGpuBoardGroupID: return p->multiGpuBoardGroupID;
    case mcDeviceAttributeHostNativeAtomicSupported: return p->hostNativeAtomicSupported;
    case mcDeviceAttributeSingleToDoublePrecisionPerfRatio: return p->singleToDoublePrecisionPerfRatio;
    case mcDeviceAttributePageableMemoryAccess: return p->pageableMemoryAccess;
    case mcDeviceAttributeConcurrentManagedAccess: return p->concurrentManagedAccess;
    case mcDeviceAttributeComputePreemptionSupported: return p->computePreemptionSupported;
    case mcDeviceAttributeCanUseHostPointerForRegisteredMem: return p->canUseHostPointerForRegisteredMem;
    case mcDeviceAttributeReserved92:
    case mcDeviceAttributeReserved93:
    case mcDeviceAttributeReserved94: return 0;
    case mcDeviceAttributeCooperativeLaunch: return p->cooperativeLaunch;
    case mcDeviceAttributeCooperativeMultiDeviceLaunch: return p->cooperativeMultiDeviceLaunch;
    case mcDeviceAttributeMaxSharedMemoryPerBlockOptin: return (long long)p->sharedMemPerBlockOptin;
    case mcDeviceAttributeCanFlushRemoteWrites: return 0;
    case mcDeviceAttributeHostRegisterSupported: return 1;
    case mcDeviceAttributePageableMemoryAccessUsesHostPageTables: return p->pageableMemoryAccessUsesHostPageTables;
    case mcDeviceAttributeDirectManagedMemAccessFromHost: return p->directManagedMemAccessFromHost;
    case mcDeviceAttributeMaxBlocksPerMultiprocessor: return p->maxBlocksPerMultiProcessor;
    case mcDeviceAttributeMaxPersistingL2CacheSize: return p->persistingL2CacheMaxSize;
    case mcDeviceAttributeMaxAccessPolicyWindowSize: return p->accessPolicyMaxWindowSize;
    case mcDeviceAttributeReservedSharedMemoryPerBlock: return (long long)p->reservedSharedMemPerBlock;
    case mcDeviceAttributeSparseCudaArraySupported: return 0;
    case mcDeviceAttributeHostRegisterReadOnlySupported: return 0;
    case mcDeviceAttributeTimelineSemaphoreInteropSupported: return 0;
    case mcDeviceAttributeMemoryPoolsSupported: return 1;
    case mcDeviceAttributeGPUDirectRDMASupported: return 0;
    case mcDeviceAttributeGPUDirectRDMAFlushWritesOptions: return 0;
    case mcDeviceAttributeGPUDirectRDMAWritesOrdering: return 0;
    case mcDeviceAttributeMemoryPoolSupportedHandleTypes: return 0; /* no shareable pool handles */
    case mcDeviceAttributeClusterLaunch: return 0;
    case mcDeviceAttributeDeferredMappingCudaArraySupported: return 0;
    default: return -1;
    }
}

OPEMU_EXPORT mcError_t mcDeviceGetAttribute(int *value, enum mcDeviceAttr attr, int device)
{
    if (value == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetAttribute: value is null");
    mcError_t rc = mc_check_device(device, "mcDeviceGetAttribute");
    if (rc)
        return rc;
    mcDeviceProp_t prop;
    describe(&prop, device);
    long long v = attribute(&prop, attr);
    if (v < 0)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetAttribute: %d is not a device attribute", (int)attr);
    *value = (int)v;
    return mcSuccess;
}

/* ---- PCI identity: domain 0, bus device+1, as the properties say ---- */

OPEMU_EXPORT mcError_t mcDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    mcError_t rc = mc_check_device(device, "mcDeviceGetPCIBusId");
    if (rc)
        return rc;
    char id[32];
    int n = snprintf(id, sizeof id, "0000:%02x:00.0", device + 1);
    if (pciBusId == NULL || len <= n)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetPCIBusId: pciBusId must hold %d characters and the "
                       "terminating null (len %d)", n, len);
    memcpy(pciBusId, id, (size_t)n + 1);
    return mcSuccess;
}

/* Accepts domain:bus:device.function or bus:device.function, hexadecimal, as the vendors' parsers do. */
OPEMU_EXPORT mcError_t mcDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (device == NULL || pciBusId == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetByPCIBusId: device and pciBusId must not be null");
    unsigned domain = 0, bus = 0, slot = 0, function = 0;
    int end = -1;
    if (sscanf(pciBusId, "%x:%x:%x.%x%n", &domain, &bus, &slot, &function, &end) != 4 || pciBusId[end] != 0) {
        domain = 0, end = -1;
        if (sscanf(pciBusId, "%x:%x.%x%n", &bus, &slot, &function, &end) != 3 || pciBusId[end] != 0)
            return mc_fail(mcErrorInvalidValue, "mcDeviceGetByPCIBusId: \"%s\" is not a PCI bus id", pciBusId);
    }
    if (domain != 0 || slot != 0 || function != 0 || bus < 1 || bus > (unsigned)opemu_device_count())
        return mc_fail(mcErrorInvalidDevice, "mcDeviceGetByPCIBusId: no device at %s", pciBusId);
    *device = (int)bus - 1;
    return mcSuccess;
}

/* ---- peer access: every pair of emulated devices can map each other's memory ---- */

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *peer_enabled; /* [device * count + peer]: peer's memory mapped into device */

static unsigned char *peer_flag(int device, int peer)
{
    int n = opemu_device_count();
    if (peer_enabled == NULL)
        peer_enabled = calloc((size_t)n * (size_t)n, 1);
    return &peer_enabled[(size_t)device * (size_t)n + (size_t)peer];
}

void mc_peer_reset(int device)
{
    pthread_mutex_lock(&peer_lock);
    for (int peer = 0; peer < opemu_device_count(); peer++)
        *peer_flag(device, peer) = 0;
    pthread_mutex_unlock(&peer_lock);
}

OPEMU_EXPORT mcError_t mcDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (canAccessPeer == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDeviceCanAccessPeer: canAccessPeer is null");
    mcError_t rc = mc_check_device(device, "mcDeviceCanAccessPeer");
    if (rc == mcSuccess)
        rc = mc_check_device(peerDevice, "mcDeviceCanAccessPeer");
    if (rc)
        return rc;
    *canAccessPeer = device != peerDevice; /* a device is not its own peer */
    return mcSuccess;
}

/* Maps peerDevice's memory into the current device, once. */
OPEMU_EXPORT mcError_t mcDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    mcError_t rc = mc_check_device(peerDevice, "mcDeviceEnablePeerAccess");
    if (rc)
        return rc;
    if (flags != 0)
        return mc_fail(mcErrorInvalidValue, "mcDeviceEnablePeerAccess: flags must be 0, got %#x", flags);
    int device = mc_context()->device;
    if (peerDevice == device)
        return mc_fail(mcErrorInvalidDevice, "mcDeviceEnablePeerAccess: device %d cannot be its own peer", device);
    pthread_mutex_lock(&peer_lock);
    unsigned char *enabled = peer_flag(device, peerDevice);
    int already = *enabled;
    *enabled = 1;
    pthread_mutex_unlock(&peer_lock);
    if (already)
        return mc_fail(mcErrorPeerAccessAlreadyEnabled, "mcDeviceEnablePeerAccess: access from device %d to device "
                       "%d is already enabled", device, peerDevice);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcDeviceDisablePeerAccess(int peerDevice)
{
    mcError_t rc = mc_check_device(peerDevice, "mcDeviceDisablePeerAccess");
    if (rc)
        return rc;
    int device = mc_context()->device;
    pthread_mutex_lock(&peer_lock);
    unsigned char *enabled = peer_flag(device, peerDevice);
    int was = *enabled;
    *enabled = 0;
    pthread_mutex_unlock(&peer_lock);
    if (!was)
        return mc_fail(mcErrorPeerAccessNotEnabled, "mcDeviceDisablePeerAccess: access from device %d to device %d "
                       "was not enabled", device, peerDevice);
    return mcSuccess;
}

/* ---- versions: the runtime is MACA 3.7.1's, and the driver matches it ---- */

OPEMU_EXPORT mcError_t mcRuntimeGetVersion(int *runtimeVersion)
{
    if (runtimeVersion == NULL)
        return mc_fail(mcErrorInvalidValue, "mcRuntimeGetVersion: runtimeVersion is null");
    *runtimeVersion = MACART_VERSION;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDriverGetVersion: driverVersion is null");
    *driverVersion = MACART_VERSION;
    return mcSuccess;
}

/* ---- synchronisation and reset ---- */

OPEMU_EXPORT mcError_t mcDeviceSynchronize(void)
{
    mc_context();
    int device = opemu_mc_current_device();
    int rc = opemu_device_drain(device);
    mc_pools_trim(device);
    return rc ? mc_from_runtime(rc, "mcDeviceSynchronize") : mcSuccess;
}

/* Releases everything the current device holds (memory, pools, streams, peer mappings, its primary
 * context); the next call creates a fresh primary context. */
OPEMU_EXPORT mcError_t mcDeviceReset(void)
{
    int device = opemu_mc_current_device();
    mc_pools_reset(device);
    mc_managed_reset(device);
    mc_peer_reset(device);
    opemu_device_reset(device);
    return mcSuccess;
}

/* ---- the pre-CUDA-4 thread names of device calls ---- */

OPEMU_EXPORT mcError_t mcThreadSynchronize(void) { return mcDeviceSynchronize(); }
OPEMU_EXPORT mcError_t mcThreadExit(void) { return mcDeviceReset(); }
