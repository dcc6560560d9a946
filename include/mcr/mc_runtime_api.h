/* MACA runtime API (opemu): <mcr/mc_runtime_api.h>, or <mc_runtime_api.h> with -I$MACA_PATH/include/mcr.
 *
 * MetaX does not publish this header. The function list is the CUDA 11.8 runtime's, renamed cudaX -> mcX
 * (reference/surface/maca_runtime.tsv), with CUDA's parameter lists: every MACA function public code
 * calls (InfiniCore, PaddleCustomDevice's metax backend, vLLM-metax, mcTriton, MetaX's mccl, Mooncake,
 * Kokkos' MACA backend) is on it, under these names and argument orders. The library is libmcruntime.so.
 * C++ programs get the template overloads from mc_runtime.h (mc_runtime_api_template_wrapper.h). */
#ifndef OPEMU_MC_RUNTIME_API_H
#define OPEMU_MC_RUNTIME_API_H

#include <stddef.h>
#include "mc_runtime_types.h"

/* The runtime's version, major * 1000 + minor * 10 + patch (MACA code decodes MACART_VERSION that way):
 * MACA 3.7.1, the release whose mcDNN/mcBLAS opemu follows. */
#define MACART_VERSION 3071

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---- */
const char *mcGetErrorName(mcError_t error);
const char *mcGetErrorString(mcError_t error);
mcError_t mcGetLastError(void);
mcError_t mcPeekAtLastError(void);

/* ---- versions ---- */
mcError_t mcDriverGetVersion(int *driverVersion);
mcError_t mcRuntimeGetVersion(int *runtimeVersion);

/* ---- peer access ---- */
mcError_t mcDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
mcError_t mcDeviceDisablePeerAccess(int peerDevice);
mcError_t mcDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
mcError_t mcMemcpy3DPeer(const struct mcMemcpy3DPeerParms *p);
mcError_t mcMemcpy3DPeerAsync(const struct mcMemcpy3DPeerParms *p, mcStream_t stream);
mcError_t mcMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
mcError_t mcMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                            mcStream_t stream);

/* ---- stream-ordered allocation and memory pools ---- */
mcError_t mcDeviceGetDefaultMemPool(mcMemPool_t *memPool, int device);
mcError_t mcDeviceGetMemPool(mcMemPool_t *memPool, int device);
mcError_t mcDeviceSetMemPool(int device, mcMemPool_t memPool);
mcError_t mcFreeAsync(void *devPtr, mcStream_t hStream);
mcError_t mcMallocAsync(void **devPtr, size_t size, mcStream_t hStream);
mcError_t mcMallocFromPoolAsync(void **ptr, size_t size, mcMemPool_t memPool, mcStream_t stream);
mcError_t mcMemPoolCreate(mcMemPool_t *memPool, const struct mcMemPoolProps *poolProps);
mcError_t mcMemPoolDestroy(mcMemPool_t memPool);
mcError_t mcMemPoolExportPointer(struct mcMemPoolPtrExportData *exportData, void *ptr);
mcError_t mcMemPoolExportToShareableHandle(void *shareableHandle, mcMemPool_t memPool,
                                           enum mcMemAllocationHandleType handleType, unsigned int flags);
mcError_t mcMemPoolGetAccess(enum mcMemAccessFlags *flags, mcMemPool_t memPool, struct mcMemLocation *location);
mcError_t mcMemPoolGetAttribute(mcMemPool_t memPool, enum mcMemPoolAttr attr, void *value);
mcError_t mcMemPoolImportFromShareableHandle(mcMemPool_t *memPool, void *shareableHandle,
                                             enum mcMemAllocationHandleType handleType, unsigned int flags);
mcError_t mcMemPoolImportPointer(void **ptr, mcMemPool_t memPool, struct mcMemPoolPtrExportData *exportData);
mcError_t mcMemPoolSetAccess(mcMemPool_t memPool, const struct mcMemAccessDesc *descList, size_t count);
mcError_t mcMemPoolSetAttribute(mcMemPool_t memPool, enum mcMemPoolAttr attr, void *value);
mcError_t mcMemPoolTrimTo(mcMemPool_t memPool, size_t minBytesToKeep);

/* ---- stream capture ---- */
mcError_t mcStreamBeginCapture(mcStream_t stream, enum mcStreamCaptureMode mode);
mcError_t mcStreamEndCapture(mcStream_t stream, mcGraph_t *pGraph);
mcError_t mcStreamGetCaptureInfo(mcStream_t stream, enum mcStreamCaptureStatus *pCaptureStatus,
                                 unsigned long long *pId);
