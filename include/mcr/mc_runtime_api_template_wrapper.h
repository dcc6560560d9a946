/* MACA runtime C++ overloads (opemu): <mcr/mc_runtime_api_template_wrapper.h>, included by mc_runtime.h.
 *
 * The typed and defaulted forms C++ programs call: mcMalloc(&floatPtr, n) without a cast,
 * mcEventCreate(&e, flags), mcMallocManaged(&p, n) with its default attach flag, symbol copies taking
 * the symbol itself, kernel launches and function queries taking the kernel. They are the overloads
 * CUDA's cuda_runtime.h offers, under MACA's names (Kokkos' MACA backend includes this header by this
 * name after mc_runtime_api.h); each forwards to the C function of mc_runtime_api.h. C sees nothing. */
#ifndef OPEMU_MC_RUNTIME_API_TEMPLATE_WRAPPER_H
#define OPEMU_MC_RUNTIME_API_TEMPLATE_WRAPPER_H

#ifdef __cplusplus
#include <utility>
#include "mc_runtime_api.h"

/* ---- allocation ---- */

static inline mcError_t mcMallocHost(void **ptr, size_t size, unsigned int flags)
{
    return ::mcHostAlloc(ptr, size, flags);
}

template <class T> static inline mcError_t mcMalloc(T **devPtr, size_t size)
{
    return ::mcMalloc(reinterpret_cast<void **>(devPtr), size);
}

template <class T> static inline mcError_t mcMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return ::mcMallocHost(reinterpret_cast<void **>(ptr), size, flags);
}

template <class T> static inline mcError_t mcHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::mcHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}

template <class T> static inline mcError_t mcHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::mcHostGetDevicePointer(reinterpret_cast<void **>(pDevice), pHost, flags);
}

template <class T>
static inline mcError_t mcMallocManaged(T **devPtr, size_t size, unsigned int flags = mcMemAttachGlobal)
{
    return ::mcMallocManaged(reinterpret_cast<void **>(devPtr), size, flags);
}

template <class T> static inline mcError_t mcMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return ::mcMallocPitch(reinterpret_cast<void **>(devPtr), pitch, width, height);
}

template <class T>
static inline mcError_t mcStreamAttachMemAsync(mcStream_t stream, T *devPtr, size_t length = 0,
                                               unsigned int flags = mcMemAttachSingle)
{
    return ::mcStreamAttachMemAsync(stream, reinterpret_cast<void *>(devPtr), length, flags);
}

/* Stream-ordered allocation: from a named pool, or the stream's device's current pool. */
static inline mcError_t mcMallocAsync(void **ptr, size_t size, mcMemPool_t memPool, mcStream_t stream)
{
    return ::mcMallocFromPoolAsync(ptr, size, memPool, stream);
}

template <class T> static inline mcError_t mcMallocAsync(T **ptr, size_t size, mcMemPool_t memPool, mcStream_t stream)
{
    return ::mcMallocFromPoolAsync(reinterpret_cast<void **>(ptr), size, memPool, stream);
}

template <class T> static inline mcError_t mcMallocAsync(T **ptr, size_t size, mcStream_t stream)
{
    return ::mcMallocAsync(reinterpret_cast<void **>(ptr), size, stream);
}

template <class T>
static inline mcError_t mcMallocFromPoolAsync(T **ptr, size_t size, mcMemPool_t memPool, mcStream_t stream)
{
    return ::mcMallocFromPoolAsync(reinterpret_cast<void **>(ptr), size, memPool, stream);
}

/* ---- events ---- */

static inline mcError_t mcEventCreate(mcEvent_t *event, unsigned int flags)
{
    return ::mcEventCreateWithFlags(event, flags);
}

/* ---- device symbols: the symbol object itself stands for its address ---- */

template <class T>
static inline mcError_t mcMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                         mcMemcpyKind kind = mcMemcpyHostToDevice)
{
    return ::mcMemcpyToSymbol(reinterpret_cast<const void *>(&symbol), src, count, offset, kind);
}

template <class T>
static inline mcError_t mcMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                              mcMemcpyKind kind = mcMemcpyHostToDevice, mcStream_t stream = 0)
{
    return ::mcMemcpyToSymbolAsync(reinterpret_cast<const void *>(&symbol), src, count, offset, kind, stream);
}

template <class T>
static inline mcError_t mcMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                           mcMemcpyKind kind = mcMemcpyDeviceToHost)
{
    return ::mcMemcpyFromSymbol(dst, reinterpret_cast<const void *>(&symbol), count, offset, kind);
}

