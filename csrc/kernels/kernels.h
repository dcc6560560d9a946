/* Fused C kernels: the same work as an op's NumPy reference, in one pass instead of several.
 *
 * Each kernel is bit-identical to its NumPy reference (tests/test_kernels.py): the same operations in
 * the same order and rounding points, compiled with -O3 -ffp-contract=off (no FMA contraction, no
 * fast-math). Arrays are passed as pointers (from ffi.from_buffer, the cheapest way to an array's address)
 * and element strides; `size` is the element size, 4 (float) or 8 (double). A kernel works on the range it
 * is given and takes no locks: the caller splits the work over the pool's threads (cffi releases the
 * GIL during the call). Plain C that pycparser parses: the build hands it to cffi via bridge_api.h. */
#ifndef OPEMU_KERNELS_H
#define OPEMU_KERNELS_H

#include <stdint.h>

/* Instruction-set levels of the kernels' paths, in order (csrc/kernels/isa.h; python/opemu/core/kernels.py names
 * them): plain C; x86-64-v3 (AVX2, FMA); x86-64-v4 (AVX-512 F, BW, CD, DQ, VL); that and AVX512_BF16. */
enum { OPEMU_ISA_PORTABLE = 0, OPEMU_ISA_BASELINE = 1, OPEMU_ISA_AVX512 = 2, OPEMU_ISA_AVX512_BF16 = 3 };

/* The highest level this CPU has; the level the kernels use now; setting a ceiling (the level used is the lower
 * of it and the CPU's, which is returned). Every level gives the same bits. */
int opemu_kernel_cpu_isa(void);
int opemu_kernel_isa(void);
int opemu_kernel_set_isa(int ceiling);

/* Activation modes, as mcdnnActivationMode_t numbers them. */
enum {
    OPEMU_ACT_SIGMOID = 0,
    OPEMU_ACT_RELU = 1,
    OPEMU_ACT_TANH = 2,
    OPEMU_ACT_CLIPPED_RELU = 3,
    OPEMU_ACT_ELU = 4,
    OPEMU_ACT_IDENTITY = 5,
    OPEMU_ACT_SWISH = 6
};

/* dx[i] of n dense elements, in `pieces` parts on the kernel threads (opemu_pool_split), `streaming` dx to memory
 * by non-temporal stores (for a dx far larger than the caches). `e` is exp(min(x, 0)) for ELU and sigmoid(beta*x)
 * for SWISH (NumPy computes those: its exp is not libm's), else unused (0).
 * Returns 0, or -1 for a mode or size it does not handle. */
int opemu_kernel_activation_backward(int pieces, int streaming, int mode, int size, double coef, double beta,
                                     const void *y, const void *dy, const void *x, const void *e, void *dx, int64_t n);

/* y[i] of n dense elements for RELU, CLIPPED_RELU (clamped to coef) and IDENTITY, in `pieces` parts, `streaming`
 * as above; `propagate_nan` as the descriptor's NaN option. Returns 0, or -1 for another mode or size. */
int opemu_kernel_activation_forward(int pieces, int streaming, int mode, int size, int propagate_nan, double coef,
                                    const void *x, void *y, int64_t n);

/* Max-pooling backward over `images` (n) by `planes` (c) 2-D planes, the n x c planes in `pieces` parts on the
 * kernel threads: dx of each plane from x, y, dy, the window (kh, kw), stride (sh, sw) and padding (ph, pw).
 * Strides are in elements: *_image between images, *_plane between planes, *_row between rows; the w stride is
 * 1. dy goes to the first element of its window, in row-major order, that equals y; an input element's
 * gradient is +0 plus the dy of each window that chose it, in window-element order. dx must not overlap x, y
 * or dy. Returns 0, or -1 for a size it does not handle or scratch it cannot allocate. */
struct opemu_pool_geometry {
    int64_t h, w, oh, ow;
    int64_t kh, kw, sh, sw, ph, pw;
    int64_t x_image, x_plane, x_row, y_image, y_plane, y_row, dy_image, dy_plane, dy_row, dx_image, dx_plane, dx_row;
};
int opemu_kernel_max_pool_backward(int pieces, int size, const struct opemu_pool_geometry *g, const void *x,
                                   const void *y, const void *dy, void *dx, int64_t images, int64_t planes);

