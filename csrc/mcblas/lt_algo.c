/* mcBLASLt algorithm values: capability and configuration attributes. An algorithm is a value the program
 * copies (mcblasLtMatmulAlgo_t); mcblasLtMatmulAlgoInit and the heuristic (Python: they judge the data
 * types) fill it, these calls read and adjust it.
 *
 * opemu's one matmul algorithm (id 0) sums each dot product in one sequence on the host: no split-K, no
 * reduction scheme, no tiles or stages to pick (each capability list holds only the UNDEFINED member),
 * strided batches and D apart from C supported, the COL and ROW orders, every epilogue and pointer mode. Configuration values outside those capabilities may be set (the library accepts them) and are
 * refused by mcblasLtMatmulAlgoCheck and mcblasLtMatmul. */
#include <string.h>
#include "lt_internal.h"

#define EPILOGUES                                                                                          \
    (MCBLASLT_EPILOGUE_DEFAULT | MCBLASLT_EPILOGUE_RELU | MCBLASLT_EPILOGUE_BIAS | MCBLASLT_EPILOGUE_DRELU | \
     MCBLASLT_EPILOGUE_DRELU_BGRAD | MCBLASLT_EPILOGUE_GELU | MCBLASLT_EPILOGUE_DGELU |                     \
     MCBLASLT_EPILOGUE_DGELU_BGRAD | MCBLASLT_EPILOGUE_RELU_AUX | MCBLASLT_EPILOGUE_GELU_AUX |               \
     MCBLASLT_EPILOGUE_BGRADA | MCBLASLT_EPILOGUE_BGRADB)

static const struct opemu_lt_algo *initialized(const mcblasLtMatmulAlgo_t *algo)
{
    const struct opemu_lt_algo *a = (const struct opemu_lt_algo *)algo;
    return a != NULL && a->magic == OPEMU_LT_ALGO_MAGIC ? a : NULL;
}

static int element_bytes(int type)
{
    switch (type) {
    case MACA_R_8I: case MACA_R_8U: case MACA_R_8F_E4M3: case MACA_R_8F_E5M2: return 1;
    case MACA_R_16F: case MACA_R_16BF: case MACA_C_8I: case MACA_C_8U: return 2;
    case MACA_R_32F: case MACA_R_32I: case MACA_R_32U: case MACA_C_16F: case MACA_C_16BF: return 4;
    case MACA_R_64F: case MACA_C_32F: case MACA_C_32I: case MACA_C_32U: return 8;
    case MACA_C_64F: return 16;
    }
    return 1;
}

static uint64_t accumulator_flag(int compute)
{
    switch (compute) {
    case MCBLAS_COMPUTE_16F: case MCBLAS_COMPUTE_16F_PEDANTIC: return MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_16F;
    case MCBLAS_COMPUTE_64F: case MCBLAS_COMPUTE_64F_PEDANTIC: return MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_64F;
    case MCBLAS_COMPUTE_32I: case MCBLAS_COMPUTE_32I_PEDANTIC: return MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32I;
    }
    return MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F;
}

static uint64_t input_flag(int compute, int type)
{
    switch (compute) {
    case MCBLAS_COMPUTE_32F_FAST_16F: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
    case MCBLAS_COMPUTE_32F_FAST_16BF: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
    case MCBLAS_COMPUTE_32F_FAST_TF32: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_TF32;
    }
    switch (type) {
    case MACA_R_16F: case MACA_C_16F: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
    case MACA_R_16BF: case MACA_C_16BF: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
    case MACA_R_64F: case MACA_C_64F: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_64F;
    case MACA_R_8I: case MACA_C_8I: return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_8I;
    }
    return MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_32F;
}

