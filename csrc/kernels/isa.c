/* The level in use (isa.h): the CPU's until a ceiling is set. */
#include "isa.h"

int opemu_kernel_cpu_isa(void)
{
#if OPEMU_X86
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("x86-64-v3"))
        return OPEMU_ISA_PORTABLE;
    if (!__builtin_cpu_supports("x86-64-v4"))
        return OPEMU_ISA_BASELINE;
    return __builtin_cpu_supports("avx512bf16") ? OPEMU_ISA_AVX512_BF16 : OPEMU_ISA_AVX512;
#else
    return OPEMU_ISA_PORTABLE;
#endif
}

int opemu_isa_in_use = OPEMU_ISA_PORTABLE;

__attribute__((constructor)) static void start_at_the_cpus_level(void)
{
    opemu_isa_in_use = opemu_kernel_cpu_isa();
}

int opemu_kernel_set_isa(int ceiling)
{
    const int cpu = opemu_kernel_cpu_isa();
    const int level = ceiling < OPEMU_ISA_PORTABLE ? OPEMU_ISA_PORTABLE : ceiling < cpu ? ceiling : cpu;
    __atomic_store_n(&opemu_isa_in_use, level, __ATOMIC_RELAXED);
    return level;
}

int opemu_kernel_isa(void)
{
    return opemu_isa();
}