mcError_t mcStreamGetCaptureInfo_v2(mcStream_t stream, enum mcStreamCaptureStatus *captureStatus_out,
                                    unsigned long long *id_out, mcGraph_t *graph_out,
                                    const mcGraphNode_t **dependencies_out, size_t *numDependencies_out);
mcError_t mcStreamUpdateCaptureDependencies(mcStream_t stream, mcGraphNode_t *dependencies, size_t numDependencies,
                                            unsigned int flags);
mcError_t mcThreadExchangeStreamCaptureMode(enum mcStreamCaptureMode *mode);

/* ---- graphs and user objects ---- */
mcError_t mcDeviceGetGraphMemAttribute(int device, enum mcGraphMemAttributeType attr, void *value);
mcError_t mcDeviceGraphMemTrim(int device);
mcError_t mcDeviceSetGraphMemAttribute(int device, enum mcGraphMemAttributeType attr, void *value);
mcError_t mcGraphAddChildGraphNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                   size_t numDependencies, mcGraph_t childGraph);
mcError_t mcGraphAddDependencies(mcGraph_t graph, const mcGraphNode_t *from, const mcGraphNode_t *to,
                                 size_t numDependencies);
mcError_t mcGraphAddEmptyNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                              size_t numDependencies);
mcError_t mcGraphAddEventRecordNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                    size_t numDependencies, mcEvent_t event);
mcError_t mcGraphAddEventWaitNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                  size_t numDependencies, mcEvent_t event);
mcError_t mcGraphAddExternalSemaphoresSignalNode(mcGraphNode_t *pGraphNode, mcGraph_t graph,
                                                 const mcGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct mcExternalSemaphoreSignalNodeParams *nodeParams);
mcError_t mcGraphAddExternalSemaphoresWaitNode(mcGraphNode_t *pGraphNode, mcGraph_t graph,
                                               const mcGraphNode_t *pDependencies, size_t numDependencies,
                                               const struct mcExternalSemaphoreWaitNodeParams *nodeParams);
mcError_t mcGraphAddHostNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                             size_t numDependencies, const struct mcHostNodeParams *pNodeParams);
mcError_t mcGraphAddKernelNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                               size_t numDependencies, const struct mcKernelNodeParams *pNodeParams);
mcError_t mcGraphAddMemAllocNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                 size_t numDependencies, struct mcMemAllocNodeParams *nodeParams);
mcError_t mcGraphAddMemFreeNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                size_t numDependencies, void *dptr);
mcError_t mcGraphAddMemcpyNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                               size_t numDependencies, const struct mcMemcpy3DParms *pCopyParams);
mcError_t mcGraphAddMemcpyNode1D(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                 size_t numDependencies, void *dst, const void *src, size_t count,
                                 enum mcMemcpyKind kind);
mcError_t mcGraphAddMemcpyNodeFromSymbol(mcGraphNode_t *pGraphNode, mcGraph_t graph,
                                         const mcGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                         const void *symbol, size_t count, size_t offset, enum mcMemcpyKind kind);
mcError_t mcGraphAddMemcpyNodeToSymbol(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                                       size_t numDependencies, const void *symbol, const void *src, size_t count,
                                       size_t offset, enum mcMemcpyKind kind);
mcError_t mcGraphAddMemsetNode(mcGraphNode_t *pGraphNode, mcGraph_t graph, const mcGraphNode_t *pDependencies,
                               size_t numDependencies, const struct mcMemsetParams *pMemsetParams);
mcError_t mcGraphChildGraphNodeGetGraph(mcGraphNode_t node, mcGraph_t *pGraph);
mcError_t mcGraphClone(mcGraph_t *pGraphClone, mcGraph_t originalGraph);
mcError_t mcGraphCreate(mcGraph_t *pGraph, unsigned int flags);
mcError_t mcGraphDebugDotPrint(mcGraph_t graph, const char *path, unsigned int flags);
mcError_t mcGraphDestroy(mcGraph_t graph);
mcError_t mcGraphDestroyNode(mcGraphNode_t node);
mcError_t mcGraphEventRecordNodeGetEvent(mcGraphNode_t node, mcEvent_t *event_out);
mcError_t mcGraphEventRecordNodeSetEvent(mcGraphNode_t node, mcEvent_t event);
mcError_t mcGraphEventWaitNodeGetEvent(mcGraphNode_t node, mcEvent_t *event_out);
mcError_t mcGraphEventWaitNodeSetEvent(mcGraphNode_t node, mcEvent_t event);
mcError_t mcGraphExecChildGraphNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t node, mcGraph_t childGraph);
mcError_t mcGraphExecDestroy(mcGraphExec_t graphExec);
mcError_t mcGraphExecEventRecordNodeSetEvent(mcGraphExec_t hGraphExec, mcGraphNode_t hNode, mcEvent_t event);
mcError_t mcGraphExecEventWaitNodeSetEvent(mcGraphExec_t hGraphExec, mcGraphNode_t hNode, mcEvent_t event);
mcError_t mcGraphExecExternalSemaphoresSignalNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t hNode,
                                                           const struct mcExternalSemaphoreSignalNodeParams *nodeParams);
