/* NumPy's pairwise summation, shared by the kernels that reproduce NumPy's row sums (csrc/kernels/pairwise.c). */
#ifndef OPEMU_KERNELS_PAIRWISE_H
#define OPEMU_KERNELS_PAIRWISE_H

#include <stdint.h>

/* The pairwise sum of a[0..n) as NumPy's add.reduce forms it (not yet added to +0). */
float opemu_pairwise_float(const float *a, int64_t n);
double opemu_pairwise_double(const double *a, int64_t n);

#endif