/* One EMA-Adam step (python/opemu/ops/aclnn/apply_fused_ema_adam.py _step) on n dense elements of fp32
 * (dtype 0), fp16 (1) or bf16 (2) data, in place on var, m, v, s. k is the address of the fp32 constants b1, b2,
 * ema, eps, lr, wd, 1-b1, 1-b2, 1-ema, 1/c1, 1/c2. Returns 0; -2, touching nothing, when two of the
 * arrays overlap (the reference's separate passes then give another result); -1 for another dtype. */
int opemu_kernel_ema_adam(int dtype, int mode, const void *k, const void *grad, void *var, void *m,
                          void *v, void *s, int64_t n);

/* Depthwise convolution on the padded grid (csrc/kernels/depthwise.c), `rows` channels of `m` positions;
 * each array with its row stride in elements, offsets of the `taps` window elements into each `in` row:
 * out[r][j] = +0 + Σ_t w[r][t] * in[r][j + offsets[t]], in t order. The output must not overlap the
 * inputs. Returns 0, or -1 for a size it does not handle. */
int opemu_kernel_depthwise_taps(int size, int64_t rows, int64_t taps, const int64_t *offsets, const void *w,
                                int64_t w_row, const void *in, int64_t in_row, void *out, int64_t out_row, int64_t m);

/* Depthwise convolution straight from the images (csrc/kernels/depthwise.c): `images` by `channels` planes,
 * strides in elements; each output plane `rows` rows of `width` positions, each source plane src_rows
 * (x_rows) rows of src_width (x_width). Tap t of output row r reads source row source[r * taps + t] (-1:
 * padding) at position j + shift[t]. buf holds one source plane padded: (rows + 1) * pitch elements, `left`
 * at least -shift[t] and pitch at least left + the source width and left + shift[t] + width in whole 64s.
 * rows: out = +0 + Σ_t w[c][t] * src in t order, padding read as +0 (for a finite w).
 * filter_rows: lanes[c][t][k] += dy[j] * x (padding +0) for j = 16b + k of each row, rows in order, each
 * row's last block padded with +0 products. Outputs must not overlap the inputs. Returns 0, or -1 for a
 * size it does not handle. */
int opemu_kernel_depthwise_rows(int size, int64_t images, int64_t channels, int64_t taps, const int64_t *source,
                                const int64_t *shift, int64_t rows, int64_t width, const void *w, int64_t w_row,
                                const void *src, int64_t src_image, int64_t src_channel, int64_t src_rows,
                                int64_t src_width, void *out, int64_t out_image, int64_t out_channel, void *buf,
                                int64_t left, int64_t pitch);
int opemu_kernel_depthwise_filter_rows(int size, int64_t images, int64_t channels, int64_t taps,
                                       const int64_t *source, const int64_t *shift, int64_t rows, int64_t width,
                                       const void *dy, int64_t dy_image, int64_t dy_channel, const void *x,
                                       int64_t x_image, int64_t x_channel, int64_t x_rows, int64_t x_width,
                                       void *lanes, void *buf, int64_t left, int64_t pitch);

/* The streaming floor of a memory-bound op: reads `inputs` arrays of n floats and writes `outputs`
 * (the last ones of the same list), one pass, the least work that touches those bytes. */
void opemu_kernel_stream(void *const *arrays, int inputs, int outputs, int64_t n);

/* fp32 values rounded in place to bfloat16 precision, n dense elements (csrc/kernels/rounding.c): round to
 * nearest even on the bit pattern, as python/opemu/core/rounding.py does. */
void opemu_kernel_round_bf16(float *values, int64_t n);

/* Dropout backward over elements lo..hi of dense arrays (csrc/kernels/dropout.c): dx = dy * scale where the
 * packed keep bit (np.packbits order) is set, else +0; `scale` is exact in the element type. dx may be dy.
 * Returns 0, or -1 for a size it does not handle. */
int opemu_kernel_dropout_backward(int size, const void *dy, const uint8_t *bits, double scale, void *dx, int64_t lo,
                                  int64_t hi);

