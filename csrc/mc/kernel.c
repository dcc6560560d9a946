/* Why MACA's device-code calls are not supported: opemu runs no device code (a kernel is machine
 * code for the MetaX ISA, which nothing here executes), so kernel launches, function attributes,
 * occupancy, device symbols and graph kernel nodes have nothing to act on. The generated
 * not-supported shims answer these calls; this names the reason their message gives. */
#include <string.h>
#include "internal.h"

const char *opemu_mc_unsupported_reason(const char *function)
{
    static const char *const device_code[] = {"mcLaunch", "mcFunc", "mcOccupancy", "Symbol", "KernelNode",
                                              "mcSetDoubleFor", "mcGetTextureReference", "mcGetSurfaceReference"};
    if (strncmp(function, "mc", 2) != 0 || strncmp(function, "mcdnn", 5) == 0 || strncmp(function, "mcblas", 6) == 0)
        return NULL;
    for (size_t i = 0; i < sizeof device_code / sizeof device_code[0]; i++)
        if (strstr(function, device_code[i]))
            return "device kernels are not emulated: opemu runs no device code, so kernels, their attributes and "
                   "device symbols do not exist";
    return NULL;
}