mcError_t mcGraphExecExternalSemaphoresWaitNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t hNode,
                                                         const struct mcExternalSemaphoreWaitNodeParams *nodeParams);
mcError_t mcGraphExecHostNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                       const struct mcHostNodeParams *pNodeParams);
mcError_t mcGraphExecKernelNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                         const struct mcKernelNodeParams *pNodeParams);
mcError_t mcGraphExecMemcpyNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                         const struct mcMemcpy3DParms *pNodeParams);
mcError_t mcGraphExecMemcpyNodeSetParams1D(mcGraphExec_t hGraphExec, mcGraphNode_t node, void *dst, const void *src,
                                           size_t count, enum mcMemcpyKind kind);
mcError_t mcGraphExecMemcpyNodeSetParamsFromSymbol(mcGraphExec_t hGraphExec, mcGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count, size_t offset,
                                                   enum mcMemcpyKind kind);
mcError_t mcGraphExecMemcpyNodeSetParamsToSymbol(mcGraphExec_t hGraphExec, mcGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum mcMemcpyKind kind);
mcError_t mcGraphExecMemsetNodeSetParams(mcGraphExec_t hGraphExec, mcGraphNode_t node,
                                         const struct mcMemsetParams *pNodeParams);
mcError_t mcGraphExecUpdate(mcGraphExec_t hGraphExec, mcGraph_t hGraph, mcGraphNode_t *hErrorNode_out,
                            enum mcGraphExecUpdateResult *updateResult_out);
mcError_t mcGraphExternalSemaphoresSignalNodeGetParams(mcGraphNode_t hNode,
                                                       struct mcExternalSemaphoreSignalNodeParams *params_out);
mcError_t mcGraphExternalSemaphoresSignalNodeSetParams(mcGraphNode_t hNode,
                                                       const struct mcExternalSemaphoreSignalNodeParams *nodeParams);
mcError_t mcGraphExternalSemaphoresWaitNodeGetParams(mcGraphNode_t hNode,
                                                     struct mcExternalSemaphoreWaitNodeParams *params_out);
mcError_t mcGraphExternalSemaphoresWaitNodeSetParams(mcGraphNode_t hNode,
                                                     const struct mcExternalSemaphoreWaitNodeParams *nodeParams);
mcError_t mcGraphGetEdges(mcGraph_t graph, mcGraphNode_t *from, mcGraphNode_t *to, size_t *numEdges);
mcError_t mcGraphGetNodes(mcGraph_t graph, mcGraphNode_t *nodes, size_t *numNodes);
mcError_t mcGraphGetRootNodes(mcGraph_t graph, mcGraphNode_t *pRootNodes, size_t *pNumRootNodes);
mcError_t mcGraphHostNodeGetParams(mcGraphNode_t node, struct mcHostNodeParams *pNodeParams);
mcError_t mcGraphHostNodeSetParams(mcGraphNode_t node, const struct mcHostNodeParams *pNodeParams);
mcError_t mcGraphInstantiate(mcGraphExec_t *pGraphExec, mcGraph_t graph, mcGraphNode_t *pErrorNode, char *pLogBuffer,
                             size_t bufferSize);
mcError_t mcGraphInstantiateWithFlags(mcGraphExec_t *pGraphExec, mcGraph_t graph, unsigned long long flags);
mcError_t mcGraphKernelNodeCopyAttributes(mcGraphNode_t hSrc, mcGraphNode_t hDst);
mcError_t mcGraphKernelNodeGetAttribute(mcGraphNode_t hNode, mcLaunchAttributeID attr,
                                        mcLaunchAttributeValue *value_out);