template <class T>
static inline mcError_t mcMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                                mcMemcpyKind kind = mcMemcpyDeviceToHost, mcStream_t stream = 0)
{
    return ::mcMemcpyFromSymbolAsync(dst, reinterpret_cast<const void *>(&symbol), count, offset, kind, stream);
}

template <class T> static inline mcError_t mcGetSymbolAddress(void **devPtr, const T &symbol)
{
    return ::mcGetSymbolAddress(devPtr, reinterpret_cast<const void *>(&symbol));
}

template <class T> static inline mcError_t mcGetSymbolSize(size_t *size, const T &symbol)
{
    return ::mcGetSymbolSize(size, reinterpret_cast<const void *>(&symbol));
}

template <class T>
static inline mcError_t mcGraphAddMemcpyNodeToSymbol(mcGraphNode_t *pGraphNode, mcGraph_t graph,
                                                     const mcGraphNode_t *pDependencies, size_t numDependencies,
                                                     const T &symbol, const void *src, size_t count, size_t offset,
                                                     mcMemcpyKind kind)
{
    return ::mcGraphAddMemcpyNodeToSymbol(pGraphNode, graph, pDependencies, numDependencies,
                                          reinterpret_cast<const void *>(&symbol), src, count, offset, kind);
}

template <class T>
static inline mcError_t mcGraphAddMemcpyNodeFromSymbol(mcGraphNode_t *pGraphNode, mcGraph_t graph,
                                                       const mcGraphNode_t *pDependencies, size_t numDependencies,
                                                       void *dst, const T &symbol, size_t count, size_t offset,
                                                       mcMemcpyKind kind)
{
    return ::mcGraphAddMemcpyNodeFromSymbol(pGraphNode, graph, pDependencies, numDependencies, dst,
                                            reinterpret_cast<const void *>(&symbol), count, offset, kind);
}

template <class T>
static inline mcError_t mcGraphMemcpyNodeSetParamsToSymbol(mcGraphNode_t node, const T &symbol, const void *src,
                                                           size_t count, size_t offset, mcMemcpyKind kind)
{
    return ::mcGraphMemcpyNodeSetParamsToSymbol(node, reinterpret_cast<const void *>(&symbol), src, count, offset,
                                                kind);
}

template <class T>
static inline mcError_t mcGraphMemcpyNodeSetParamsFromSymbol(mcGraphNode_t node, void *dst, const T &symbol,
                                                             size_t count, size_t offset, mcMemcpyKind kind)
{
    return ::mcGraphMemcpyNodeSetParamsFromSymbol(node, dst, reinterpret_cast<const void *>(&symbol), count, offset,
                                                  kind);
}

template <class T>
static inline mcError_t mcGraphExecMemcpyNodeSetParamsToSymbol(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                                               const T &symbol, const void *src, size_t count,
                                                               size_t offset, mcMemcpyKind kind)
{
    return ::mcGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec, node, reinterpret_cast<const void *>(&symbol), src,
                                                    count, offset, kind);
}

template <class T>
static inline mcError_t mcGraphExecMemcpyNodeSetParamsFromSymbol(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                                                 void *dst, const T &symbol, size_t count,
                                                                 size_t offset, mcMemcpyKind kind)
{
    return ::mcGraphExecMemcpyNodeSetParamsFromSymbol(hGraphExec, node, dst, reinterpret_cast<const void *>(&symbol),
                                                      count, offset, kind);
}

/* A user object owning a C++ object: its last release deletes it. */
template <class T>
static inline mcError_t mcUserObjectCreate(mcUserObject_t *object_out, T *objectToWrap, unsigned int initialRefcount,
                                           unsigned int flags)
{
    return ::mcUserObjectCreate(object_out, reinterpret_cast<void *>(objectToWrap),
                                [](void *object) { delete reinterpret_cast<T *>(object); }, initialRefcount, flags);
}

/* ---- kernels: the function itself stands for its device entry (taken as T *, which a kernel's name
 * converts to; CUDA's const T * cannot be deduced from a function) ---- */

template <class T>
static inline mcError_t mcLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0,
                                       mcStream_t stream = 0)
{
    return ::mcLaunchKernel(reinterpret_cast<const void *>(func), gridDim, blockDim, args, sharedMem, stream);
}

template <class T>
static inline mcError_t mcLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                  size_t sharedMem = 0, mcStream_t stream = 0)
{
    return ::mcLaunchCooperativeKernel(reinterpret_cast<const void *>(func), gridDim, blockDim, args, sharedMem,
                                       stream);
}

