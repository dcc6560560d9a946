/* The aclnn host helpers that are not operator pairs: how many elements a weight occupies once
 * converted to the cube unit's private format (aclnnCalculateMatmulWeightSize(V2),
 * aclnnCalculateConvolutionWeightSize) and the packing of quantisation scales/offsets into the
 * 64-bit words the fixpipe reads (aclnnTransQuantParam).
 *
 * Semantics, check order, statuses and messages follow the vendor's op_api sources
 * (hicann/ops-math conversion/trans_data/op_api, hicann/ops-nn quant/trans_quant_param/op_host);
 * where their docs say otherwise the code wins and a comment says so. The answers depend on the
 * SoC (aclrtGetSocName, OPEMU_SOC) as the vendor's do. Beyond the vendor, a shape array that is not
 * a live aclIntArray, a negative dimension or a size that overflows 64 bits is refused with
 * ACLNN_ERR_PARAM_INVALID rather than answered with a wrapped number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "aclnn_internal.h"
#include "core/core.h"

typedef enum { SOC_OTHER, SOC_310P, SOC_910B, SOC_910_93, SOC_REGBASE } soc_family;

static soc_family current_soc(void)
{
    const char *soc = opemu_soc_name();
    if (strncmp(soc, "Ascend910_93", 12) == 0)
        return SOC_910_93;
    if (strncmp(soc, "Ascend910B", 10) == 0)
        return SOC_910B;
    if (strncmp(soc, "Ascend310P", 10) == 0)
        return SOC_310P;
    if (strncmp(soc, "Ascend950", 9) == 0) /* the register-based (regbase) architecture */
        return SOC_REGBASE;
    return SOC_OTHER;
}

static int64_t ceil_align(int64_t value, int64_t block) { return (value + block - 1) / block * block; }

typedef struct {
    const int64_t *dims;
    uint64_t ndim;
} shape_view;

/* The shape's dimensions, after the null and liveness checks every helper makes first. */
static aclnnStatus shape_of(const aclIntArray *shape, const uint64_t *size_out, const char *api, shape_view *view)
{
    if (shape == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensorShape is nullptr.", api);
    if (size_out == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: expected a value of type number for argument "
                          "weightTensorSize but instead found type null.", api);
    if (!opemu_handle_is(shape, OPEMU_KIND_INT_ARRAY))
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensorShape %p is not a live aclIntArray (destroyed or "
                          "never created).", api, (const void *)shape);
    view->dims = shape->data;
    view->ndim = shape->size;
    return ACLNN_SUCCESS;
}

/* Product of `factors`, refused when a factor is negative or the product leaves int64_t. */
static aclnnStatus checked_product(const int64_t *factors, size_t n, const char *api, uint64_t *out)
{
    int64_t product = 1;
    for (size_t i = 0; i < n; i++) {
        if (factors[i] < 0)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensorShape has a negative dimension (%lld).", api,
                              (long long)factors[i]);
        if (__builtin_mul_overflow(product, factors[i], &product))
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the weight size overflows 64 bits.", api);
    }
    *out = (uint64_t)product;
    return ACLNN_SUCCESS;
}

/* FRACTAL_NZ of a (batch..., n, k) weight: only the last two axes are padded, n to 16 and k to 16
 * for float16/bfloat16, to 32 for every other dtype (the vendor's else branch, not only int8). */
static aclnnStatus matmul_weight_elements(const int64_t *dims, uint64_t ndim, aclDataType dtype, const char *api,
                                          uint64_t *out)
{
    int64_t k_block = (dtype == ACL_FLOAT16 || dtype == ACL_BF16) ? 16 : 32;
    int64_t padded[6];
    for (uint64_t i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensorShape has a negative dimension (%lld).", api,
                              (long long)dims[i]);
        int64_t block = i + 2 < ndim ? 1 : (i + 1 < ndim ? 16 : k_block);
        if (dims[i] > INT64_MAX - block)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the weight size overflows 64 bits.", api);
        padded[i] = ceil_align(dims[i], block);
    }
    return checked_product(padded, ndim, api, out);
}

static aclnnStatus check_dim_range(uint64_t ndim, uint64_t low, uint64_t high)
{
    if (ndim >= low && ndim <= high)
        return ACLNN_SUCCESS;
    if (low == high)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                          "It is expected that tensorShape has 2 dimensions, but got dimensions %lu.",
                          (unsigned long)ndim);
    return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                      "It is expected that tensorShape has 2-6 dimensions, but got dimensions %lu.",
                      (unsigned long)ndim);
}