mcError_t mcGraphKernelNodeGetParams(mcGraphNode_t node, struct mcKernelNodeParams *pNodeParams);
mcError_t mcGraphKernelNodeSetAttribute(mcGraphNode_t hNode, mcLaunchAttributeID attr,
                                        const mcLaunchAttributeValue *value);
mcError_t mcGraphKernelNodeSetParams(mcGraphNode_t node, const struct mcKernelNodeParams *pNodeParams);
mcError_t mcGraphLaunch(mcGraphExec_t graphExec, mcStream_t stream);
mcError_t mcGraphMemAllocNodeGetParams(mcGraphNode_t node, struct mcMemAllocNodeParams *params_out);
mcError_t mcGraphMemFreeNodeGetParams(mcGraphNode_t node, void *dptr_out);
mcError_t mcGraphMemcpyNodeGetParams(mcGraphNode_t node, struct mcMemcpy3DParms *pNodeParams);
mcError_t mcGraphMemcpyNodeSetParams(mcGraphNode_t node, const struct mcMemcpy3DParms *pNodeParams);
mcError_t mcGraphMemcpyNodeSetParams1D(mcGraphNode_t node, void *dst, const void *src, size_t count,
                                       enum mcMemcpyKind kind);
mcError_t mcGraphMemcpyNodeSetParamsFromSymbol(mcGraphNode_t node, void *dst, const void *symbol, size_t count,
                                               size_t offset, enum mcMemcpyKind kind);
mcError_t mcGraphMemcpyNodeSetParamsToSymbol(mcGraphNode_t node, const void *symbol, const void *src, size_t count,
                                             size_t offset, enum mcMemcpyKind kind);
mcError_t mcGraphMemsetNodeGetParams(mcGraphNode_t node, struct mcMemsetParams *pNodeParams);
mcError_t mcGraphMemsetNodeSetParams(mcGraphNode_t node, const struct mcMemsetParams *pNodeParams);
mcError_t mcGraphNodeFindInClone(mcGraphNode_t *pNode, mcGraphNode_t originalNode, mcGraph_t clonedGraph);
mcError_t mcGraphNodeGetDependencies(mcGraphNode_t node, mcGraphNode_t *pDependencies, size_t *pNumDependencies);
mcError_t mcGraphNodeGetDependentNodes(mcGraphNode_t node, mcGraphNode_t *pDependentNodes,
                                       size_t *pNumDependentNodes);
mcError_t mcGraphNodeGetEnabled(mcGraphExec_t hGraphExec, mcGraphNode_t hNode, unsigned int *isEnabled);
mcError_t mcGraphNodeGetType(mcGraphNode_t node, enum mcGraphNodeType *pType);
mcError_t mcGraphNodeSetEnabled(mcGraphExec_t hGraphExec, mcGraphNode_t hNode, unsigned int isEnabled);
mcError_t mcGraphReleaseUserObject(mcGraph_t graph, mcUserObject_t object, unsigned int count);
mcError_t mcGraphRemoveDependencies(mcGraph_t graph, const mcGraphNode_t *from, const mcGraphNode_t *to,
                                    size_t numDependencies);
mcError_t mcGraphRetainUserObject(mcGraph_t graph, mcUserObject_t object, unsigned int count, unsigned int flags);
mcError_t mcGraphUpload(mcGraphExec_t graphExec, mcStream_t stream);
mcError_t mcUserObjectCreate(mcUserObject_t *object_out, void *ptr, mcHostFn_t destroy, unsigned int initialRefcount,
                             unsigned int flags);
mcError_t mcUserObjectRelease(mcUserObject_t object, unsigned int count);
mcError_t mcUserObjectRetain(mcUserObject_t object, unsigned int count);

/* ---- devices and threads ---- */
mcError_t mcChooseDevice(int *device, const struct mcDeviceProp *prop);
mcError_t mcCtxResetPersistingL2Cache(void);
mcError_t mcDeviceFlushGPUDirectRDMAWrites(enum mcFlushGPUDirectRDMAWritesTarget target,
                                           enum mcFlushGPUDirectRDMAWritesScope scope);
mcError_t mcDeviceGetAttribute(int *value, enum mcDeviceAttr attr, int device);
mcError_t mcDeviceGetByPCIBusId(int *device, const char *pciBusId);
mcError_t mcDeviceGetCacheConfig(enum mcFuncCache *pCacheConfig);
mcError_t mcDeviceGetLimit(size_t *pValue, enum mcLimit limit);
mcError_t mcDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, int device, int flags);
mcError_t mcDeviceGetP2PAttribute(int *value, enum mcDeviceP2PAttr attr, int srcDevice, int dstDevice);
mcError_t mcDeviceGetPCIBusId(char *pciBusId, int len, int device);
mcError_t mcDeviceGetSharedMemConfig(enum mcSharedMemConfig *pConfig);
mcError_t mcDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
mcError_t mcDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, const struct mcChannelFormatDesc *fmtDesc,
                                             int device);
