/* Why MACA's device-code calls are not supported: opemu runs no device code (a kernel is machine
 * code for the MetaX ISA, which nothing here executes), so kernel launches, function attributes,
 * occupancy, device symbols and graph kernel nodes have nothing to act on. The generated
 * not-supported shims answer these calls; this names the reason their message gives, through
 * core's hooks. */
#include <string.h>
#include "core/hooks.h"
#include "mc_internal.h"

static const char *unsupported_reason(const char *function)
{
    static const char *const device_code[] = {"mcLaunch", "mcFunc", "mcOccupancy", "Symbol", "KernelNode",
                                              "mcSetDoubleFor", "mcGetTextureReference", "mcGetSurfaceReference"};
    if (!mc_runtime_function(function))
        return NULL;
    for (size_t i = 0; i < sizeof device_code / sizeof device_code[0]; i++)
        if (strstr(function, device_code[i]))
            return "device kernels are not emulated: opemu runs no device code, so kernels, their attributes and "
                   "device symbols do not exist";
    return NULL;
}

__attribute__((constructor)) static void give_reasons(void)
{
    static const opemu_hooks hooks = {.unsupported_reason = unsupported_reason};
    opemu_hooks_register(&hooks);
}