/* LayerNorm (`centre`) and RmsNorm over `rows` dense fp32 rows of `cols` (csrc/kernels/norms.c): out =
 * (x - mean) * rstd [* weight] [+ bias], rstd = 1 / sqrt(mean((x - mean)^2) + epsilon), the means by NumPy's
 * row sums; weight and bias (cols values) and means may be NULL. `squares` holds `cols` floats of scratch.
 * Returns 0, or -1 for an empty row. */
int opemu_kernel_norm_rows(int centre, const float *x, int64_t x_stride, int64_t rows, int64_t cols, float epsilon,
                           const float *weight, const float *bias, float *out, int64_t out_stride, float *means,
                           float *rstds, float *squares);

/* EmbeddingDenseBackward's sums of fp32 grad rows (csrc/kernels/segments.c): segment s is the `lengths[s]`
 * rows order[starts[s]…], summed into out row targets[s] (out_stride elements apart), scaled by 1/length
 * when `scale`; `streaming` writes the out rows by non-temporal stores (an out far larger than the caches).
 * `scratch` holds 2 * dim floats. Returns 0, or -1 for a bad size. */
int opemu_kernel_segment_sums(const float *rows, int64_t row_stride, int64_t dim, const int64_t *order,
                              const int64_t *starts, const int64_t *lengths, const int64_t *targets, int64_t segments,
                              int scale, int64_t long_segment, int64_t block_rows, int streaming, float *out,
                              int64_t out_stride, float *scratch);

/* ---- mcDNN batch normalization (csrc/kernels/batchnorm.c) ----
 * A block of `channels` channels, each `images` rows of `spatial` dense elements; strides in elements
 * between images and between channels of x, dy and the output (dx or y); `stream` nonzero: the output is
 * written with stores that bypass the caches (an output far larger than them). Statistics and parameters are
 * float64 per channel. backward: dx from x, dy, scale and the saved mean / inverse std (NULL: both
 * recomputed from x), dScale and dBias before their blend; dx may be x or dy exactly, no other overlap.
 * forward: y, the mean and biased variance. affine (inference): y = x·a + b, a and b per channel rounded
 * to the data type. They return 0, or -1 for a size they do not handle. */
struct opemu_bn_geometry {
    int64_t images, spatial;
    int64_t x_image, x_channel, dy_image, dy_channel, out_image, out_channel;
    int64_t stream;
};
int opemu_kernel_bn_backward(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x,
                             const void *dy, void *dx, const double *scale, const double *mean, const double *inv,
                             double eps, double alpha, double *d_scale, double *d_bias);
int opemu_kernel_bn_forward(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x, void *y,
                            const double *scale, const double *bias, double eps, double alpha, double *mean,
                            double *var);
int opemu_kernel_bn_affine(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x, void *y,
                           const double *a, const double *b);
/* The same for channels innermost (NHWC): `positions` rows (N·H·W) of `channels` dense elements, *_row
 * elements apart, in calls on the same `scratch`, one per phase in the enum's order: MOMENTS (backward: only
 * without a saved mean) and GRADIENT (backward only) over segments [lo, hi) of the rows' segments (the
 * caller may split them among threads; bn_reference.py's segment_count says how many), STATISTICS and
 * COEFFICIENTS (backward only) once, APPLY over rows [lo, hi) (split among threads as the caller likes).
 * dx may be x or dy exactly (the same rows). `scratch`: 8-byte aligned, opemu_kernel_bn_nhwc_scratch bytes;
 * `stream` as above. */
enum opemu_bn_nhwc_phase {
    OPEMU_BN_NHWC_MOMENTS,
    OPEMU_BN_NHWC_STATISTICS,
    OPEMU_BN_NHWC_GRADIENT,
    OPEMU_BN_NHWC_COEFFICIENTS,
    OPEMU_BN_NHWC_APPLY
};
/* the scratch's bytes for `channels` channels of `size`-byte data, or -1 when that does not fit an int64_t */
int64_t opemu_kernel_bn_nhwc_scratch(int64_t channels, int size);
int opemu_kernel_bn_backward_nhwc(int size, int phase, int64_t lo, int64_t hi, int64_t positions, int64_t channels,
                                  const void *x, int64_t x_row, const void *dy, int64_t dy_row, void *dx,
                                  int64_t dx_row, const double *scale, const double *mean, const double *inv,
                                  double eps, double alpha, double *d_scale, double *d_bias, void *scratch,
                                  int stream);