OPEMU_EXPORT aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, uint64_t *weightTensorSize)
{
    shape_view s = {NULL, 0};
    aclnnStatus status = shape_of(tensorShape, weightTensorSize, "aclnnCalculateMatmulWeightSize", &s);
    if (status != ACLNN_SUCCESS)
        return status;
    soc_family soc = current_soc();
    /* Batched weights only on Atlas A2/A3; every other SoC takes plain (n, k) matrices. */
    status = (soc == SOC_910B || soc == SOC_910_93) ? check_dim_range(s.ndim, 2, 6) : check_dim_range(s.ndim, 2, 2);
    if (status != ACLNN_SUCCESS)
        return status;
    /* V1 has no dtype: the vendor computes it as float16 (16 x 16 blocks); zero dimensions give 0. */
    return matmul_weight_elements(s.dims, s.ndim, ACL_FLOAT16, "aclnnCalculateMatmulWeightSize", weightTensorSize);
}

OPEMU_EXPORT aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType,
                                                          uint64_t *weightTensorSize)
{
    const char *api = "aclnnCalculateMatmulWeightSizeV2";
    /* The SoC is checked before the pointers. */
    if (current_soc() == SOC_OTHER)
        return opemu_fail(ACLNN_ERR_RUNTIME_ERROR, "support for %s is not implemented", opemu_soc_name());
    shape_view s = {NULL, 0};
    aclnnStatus status = shape_of(tensorShape, weightTensorSize, api, &s);
    if (status == ACLNN_SUCCESS)
        status = check_dim_range(s.ndim, 2, 6);
    if (status != ACLNN_SUCCESS)
        return status;
    for (uint64_t i = 0; i < s.ndim; i++)
        if (s.dims[i] == 0)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "No zeros are allow in shape");
    /* The doc lists FLOAT16, BFLOAT16 and INT8 and an error for other dtypes; the vendor's code does not
     * check the dtype and pads every other dtype as int8 (code wins). */
    return matmul_weight_elements(s.dims, s.ndim, dataType, api, weightTensorSize);
}

/* FRACTAL_Z of an NCHW float16 convolution weight, groups == 1: (C1*H*W, N1, 16, 16) with C and N
 * padded to 16. */
static aclnnStatus convolution_weight_elements(const int64_t *nchw, const char *api, uint64_t *out)
{
    int64_t factors[4];
    for (int i = 0; i < 4; i++) {
        if (nchw[i] > INT64_MAX - 16)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the weight size overflows 64 bits.", api);
        factors[i] = i < 2 ? ceil_align(nchw[i], 16) : nchw[i];
    }
    return checked_product(factors, 4, api, out);
}

OPEMU_EXPORT aclnnStatus aclnnCalculateConvolutionWeightSize(const aclIntArray *tensorShape, bool transposed,
                                                             int64_t groups, aclDataType dataType,
                                                             uint64_t *weightTensorSize)
{
    const char *api = "aclnnCalculateConvolutionWeightSize";
    shape_view s = {NULL, 0};
    aclnnStatus status = shape_of(tensorShape, weightTensorSize, api, &s);
    if (status != ACLNN_SUCCESS)
        return status;
    const int64_t *dims = s.dims;
    if (s.ndim != 4)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "only support 4 dim tensorShape, but got dim %lu.",
                          (unsigned long)s.ndim);
    if (transposed)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "only support nontranspose convolution, now transpose is %d.",
                          (int)transposed);
    if (groups == 0)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "only support groups larger than 0, now groups is %lu.",
                          (unsigned long)groups);
    /* The helper exists for Atlas inference cards only; on the default emulated SoC (Ascend910B1) this
     * is where it stops, as the vendor's does. */
    if (current_soc() != SOC_310P)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "only support ascend310P, now soc is %s.", opemu_soc_name());
    if (dataType != ACL_FLOAT16)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "only support datatype is float16, now datatype is %d.",
                          (int)dataType);
    for (int i = 0; i < 4; i++) {
        if (dims[i] < 0)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "tensorShape dim[%d] must be non-negative, but got %lld.", i,
                              (long long)dims[i]);
        if (dims[i] == 0) {
            *weightTensorSize = 0;
            return ACLNN_SUCCESS;
        }
    }
    if (groups != 1) /* FRACTAL_Z's group packing is left to the vendor's TransData; not reproduced here */
        return opemu_fail(ACLNN_ERR_RUNTIME_ERROR, "%s: groups = %lld (grouped FRACTAL_Z) is not emulated by opemu.",
                          api, (long long)groups);
    return convolution_weight_elements(dims, api, weightTensorSize);
}

