/* The instruction-set levels of the kernels' paths (kernels.h's OPEMU_ISA_*). Every kernel that has a path for
 * a level beyond plain C has one for each level below it too, down to portable C, and each call takes the path
 * of opemu_isa(): the level the CPU has, or the lower ceiling set by opemu_kernel_set_isa (OPEMU_ISA, and the
 * tests, which run every level the CPU has). All paths give the same bits: the NumPy twin's.
 *
 * Functions that differ only in the instructions the compiler may use (vector loops in plain C) are defined
 * once per level with OPEMU_FOR_EACH_ISA and called through OPEMU_BY_ISA; hand-written paths (intrinsics) test
 * opemu_isa() themselves. A choice made at load time (target_clones) would not follow the ceiling. */
#ifndef OPEMU_KERNELS_ISA_H
#define OPEMU_KERNELS_ISA_H

#include "kernels.h"

extern int opemu_isa_in_use;

static inline __attribute__((always_inline)) int opemu_isa(void)
{
    return __atomic_load_n(&opemu_isa_in_use, __ATOMIC_RELAXED);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define OPEMU_X86 1
#define OPEMU_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define OPEMU_TARGET_BASELINE __attribute__((target("arch=x86-64-v3")))
/* DEFINE(args..., level name, target attribute) for each level */
#define OPEMU_FOR_EACH_ISA(DEFINE, ...)                                                                   \
    DEFINE(__VA_ARGS__, avx512, OPEMU_TARGET_AVX512)                                                      \
    DEFINE(__VA_ARGS__, baseline, OPEMU_TARGET_BASELINE)                                                  \
    DEFINE(__VA_ARGS__, portable, )
/* NAME##<level> for the level in use */
#define OPEMU_BY_ISA(NAME)                                                                                \
    (opemu_isa() >= OPEMU_ISA_AVX512 ? NAME##avx512 : opemu_isa() >= OPEMU_ISA_BASELINE ? NAME##baseline  \
                                                                                        : NAME##portable)
#else
#define OPEMU_X86 0
#define OPEMU_FOR_EACH_ISA(DEFINE, ...) DEFINE(__VA_ARGS__, portable, )
#define OPEMU_BY_ISA(NAME) NAME##portable
#endif

#endif