mcError_t mcDeviceReset(void);
mcError_t mcDeviceSetCacheConfig(enum mcFuncCache cacheConfig);
mcError_t mcDeviceSetLimit(enum mcLimit limit, size_t value);
mcError_t mcDeviceSetSharedMemConfig(enum mcSharedMemConfig config);
mcError_t mcDeviceSynchronize(void);
mcError_t mcGetDevice(int *device);
mcError_t mcGetDeviceCount(int *count);
mcError_t mcGetDeviceFlags(unsigned int *flags);
mcError_t mcGetDeviceProperties(struct mcDeviceProp *prop, int device);
mcError_t mcIpcGetEventHandle(mcIpcEventHandle_t *handle, mcEvent_t event);
mcError_t mcIpcOpenEventHandle(mcEvent_t *event, mcIpcEventHandle_t handle);
mcError_t mcSetDevice(int device);
mcError_t mcSetDeviceFlags(unsigned int flags);
mcError_t mcSetValidDevices(int *device_arr, int len);
mcError_t mcThreadExit(void);
mcError_t mcThreadGetCacheConfig(enum mcFuncCache *pCacheConfig);
mcError_t mcThreadGetLimit(size_t *pValue, enum mcLimit limit);
mcError_t mcThreadSetCacheConfig(enum mcFuncCache cacheConfig);
mcError_t mcThreadSetLimit(enum mcLimit limit, size_t value);
mcError_t mcThreadSynchronize(void);

/* ---- streams ---- */
mcError_t mcLaunchHostFunc(mcStream_t stream, mcHostFn_t fn, void *userData);
mcError_t mcStreamAddCallback(mcStream_t stream, mcStreamCallback_t callback, void *userData, unsigned int flags);
mcError_t mcStreamAttachMemAsync(mcStream_t stream, void *devPtr, size_t length, unsigned int flags);
mcError_t mcStreamCopyAttributes(mcStream_t dst, mcStream_t src);
mcError_t mcStreamCreate(mcStream_t *pStream);
mcError_t mcStreamCreateWithFlags(mcStream_t *pStream, unsigned int flags);
mcError_t mcStreamCreateWithPriority(mcStream_t *pStream, unsigned int flags, int priority);
mcError_t mcStreamDestroy(mcStream_t stream);
mcError_t mcStreamGetAttribute(mcStream_t hStream, mcLaunchAttributeID attr, mcLaunchAttributeValue *value_out);
mcError_t mcStreamGetFlags(mcStream_t hStream, unsigned int *flags);
mcError_t mcStreamGetPriority(mcStream_t hStream, int *priority);
mcError_t mcStreamIsCapturing(mcStream_t stream, enum mcStreamCaptureStatus *pCaptureStatus);
mcError_t mcStreamQuery(mcStream_t stream);
mcError_t mcStreamSetAttribute(mcStream_t hStream, mcLaunchAttributeID attr, const mcLaunchAttributeValue *value);
mcError_t mcStreamSynchronize(mcStream_t stream);
mcError_t mcStreamWaitEvent(mcStream_t stream, mcEvent_t event, unsigned int flags);

/* ---- events ---- */
mcError_t mcEventCreate(mcEvent_t *event);
mcError_t mcEventCreateWithFlags(mcEvent_t *event, unsigned int flags);
mcError_t mcEventDestroy(mcEvent_t event);
mcError_t mcEventElapsedTime(float *ms, mcEvent_t start, mcEvent_t end);
mcError_t mcEventQuery(mcEvent_t event);
mcError_t mcEventRecord(mcEvent_t event, mcStream_t stream);
mcError_t mcEventRecordWithFlags(mcEvent_t event, mcStream_t stream, unsigned int flags);
mcError_t mcEventSynchronize(mcEvent_t event);

/* ---- external resources ---- */
mcError_t mcDestroyExternalMemory(mcExternalMemory_t extMem);
mcError_t mcDestroyExternalSemaphore(mcExternalSemaphore_t extSem);
mcError_t mcExternalMemoryGetMappedBuffer(void **devPtr, mcExternalMemory_t extMem,
                                          const struct mcExternalMemoryBufferDesc *bufferDesc);
