/* MACA complex types (opemu), <common/mcComplex.h>: the layout of CUDA's cuComplex.h (float2 and
 * double2: two components, aligned to their size) under MACA's names, as public MetaX code uses
 * them (mcFloatComplex, mcDoubleComplex, mcComplex; mcCrealf, make_mcFloatComplex, …). */
#ifndef OPEMU_MC_COMPLEX_H_
#define OPEMU_MC_COMPLEX_H_

typedef struct __attribute__((aligned(8))) { float x; float y; } mcFloatComplex;
typedef struct __attribute__((aligned(16))) { double x; double y; } mcDoubleComplex;
typedef mcFloatComplex mcComplex;

/* The helpers are inline definitions; the build's header reader sees declarations only. */
#ifndef OPEMU_GENERATOR
static inline float mcCrealf(mcFloatComplex z) { return z.x; }
static inline float mcCimagf(mcFloatComplex z) { return z.y; }
static inline double mcCreal(mcDoubleComplex z) { return z.x; }
static inline double mcCimag(mcDoubleComplex z) { return z.y; }
static inline mcFloatComplex make_mcFloatComplex(float re, float im)
{
    mcFloatComplex z;
    z.x = re;
    z.y = im;
    return z;
}
static inline mcDoubleComplex make_mcDoubleComplex(double re, double im)
{
    mcDoubleComplex z;
    z.x = re;
    z.y = im;
    return z;
}
static inline mcFloatComplex make_mcComplex(float re, float im) { return make_mcFloatComplex(re, im); }
static inline mcFloatComplex mcConjf(mcFloatComplex z) { return make_mcFloatComplex(z.x, -z.y); }
static inline mcDoubleComplex mcConj(mcDoubleComplex z) { return make_mcDoubleComplex(z.x, -z.y); }
#endif

#endif