/* Writes `value` (`size` bytes, or an array of them) as an attribute read: the vendor's size rules. */
static mcblasStatus_t answer(const char *api, const void *value, size_t size, void *buf, size_t sizeInBytes,
                             size_t *sizeWritten)
{
    opemu_lt_field field = {0, 0, size};
    return opemu_lt_get(api, value, &field, buf, sizeInBytes, sizeWritten);
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulAlgoCapGetAttribute(const mcblasLtMatmulAlgo_t *algo,
                                                              mcblasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                              size_t sizeInBytes, size_t *sizeWritten)
{
    const char *api = "mcblasLtMatmulAlgoCapGetAttribute";
    const struct opemu_lt_algo *a = initialized(algo);
    if (a == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: algo was not initialized by mcblasLtMatmulAlgoInit or a "
                       "heuristic", api);
    int32_t i32 = 0;
    uint32_t u32 = 0;
    uint64_t u64;
    switch (attr) {
    case MCBLASLT_ALGO_CAP_SPLITK_SUPPORT: case MCBLASLT_ALGO_CAP_UPLO_SUPPORT:
    case MCBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX: case MCBLASLT_ALGO_CAP_MATHMODE_IMPL:
    case MCBLASLT_ALGO_CAP_GAUSSIAN_IMPL: case MCBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER:
    case MCBLASLT_ALGO_CAP_LD_NEGATIVE:
        return answer(api, &i32, sizeof i32, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT: case MCBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT:
        i32 = 1;
        return answer(api, &i32, sizeof i32, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK: case MCBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT:
        return answer(api, &u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_TILE_IDS: case MCBLASLT_ALGO_CAP_STAGES_IDS:
        return answer(api, &u32, sizeof u32, buf, sizeInBytes, sizeWritten); /* [UNDEFINED] */
    case MCBLASLT_ALGO_CAP_POINTER_MODE_MASK:
        u32 = MCBLASLT_POINTER_MODE_MASK_HOST | MCBLASLT_POINTER_MODE_MASK_DEVICE |
              MCBLASLT_POINTER_MODE_MASK_DEVICE_VECTOR | MCBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_ZERO |
              MCBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_HOST;
        return answer(api, &u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_EPILOGUE_MASK:
        u32 = EPILOGUES;
        return answer(api, &u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS:
        u64 = MCBLASLT_NUMERICAL_IMPL_FLAGS_FMA | accumulator_flag(a->computeType) |
              input_flag(a->computeType, a->types[0]);
        return answer(api, &u64, sizeof u64, buf, sizeInBytes, sizeWritten);
    case MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES: case MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
    case MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES: case MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
        /* an element's own alignment: the host reads any aligned element */
        u32 = (uint32_t)element_bytes(a->types[attr - MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES]);
        return answer(api, &u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    }
    return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %d is not an mcblasLtMatmulAlgoCapAttributes_t", api, (int)attr);
}

static void *config_field(struct opemu_lt_algo *a, int attr)
{
    switch (attr) {
    case MCBLASLT_ALGO_CONFIG_ID: return &a->id;
    case MCBLASLT_ALGO_CONFIG_TILE_ID: return &a->tile;
    case MCBLASLT_ALGO_CONFIG_SPLITK_NUM: return &a->splitK;
    case MCBLASLT_ALGO_CONFIG_REDUCTION_SCHEME: return &a->reductionScheme;
    case MCBLASLT_ALGO_CONFIG_CTA_SWIZZLING: return &a->swizzle;
    case MCBLASLT_ALGO_CONFIG_CUSTOM_OPTION: return &a->customOption;
    case MCBLASLT_ALGO_CONFIG_STAGES_ID: return &a->stages;
    }
    return NULL;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulAlgoConfigSetAttribute(mcblasLtMatmulAlgo_t *algo,
                                                                 mcblasLtMatmulAlgoConfigAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes)
{
    const char *api = "mcblasLtMatmulAlgoConfigSetAttribute";
    struct opemu_lt_algo *a = (struct opemu_lt_algo *)initialized(algo);
    if (a == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: algo was not initialized", api);
    void *field = config_field(a, attr);
    if (field == NULL || attr == MCBLASLT_ALGO_CONFIG_ID)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: attribute %d cannot be set", api, (int)attr);
    if (buf == NULL || sizeInBytes != 4)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: buf is null or sizeInBytes %zu is not 4", api, sizeInBytes);
    uint32_t value;
    memcpy(&value, buf, 4);
    if ((attr == MCBLASLT_ALGO_CONFIG_TILE_ID && value >= MCBLASLT_MATMUL_TILE_END) ||
        (attr == MCBLASLT_ALGO_CONFIG_STAGES_ID && value >= MCBLASLT_MATMUL_STAGES_END) ||
        (attr == MCBLASLT_ALGO_CONFIG_SPLITK_NUM && value == 0) ||
        (attr == MCBLASLT_ALGO_CONFIG_REDUCTION_SCHEME && (value & ~(uint32_t)MCBLASLT_REDUCTION_SCHEME_MASK)) ||
        (attr == MCBLASLT_ALGO_CONFIG_CTA_SWIZZLING && value > 1))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %u is not a valid value of attribute %d", api, value,
                       (int)attr);
    memcpy(field, &value, 4);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulAlgoConfigGetAttribute(const mcblasLtMatmulAlgo_t *algo,
                                                                 mcblasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                                 size_t sizeInBytes, size_t *sizeWritten)
{
    const char *api = "mcblasLtMatmulAlgoConfigGetAttribute";
    struct opemu_lt_algo *a = (struct opemu_lt_algo *)initialized(algo);
    if (a == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: algo was not initialized", api);
    void *field = config_field(a, attr);
    if (field == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %d is not an mcblasLtMatmulAlgoConfigAttributes_t", api,
                       (int)attr);
    return answer(api, field, 4, buf, sizeInBytes, sizeWritten);
}