/* The arguments are converted to the kernel's parameter types, then passed by address. */
template <typename... ExpTypes, typename... ActTypes>
static inline mcError_t mcLaunchKernelEx(const mcLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                                         ActTypes &&...args)
{
    return [&](ExpTypes... coerced) {
        void *addresses[] = {&coerced..., nullptr};
        return ::mcLaunchKernelExC(config, reinterpret_cast<const void *>(kernel), addresses);
    }(std::forward<ActTypes>(args)...);
}

template <class T> static inline mcError_t mcFuncGetAttributes(struct mcFuncAttributes *attr, T *entry)
{
    return ::mcFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}

template <class T> static inline mcError_t mcFuncSetAttribute(T *entry, enum mcFuncAttribute attr, int value)
{
    return ::mcFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value);
}

template <class T> static inline mcError_t mcFuncSetCacheConfig(T *func, enum mcFuncCache cacheConfig)
{
    return ::mcFuncSetCacheConfig(reinterpret_cast<const void *>(func), cacheConfig);
}

template <class T> static inline mcError_t mcFuncSetSharedMemConfig(T *func, enum mcSharedMemConfig config)
{
    return ::mcFuncSetSharedMemConfig(reinterpret_cast<const void *>(func), config);
}

template <class T>
static inline mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize,
                                                                    size_t dynamicSMemSize)
{
    return ::mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, reinterpret_cast<const void *>(func),
                                                                  blockSize, dynamicSMemSize, mcOccupancyDefault);
}

template <class T>
static inline mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func, int blockSize,
                                                                             size_t dynamicSMemSize,
                                                                             unsigned int flags)
{
    return ::mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, reinterpret_cast<const void *>(func),
                                                                  blockSize, dynamicSMemSize, flags);
}

template <class T>
static inline mcError_t mcOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func, int numBlocks,
                                                                int blockSize)
{
    return ::mcOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, reinterpret_cast<const void *>(func), numBlocks,
                                                     blockSize);
}

template <class T>
static inline mcError_t mcOccupancyMaxPotentialClusterSize(int *clusterSize, T *func,
                                                           const mcLaunchConfig_t *launchConfig)
{
    return ::mcOccupancyMaxPotentialClusterSize(clusterSize, reinterpret_cast<const void *>(func), launchConfig);
}

template <class T>
static inline mcError_t mcOccupancyMaxActiveClusters(int *numClusters, T *func, const mcLaunchConfig_t *launchConfig)
{
    return ::mcOccupancyMaxActiveClusters(numClusters, reinterpret_cast<const void *>(func), launchConfig);
}

/* The block size (a multiple of the warp size, at most blockSizeLimit when nonzero) that keeps the most
 * threads resident per multiprocessor, and the grid size that fills the device with it. */
template <class T>
static inline mcError_t mcOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func,
                                                                  size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
                                                                  unsigned int flags = mcOccupancyDefault)
{
    if (minGridSize == 0 || blockSize == 0)
        return mcErrorInvalidValue;
    struct mcFuncAttributes attr;
    mcError_t status = ::mcFuncGetAttributes(&attr, reinterpret_cast<const void *>(func));
    int device = 0, multiprocessors = 0, warp = 0;
    if (status == mcSuccess)
        status = ::mcGetDevice(&device);
    if (status == mcSuccess)
        status = ::mcDeviceGetAttribute(&multiprocessors, mcDeviceAttributeMultiProcessorCount, device);
    if (status == mcSuccess)
        status = ::mcDeviceGetAttribute(&warp, mcDeviceAttributeWarpSize, device);
    if (status != mcSuccess)
        return status;
    int limit = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit)
        limit = blockSizeLimit;
    int best_threads = 0, best_size = 0, best_blocks = 0;
    for (int size = warp; size <= limit; size += warp) {
        int blocks = 0;
        status = ::mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, reinterpret_cast<const void *>(func),
                                                                        size, dynamicSMemSize, flags);
        if (status != mcSuccess)
            return status;
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
    }
    *blockSize = best_size;
    *minGridSize = best_blocks * multiprocessors;
    return mcSuccess;
}

template <class T>
static inline mcError_t mcOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                         size_t dynamicSMemSize = 0, int blockSizeLimit = 0)
{
    return mcOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit,
                                                     mcOccupancyDefault);
}

#endif /* __cplusplus */
#endif