/* The fixpipe's 64-bit quantisation word: the scale's float32 bits in bits 0-31 with bit 46 set, and
 * the offset, rounded and clamped to a 9-bit signed integer, in bits 37-45. */
enum { QUANT_ALIGN = 16 };
#define QUANT_SCALE_FLAG (1ULL << 46)
#define QUANT_OFFSET_SHIFT 37
#define QUANT_OFFSET_BITS 0x1FFULL
#define QUANT_KEEP_MASK 0x4000FFFFFFFFULL

static uint64_t int9_bits(float offset)
{
    /* The vendor converts round(offset) to int before clamping (undefined for NaN or huge values);
     * clamping in float first gives the saturating answer, and NaN, which the doc forbids, gives 0. */
    double rounded = isnan(offset) ? 0.0 : round((double)offset);
    int value = rounded > 255.0 ? 255 : (rounded < -256.0 ? -256 : (int)rounded);
    return ((uint64_t)(int64_t)value & QUANT_OFFSET_BITS) << QUANT_OFFSET_SHIFT;
}

static aclnnStatus check_quant_arrays(const float *scaleArray, uint64_t scaleSize, const float *offsetArray,
                                      uint64_t offsetSize)
{
    /* Every failure here is ACLNN_ERR_PARAM_INVALID: the vendor logs a null scaleArray as a null pointer
     * but its caller maps every result of this check to PARAM_INVALID. */
    if (offsetArray != NULL && offsetSize < 1)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "offsetSize must be larger than 0, but got %lu",
                          (unsigned long)offsetSize);
    if (offsetArray == NULL && offsetSize != 0)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "offsetArray is nullptr, offsetSize must be 0, but got %lu",
                          (unsigned long)offsetSize);
    if (scaleArray == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "scaleArray can not be nullptr.");
    if (scaleSize < 1)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "scaleSize must be larger than 0, but got %lu",
                          (unsigned long)scaleSize);
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclnnTransQuantParam(const float *scaleArray, uint64_t scaleSize, const float *offsetArray,
                                              uint64_t offsetSize, uint64_t **quantParam, uint64_t *quantParamSize)
{
    aclnnStatus status = check_quant_arrays(scaleArray, scaleSize, offsetArray, offsetSize);
    if (status != ACLNN_SUCCESS)
        return status;
    if (quantParam == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "The quantParam is nullptr, please check.");
    if (quantParamSize == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "The quantParamSize is nullptr, please check.");
    /* One word per channel, padded to a multiple of 16 unless there is a single (per-tensor) one. */
    uint64_t count = scaleSize > offsetSize ? scaleSize : offsetSize;
    if (count != 1 && count % QUANT_ALIGN != 0) {
        if (count > UINT64_MAX - QUANT_ALIGN)
            return opemu_fail(ACLNN_ERR_PARAM_INVALID, "aclnnTransQuantParam: %lu channels overflow the size.",
                              (unsigned long)count);
        count += QUANT_ALIGN - count % QUANT_ALIGN;
    }
    /* The caller releases the array with free(): the vendor allocates it with calloc. */
    uint64_t *words = count <= SIZE_MAX / sizeof *words ? calloc(count, sizeof *words) : NULL;
    if (words == NULL) {
        *quantParamSize = 0;
        return opemu_fail(ACLNN_ERR_INNER_NULLPTR, "The *quantParam is nullptr.");
    }
    for (uint64_t i = 0; i < scaleSize; i++) {
        uint32_t bits;
        memcpy(&bits, &scaleArray[i], sizeof bits);
        /* The doc masks the scale to its high 19 bits (& 0xFFFFE000); the code keeps all 32 (code wins). */
        words[i] = (uint64_t)bits | QUANT_SCALE_FLAG;
    }
    for (uint64_t i = 0; offsetArray != NULL && i < offsetSize; i++)
        words[i] = (words[i] & QUANT_KEEP_MASK) | int9_bits(offsetArray[i]);
    *quantParam = words;
    *quantParamSize = count;
    return ACLNN_SUCCESS;
}