int opemu_kernel_bn_forward_nhwc(int size, int phase, int64_t lo, int64_t hi, int64_t positions, int64_t channels,
                                 const void *x, int64_t x_row, void *y, int64_t y_row, const double *scale,
                                 const double *bias, double eps, double alpha, double *mean, double *var,
                                 void *scratch, int stream);

/* ---- pooling and spatial transformer (pool-kernels): csrc/kernels/pooling.c, sampler.c ---- */

/* Average-pooling backward over `images` by `planes` 2-D planes in `pieces` parts, as the max one
 * (python/opemu/ops/mcdnn/pooling.py _Phases.average_backward): the geometry's dy and dx fields (the x and y ones
 * unused), `counts` the (oh, ow) dense divisors. Each window's share dy / count (0 where the count is 0) is added
 * to +0 at every input element of the window, in window-element order. dx must not overlap dy. Returns 0, or
 * -1 for a size or stride it does not handle or scratch it cannot allocate. */
int opemu_kernel_average_pool_backward(int pieces, int size, const struct opemu_pool_geometry *g, const void *counts,
                                       const void *dy, void *dx, int64_t images, int64_t planes);

/* Spatial transformer sampler forward of one image (spatial_transformer.py forward_reference): y (channels,
 * pixels) = v00*w00 + v01*w01 + v10*w10 + v11*w11, added left to right, each product rounded, v the tap's
 * x (0 outside), from the tables as the backward's. y must not overlap x. Returns 0, or -1 for a size it
 * does not handle. */
int opemu_kernel_sampler_forward(int size, int64_t channels, int64_t pixels, int64_t inputs, const int64_t *index,
                                 const void *weight, const void *x, void *y);

/* Spatial transformer sampler backward of one image (python/opemu/ops/mcdnn/spatial_transformer.py
 * backward_reference): x (channels, inputs) and dy (channels, pixels) dense, channel-major; for each output
 * pixel p and corner k (of 4, corner-major tables of `pixels` entries) the input index index[k][p]
 * (`inputs` when outside: reads 0, receives nothing) and bilinear weight weight[k][p]; wx1, wy1 the pixel's
 * fractional coordinates. dx (channels, inputs) is written whole: +0 plus dy*weight of every tap that
 * lands on it, pixel by pixel and corner by corner within a pixel. dgrid (pixels, 2): with the
 * neighbours' differences a = v01 - v00, d = v10 - v00, e = (v11 - v10) - a summed against dy over the
 * channels from +0, ((sum a) + wy1 * (sum e)) * scale_x and ((sum d) + wx1 * (sum e)) * scale_y.
 * `sums` holds 3 * pixels. dx must not overlap the inputs. Returns 0, or -1 for a size it does not handle. */
int opemu_kernel_sampler_backward(int size, int64_t channels, int64_t pixels, int64_t inputs, const int64_t *index,
                                  const void *weight, const void *wx1, const void *wy1, const void *x, const void *dy,
                                  void *dx, void *dgrid, double scale_x, double scale_y, void *sums);

/* ---- mcDNN softmax (csrc/kernels/softmax.c) ----
 * Softmax backward of `images` dense images of `channels` rows by `spatial` elements, the images in `pieces`
 * parts on the kernel threads: dx from y and dy, accurate (log 0) or log (1), over each image (channel 0, the
 * sum in 16 lanes) or down the channels at each position (channel 1); `total` holds `pieces` times `spatial`
 * elements (channel mode) or 1. dx may be y or dy exactly, nothing else they overlap. `streaming`: dx by
 * non-temporal stores (outputs larger than cache). Returns 0, or -1 for a size it does not handle or an empty
 * row. */
int opemu_kernel_softmax_backward(int pieces, int size, int log, int channel, int streaming, const void *y,
                                  const void *dy, void *dx, void *total, int64_t images, int64_t channels,
                                  int64_t spatial);