mcError_t mcExternalMemoryGetMappedMipmappedArray(mcMipmappedArray_t *mipmap, mcExternalMemory_t extMem,
                                                  const struct mcExternalMemoryMipmappedArrayDesc *mipmapDesc);
mcError_t mcImportExternalMemory(mcExternalMemory_t *extMem_out,
                                 const struct mcExternalMemoryHandleDesc *memHandleDesc);
mcError_t mcImportExternalSemaphore(mcExternalSemaphore_t *extSem_out,
                                    const struct mcExternalSemaphoreHandleDesc *semHandleDesc);
#define mcSignalExternalSemaphoresAsync mcSignalExternalSemaphoresAsync_v2
mcError_t mcSignalExternalSemaphoresAsync(const mcExternalSemaphore_t *extSemArray,
                                          const struct mcExternalSemaphoreSignalParams *paramsArray,
                                          unsigned int numExtSems, mcStream_t stream);
#define mcWaitExternalSemaphoresAsync mcWaitExternalSemaphoresAsync_v2
mcError_t mcWaitExternalSemaphoresAsync(const mcExternalSemaphore_t *extSemArray,
                                        const struct mcExternalSemaphoreWaitParams *paramsArray,
                                        unsigned int numExtSems, mcStream_t stream);

/* ---- execution control and occupancy (device kernels) ---- */
mcError_t mcFuncGetAttributes(struct mcFuncAttributes *attr, const void *func);
mcError_t mcFuncSetAttribute(const void *func, enum mcFuncAttribute attr, int value);
mcError_t mcFuncSetCacheConfig(const void *func, enum mcFuncCache cacheConfig);
mcError_t mcFuncSetSharedMemConfig(const void *func, enum mcSharedMemConfig config);
mcError_t mcGetFuncBySymbol(mcFunction_t *functionPtr, const void *symbolPtr);
mcError_t mcLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                    mcStream_t stream);
mcError_t mcLaunchCooperativeKernelMultiDevice(struct mcLaunchParams *launchParamsList, unsigned int numDevices,
                                               unsigned int flags);
mcError_t mcLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                         mcStream_t stream);
mcError_t mcLaunchKernelExC(const mcLaunchConfig_t *config, const void *func, void **args);
mcError_t mcOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                  int blockSize);
mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                      size_t dynamicSMemSize);
mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
    size_t dynamicSMemSize, unsigned int flags);
mcError_t mcOccupancyMaxActiveClusters(int *numClusters, const void *func, const mcLaunchConfig_t *launchConfig);
mcError_t mcOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                             const mcLaunchConfig_t *launchConfig);
mcError_t mcSetDoubleForDevice(double *d);
mcError_t mcSetDoubleForHost(double *d);

/* ---- unified addressing ---- */
mcError_t mcPointerGetAttributes(struct mcPointerAttributes *attributes, const void *ptr);

/* ---- graphics interoperability ---- */
mcError_t mcGraphicsMapResources(int count, mcGraphicsResource_t *resources, mcStream_t stream);
mcError_t mcGraphicsResourceGetMappedMipmappedArray(mcMipmappedArray_t *mipmappedArray,
                                                    mcGraphicsResource_t resource);
mcError_t mcGraphicsResourceGetMappedPointer(void **devPtr, size_t *size, mcGraphicsResource_t resource);
mcError_t mcGraphicsResourceSetMapFlags(mcGraphicsResource_t resource, unsigned int flags);
mcError_t mcGraphicsSubResourceGetMappedArray(mcArray_t *array, mcGraphicsResource_t resource,
                                              unsigned int arrayIndex, unsigned int mipLevel);
mcError_t mcGraphicsUnmapResources(int count, mcGraphicsResource_t *resources, mcStream_t stream);
mcError_t mcGraphicsUnregisterResource(mcGraphicsResource_t resource);

/* ---- textures and surfaces ---- */
mcError_t mcBindSurfaceToArray(const struct surfaceReference *surfref, mcArray_const_t array,
                               const struct mcChannelFormatDesc *desc);
mcError_t mcBindTexture(size_t *offset, const struct textureReference *texref, const void *devPtr,
                        const struct mcChannelFormatDesc *desc, size_t size);
mcError_t mcBindTexture2D(size_t *offset, const struct textureReference *texref, const void *devPtr,
                          const struct mcChannelFormatDesc *desc, size_t width, size_t height, size_t pitch);
