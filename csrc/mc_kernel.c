/* Device code: kernel launches, function attributes, occupancy, device symbols.
 *
 * opemu runs no device code (a kernel is machine code for the MetaX ISA, which nothing here
 * executes), so each of these answers mcErrorNotSupported with a message that says so, rather than
 * the generic one, and never touches its arguments. */
#include "mc_internal.h"

static mcError_t not_emulated(const char *api)
{
    return mc_fail(mcErrorNotSupported, "%s (mcr/mc_runtime_api.h): device kernels are not emulated by opemu: it "
                   "runs no device code, so kernels, their attributes and device symbols are unavailable", api);
}

OPEMU_EXPORT mcError_t mcLaunchKernelExC(const mcLaunchConfig_t *config, const void *func, void **args)
{
    return not_emulated("mcLaunchKernelExC");
}

OPEMU_EXPORT mcError_t mcLaunchCooperativeKernelMultiDevice(struct mcLaunchParams *launchParamsList,
                                                            unsigned int numDevices, unsigned int flags)
{
    return not_emulated("mcLaunchCooperativeKernelMultiDevice");
}

OPEMU_EXPORT mcError_t mcFuncGetAttributes(struct mcFuncAttributes *attr, const void *func)
{
    return not_emulated("mcFuncGetAttributes");
}

OPEMU_EXPORT mcError_t mcFuncSetAttribute(const void *func, enum mcFuncAttribute attr, int value)
{
    return not_emulated("mcFuncSetAttribute");
}

OPEMU_EXPORT mcError_t mcFuncSetCacheConfig(const void *func, enum mcFuncCache cacheConfig)
{
    return not_emulated("mcFuncSetCacheConfig");
}

OPEMU_EXPORT mcError_t mcFuncSetSharedMemConfig(const void *func, enum mcSharedMemConfig config)
{
    return not_emulated("mcFuncSetSharedMemConfig");
}

OPEMU_EXPORT mcError_t mcGetFuncBySymbol(mcFunction_t *functionPtr, const void *symbolPtr)
{
    return not_emulated("mcGetFuncBySymbol");
}

OPEMU_EXPORT mcError_t mcOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                               int numBlocks, int blockSize)
{
    return not_emulated("mcOccupancyAvailableDynamicSMemPerBlock");
}

OPEMU_EXPORT mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                                   size_t dynamicSMemSize)
{
    return not_emulated("mcOccupancyMaxActiveBlocksPerMultiprocessor");
}

OPEMU_EXPORT mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                            int blockSize, size_t dynamicSMemSize,
                                                                            unsigned int flags)
{
    return not_emulated("mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
}

OPEMU_EXPORT mcError_t mcOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                    const mcLaunchConfig_t *launchConfig)
{
    return not_emulated("mcOccupancyMaxActiveClusters");
}

OPEMU_EXPORT mcError_t mcOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                          const mcLaunchConfig_t *launchConfig)
{
    return not_emulated("mcOccupancyMaxPotentialClusterSize");
}

OPEMU_EXPORT mcError_t mcGetSymbolAddress(void **devPtr, const void *symbol)
{
    return not_emulated("mcGetSymbolAddress");
}

OPEMU_EXPORT mcError_t mcGetSymbolSize(size_t *size, const void *symbol)
{
    return not_emulated("mcGetSymbolSize");
}

OPEMU_EXPORT mcError_t mcMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                        enum mcMemcpyKind kind)
{
    return not_emulated("mcMemcpyToSymbol");
}

OPEMU_EXPORT mcError_t mcMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                             enum mcMemcpyKind kind, mcStream_t stream)
{
    return not_emulated("mcMemcpyToSymbolAsync");
}

OPEMU_EXPORT mcError_t mcMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                          enum mcMemcpyKind kind)
{
    return not_emulated("mcMemcpyFromSymbol");
}

OPEMU_EXPORT mcError_t mcMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                               enum mcMemcpyKind kind, mcStream_t stream)
{
    return not_emulated("mcMemcpyFromSymbolAsync");
}