/* Softmax forward of the same images: algo FAST 0, ACCURATE 1, LOG 2 (mcdnnSoftmaxAlgorithm_t). Phase 0
 * writes y (FAST, ACCURATE) or leaves the maxima and the totals of exp(x - max) in `maximum` and `total`
 * (LOG; y is scratch); phase 1 (LOG) writes y = (x - max) - total, `total` then holding the totals'
 * logarithms. Both hold `spatial` elements an image (channel mode) or 1. y may be x exactly except for LOG,
 * nothing else they overlap. Returns 0, or -1 for an algorithm, phase or size it does not handle. */
int opemu_kernel_softmax_forward(int size, int algo, int channel, int phase, const void *x, void *y, void *maximum,
                                 void *total, int64_t images, int64_t channels, int64_t spatial);

/* ---- the kernels' exp (csrc/kernels/exp.h says how; exp.c) ----
 * e[i] = exp(x[i]), n dense elements. Returns 0, or -1 for a size it does not handle. */
int opemu_kernel_exp(int size, const void *x, void *e, int64_t n);

/* ---- vocab-parallel cross-entropy epilogues (csrc/kernels/cross_entropy.c) ----
 * aclnnFusedLinearOnlineMaxSum's step over a tile of `rows` rows of `columns` fp32 logits at row pitch `ld`,
 * the logits first rounded in place to bf16 when `round_bf16`. Per row r, with m = max(running_max[r], the
 * row's logits) + 0 (NaN when any is NaN): running_sum[r] = running_sum[r] * exp(running_max[r] - m) +
 * (+0 + the pairwise sum of exp(logit - m)); running_max[r] = m. With `target` (else NULL): picked[r] = the
 * (rounded) logit in tile column target[r] - first_column, where that lies in [0, columns). Returns 0, or -1 for
 * more than OPEMU_EPILOGUE_COLUMNS columns or an ld below them. */
enum { OPEMU_EPILOGUE_COLUMNS = 512 };
int opemu_kernel_online_max_sum(float *logits, int64_t rows, int64_t columns, int64_t ld, int round_bf16,
                                float *running_max, float *running_sum, const int64_t *target, int64_t first_column,
                                float *picked);
/* aclnnFusedLinearCrossEntropyLossGrad's gradient tile, rows × columns fp32 at row pitch ld, in place. Per
 * row r: g = exp(g - maximum[r]) * reciprocal[r] (softmax NULL) or softmax[r * softmax_ld + j]; then
 * g - 1 at column target[r] (no column when it is outside [0, columns)); then g * grad[r], rounded to bf16
 * when `round_bf16`. Returns 0, or -1 for a pitch below `columns`. */
int opemu_kernel_cross_entropy_gradient(float *g, int64_t rows, int64_t columns, int64_t ld, const float *softmax,
                                        int64_t softmax_ld, const float *maximum, const float *reciprocal,
                                        const int64_t *target, const float *grad, int round_bf16);

/* ---- sums of GEMM products (csrc/kernels/chain.c) ----
 * c[r][n] (r < rows, n < cols, row stride ldc) = c (when `accumulate`) + P_0 + P_1 + ... in term order, one
 * rounding per sum, where P_t[r][n] sums a[a_row[r] + a_at[t] + k] * b[b_at[t] + k * ldb + n] over
 * k < inner[t] as one chain of fused multiply-adds from +0 in k order (how the bundled OpenBLAS forms a
 * product whose inner dimension fits its K block); `b_transposed` reads b[b_at[t] + n * ldb + k] instead,
 * for inner[t] <= 128. c must not overlap a or b. Returns 0, -1 below the baseline level (no path: the caller
 * runs BLAS), or -2 for a transposed term past 128. */
int opemu_kernel_chain_sums(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                            const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                            int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate);

/* ---- products of bf16 matrices (csrc/kernels/bf16_product.c; python/opemu/core/bf16_product.py) ----
 * Operands go into panels of 32-bit words, one word per pair of inner elements (2p low, 2p + 1 high): an A
 * operand in panels of OPEMU_BF16_PANEL_ROWS rows, a B operand in panels of OPEMU_BF16_PANEL_COLS columns, each
 * panel `pairs` × its width words, [pair][row or column], zero past the matrix. */