mcError_t mcBindTextureToArray(const struct textureReference *texref, mcArray_const_t array,
                               const struct mcChannelFormatDesc *desc);
mcError_t mcBindTextureToMipmappedArray(const struct textureReference *texref,
                                        mcMipmappedArray_const_t mipmappedArray,
                                        const struct mcChannelFormatDesc *desc);
struct mcChannelFormatDesc mcCreateChannelDesc(int x, int y, int z, int w, enum mcChannelFormatKind f);
mcError_t mcCreateSurfaceObject(mcSurfaceObject_t *pSurfObject, const struct mcResourceDesc *pResDesc);
mcError_t mcCreateTextureObject(mcTextureObject_t *pTexObject, const struct mcResourceDesc *pResDesc,
                                const struct mcTextureDesc *pTexDesc, const struct mcResourceViewDesc *pResViewDesc);
mcError_t mcCreateTextureObject_v2(mcTextureObject_t *pTexObject, const struct mcResourceDesc *pResDesc,
                                   const struct mcTextureDesc_v2 *pTexDesc,
                                   const struct mcResourceViewDesc *pResViewDesc);
mcError_t mcDestroySurfaceObject(mcSurfaceObject_t surfObject);
mcError_t mcDestroyTextureObject(mcTextureObject_t texObject);
mcError_t mcGetChannelDesc(struct mcChannelFormatDesc *desc, mcArray_const_t array);
mcError_t mcGetSurfaceObjectResourceDesc(struct mcResourceDesc *pResDesc, mcSurfaceObject_t surfObject);
mcError_t mcGetSurfaceReference(const struct surfaceReference **surfref, const void *symbol);
mcError_t mcGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref);
mcError_t mcGetTextureObjectResourceDesc(struct mcResourceDesc *pResDesc, mcTextureObject_t texObject);
mcError_t mcGetTextureObjectResourceViewDesc(struct mcResourceViewDesc *pResViewDesc, mcTextureObject_t texObject);
mcError_t mcGetTextureObjectTextureDesc(struct mcTextureDesc *pTexDesc, mcTextureObject_t texObject);
mcError_t mcGetTextureObjectTextureDesc_v2(struct mcTextureDesc_v2 *pTexDesc, mcTextureObject_t texObject);
mcError_t mcGetTextureReference(const struct textureReference **texref, const void *symbol);
mcError_t mcUnbindTexture(const struct textureReference *texref);

/* ---- arrays ---- */
mcError_t mcArrayGetInfo(struct mcChannelFormatDesc *desc, struct mcExtent *extent, unsigned int *flags,
                         mcArray_t array);
mcError_t mcArrayGetMemoryRequirements(struct mcArrayMemoryRequirements *memoryRequirements, mcArray_t array,
                                       int device);
mcError_t mcArrayGetPlane(mcArray_t *pPlaneArray, mcArray_t hArray, unsigned int planeIdx);
mcError_t mcArrayGetSparseProperties(struct mcArraySparseProperties *sparseProperties, mcArray_t array);
mcError_t mcFreeArray(mcArray_t array);
mcError_t mcFreeMipmappedArray(mcMipmappedArray_t mipmappedArray);
mcError_t mcGetMipmappedArrayLevel(mcArray_t *levelArray, mcMipmappedArray_const_t mipmappedArray,
                                   unsigned int level);
mcError_t mcMalloc3DArray(mcArray_t *array, const struct mcChannelFormatDesc *desc, struct mcExtent extent,
                          unsigned int flags);
mcError_t mcMallocArray(mcArray_t *array, const struct mcChannelFormatDesc *desc, size_t width, size_t height,
                        unsigned int flags);
mcError_t mcMallocMipmappedArray(mcMipmappedArray_t *mipmappedArray, const struct mcChannelFormatDesc *desc,
                                 struct mcExtent extent, unsigned int numLevels, unsigned int flags);
mcError_t mcMemcpy2DArrayToArray(mcArray_t dst, size_t wOffsetDst, size_t hOffsetDst, mcArray_const_t src,
                                 size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                 enum mcMemcpyKind kind);
mcError_t mcMemcpy2DFromArray(void *dst, size_t dpitch, mcArray_const_t src, size_t wOffset, size_t hOffset,
                              size_t width, size_t height, enum mcMemcpyKind kind);
