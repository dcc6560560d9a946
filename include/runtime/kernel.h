/* The runtime layer's kernel registration and launch (runtime/kernel.h): the functions a framework
 * binary links by name (torch_npu's compiled-kernel path). They take device binaries, which a host
 * emulation cannot run: declared with the types they take, they answer not supported. */
#ifndef CCE_RUNTIME_KERNEL_H
#define CCE_RUNTIME_KERNEL_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RT_DEV_BINARY_MAGIC_ELF 0x43554245U
#define RT_DEV_BINARY_MAGIC_ELF_AICPU 0x41415243U
#define RT_DEV_BINARY_MAGIC_ELF_AIVEC 0x41415246U
#define RT_DEV_BINARY_MAGIC_ELF_AICUBE 0x41494343U
#define RT_DEV_BINARY_MAGIC_PLAIN 0xabceed50U
#define RT_DEV_BINARY_MAGIC_PLAIN_AICPU 0xabceed51U
#define RT_DEV_BINARY_MAGIC_PLAIN_AIVEC 0xabceed52U

typedef struct tagRtDevBinary {
    uint32_t magic;
    uint32_t version;
    const void *data;
    uint64_t length;
} rtDevBinary_t;

typedef struct tagRtSmData {
    uint64_t L2_mirror_addr;
    uint32_t L2_data_section_size;
    uint8_t L2_preload;
    uint8_t modified;
    uint8_t priority;
    int8_t prev_L2_page_offset_base;
    uint8_t L2_page_offset_base;
    uint8_t L2_load_to_ddr;
    uint8_t reserved[2];
} rtSmData_t;

typedef struct tagRtSmCtrl {
    rtSmData_t data[8];
    uint64_t size;
    uint8_t remap[64];
    uint8_t l2_in_main;
    uint8_t reserved[3];
} rtSmDesc_t;

RTS_API rtError_t rtDevBinaryRegister(const rtDevBinary_t *bin, void **hdl);

RTS_API rtError_t rtFunctionRegister(void *binHandle, const void *stubFunc, const char *stubName,
    const void *kernelInfoExt, uint32_t funcMode);

RTS_API rtError_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
    rtSmDesc_t *smDesc, rtStream_t stm);

#ifdef __cplusplus
}
#endif

#endif /* CCE_RUNTIME_KERNEL_H */