enum { OPEMU_BF16_PANEL_ROWS = 12, OPEMU_BF16_PANEL_COLS = 32, OPEMU_BF16_BLOCK_PAIRS = 256 };
enum { OPEMU_BF16_FROM_BF16 = 0, OPEMU_BF16_FROM_FLOAT = 1 };

/* Packs element (j, k) of a count × inner matrix, at src + j*count_stride + k*inner_stride (elements of bf16, or
 * of fp32 holding bf16 values, whose high halves are taken: `source`), into pairs [first_pair, first_pair +
 * ceil(inner / 2)) of the panels of `width` (either constant above) at `panels`, whose panels hold `pairs`
 * pairs each; a subnormal element becomes a zero of its sign. Returns 0, or -1 for a width or pair range it
 * cannot take. */
int opemu_kernel_bf16_pack(const void *src, int source, int64_t count, int64_t inner, int64_t count_stride,
                           int64_t inner_stride, int width, int64_t pairs, int64_t first_pair, uint32_t *panels);

/* c (m × n, row pitch ldc) = (accumulate ? c : +0) + one fp32 sum per block of OPEMU_BF16_BLOCK_PAIRS pairs, in
 * block order, each a chain from +0 that adds each pair's odd product and then its even one by fused multiply-
 * adds, each result below 2^-126 made a zero of its sign (the bf16 dot product instruction's arithmetic, which
 * runs it from the level avx512bf16 on). Returns 0, -1 for a negative size or ldc below n, or -2 when the
 * baseline level's scratch (a B panel widened to fp32) cannot be allocated. */
int opemu_kernel_bf16_product(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,
                              int64_t ldc, int accumulate);

/* The same product from +0, each element then rounded to bf16 (to nearest, ties to even) into c (bf16 bits, row
 * pitch ldc). A NaN the sums make has its quiet bit set and nothing below bit 16 (the operands' NaNs are bf16s
 * and the CPU's own has no payload), so rounding keeps it the NaN a cast gives. Returns as the above. */
int opemu_kernel_bf16_product_rounded(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b,
                                      uint16_t *c, int64_t ldc);

/* ---- transposing copy (csrc/kernels/transpose.c) ----
 * For p < planes, r < rows, c < cols: dst[p*dst_plane + c*dst_row + r] = src[p*src_plane + r*src_row +
 * c*src_col] (element strides; dst's r stride is 1). src and dst must not overlap. Returns 0, or -1 for a
 * size it does not handle. */
int opemu_kernel_transpose(int size, int64_t planes, int64_t rows, int64_t cols, const void *src, int64_t src_plane,
                           int64_t src_row, int64_t src_col, void *dst, int64_t dst_plane, int64_t dst_row);

/* For r < rows, c < cols: dst[c*dst_row + r] = src[r*src_row + c] widened exactly from fp16 (dtype 1) or bf16
 * (dtype 2) bits to fp32. src and dst must not overlap. Returns 0, or -1 for another dtype. */
int opemu_kernel_widen_transposed(int dtype, int64_t rows, int64_t cols, const void *src, int64_t src_row,
                                  float *dst, int64_t dst_row);

/* ---- row sums (csrc/kernels/pairwise.c) ----
 * out[r] = np.add.reduce of row r of x (rows rows of n floats, `stride` elements apart): NumPy's pairwise
 * sum added to +0. */
void opemu_kernel_row_sums(int pieces, int64_t rows, int64_t n, const float *x, int64_t stride, float *out);

/* ---- kernel threads (csrc/kernels/pool.c) ----
 * piece(job, i, lo, hi) over near-equal chunks of [0, count), up to four a thread (chunk c of k: [count*c/k,
 * count*(c+1)/k)), which `pieces` threads claim in order as each finishes one: the caller (i = 0) and the pool's
 * workers (i = 1 .. pieces - 1); returns when all are done. Runs the whole range as one chunk on the caller when
 * the pool is busy (another caller's job, or a chunk that splits again) or no thread can start. i < pieces always
 * (a thread's own scratch: slot i of `pieces`, which its chunks use one after another). */
typedef void (*opemu_piece)(const void *job, int index, int64_t lo, int64_t hi);
void opemu_pool_split(int pieces, int64_t count, opemu_piece piece, const void *job);

#endif