mcError_t mcMemcpy2DFromArrayAsync(void *dst, size_t dpitch, mcArray_const_t src, size_t wOffset, size_t hOffset,
                                   size_t width, size_t height, enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemcpy2DToArray(mcArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                            size_t width, size_t height, enum mcMemcpyKind kind);
mcError_t mcMemcpy2DToArrayAsync(mcArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                 size_t width, size_t height, enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemcpyArrayToArray(mcArray_t dst, size_t wOffsetDst, size_t hOffsetDst, mcArray_const_t src,
                               size_t wOffsetSrc, size_t hOffsetSrc, size_t count, enum mcMemcpyKind kind);
mcError_t mcMemcpyFromArray(void *dst, mcArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                            enum mcMemcpyKind kind);
mcError_t mcMemcpyFromArrayAsync(void *dst, mcArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                 enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemcpyToArray(mcArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                          enum mcMemcpyKind kind);
mcError_t mcMemcpyToArrayAsync(mcArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                               enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMipmappedArrayGetMemoryRequirements(struct mcArrayMemoryRequirements *memoryRequirements,
                                                mcMipmappedArray_t mipmap, int device);
mcError_t mcMipmappedArrayGetSparseProperties(struct mcArraySparseProperties *sparseProperties,
                                              mcMipmappedArray_t mipmap);

/* ---- memory ---- */
mcError_t mcFree(void *devPtr);
mcError_t mcFreeHost(void *ptr);
mcError_t mcGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags);
mcError_t mcGetExportTable(const void **ppExportTable, const mcUUID_t *pExportTableId);
mcError_t mcGetSymbolAddress(void **devPtr, const void *symbol);
mcError_t mcGetSymbolSize(size_t *size, const void *symbol);
mcError_t mcHostAlloc(void **pHost, size_t size, unsigned int flags);
mcError_t mcHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
mcError_t mcHostGetFlags(unsigned int *pFlags, void *pHost);
mcError_t mcHostRegister(void *ptr, size_t size, unsigned int flags);
mcError_t mcHostUnregister(void *ptr);
mcError_t mcIpcCloseMemHandle(void *devPtr);
mcError_t mcIpcGetMemHandle(mcIpcMemHandle_t *handle, void *devPtr);
mcError_t mcIpcOpenMemHandle(void **devPtr, mcIpcMemHandle_t handle, unsigned int flags);
mcError_t mcMalloc(void **devPtr, size_t size);
mcError_t mcMalloc3D(struct mcPitchedPtr *pitchedDevPtr, struct mcExtent extent);
mcError_t mcMallocHost(void **ptr, size_t size);
mcError_t mcMallocManaged(void **devPtr, size_t size, unsigned int flags);
mcError_t mcMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
mcError_t mcMemAdvise(const void *devPtr, size_t count, enum mcMemoryAdvise advice, int device);
mcError_t mcMemGetInfo(size_t *free, size_t *total);
mcError_t mcMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, mcStream_t stream);
mcError_t mcMemRangeGetAttribute(void *data, size_t dataSize, enum mcMemRangeAttribute attribute, const void *devPtr,
                                 size_t count);
mcError_t mcMemRangeGetAttributes(void **data, size_t *dataSizes, enum mcMemRangeAttribute *attributes,
                                  size_t numAttributes, const void *devPtr, size_t count);
mcError_t mcMemcpy(void *dst, const void *src, size_t count, enum mcMemcpyKind kind);
mcError_t mcMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                     enum mcMemcpyKind kind);
mcError_t mcMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                          enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemcpy3D(const struct mcMemcpy3DParms *p);
mcError_t mcMemcpy3DAsync(const struct mcMemcpy3DParms *p, mcStream_t stream);
mcError_t mcMemcpyAsync(void *dst, const void *src, size_t count, enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, enum mcMemcpyKind kind);
mcError_t mcMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, enum mcMemcpyKind kind,
                                  mcStream_t stream);
mcError_t mcMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, enum mcMemcpyKind kind);
mcError_t mcMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                enum mcMemcpyKind kind, mcStream_t stream);
mcError_t mcMemset(void *devPtr, int value, size_t count);
mcError_t mcMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
mcError_t mcMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, mcStream_t stream);
mcError_t mcMemset3D(struct mcPitchedPtr pitchedDevPtr, int value, struct mcExtent extent);
mcError_t mcMemset3DAsync(struct mcPitchedPtr pitchedDevPtr, int value, struct mcExtent extent, mcStream_t stream);
mcError_t mcMemsetAsync(void *devPtr, int value, size_t count, mcStream_t stream);


#ifdef __cplusplus
}
#endif
#endif
