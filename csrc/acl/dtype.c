/* aclDataTypeSize, the fp16 conversions and aclDataBuffer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"

/* As RT's aclDataTypeSizeImpl, including its `default: 8` (FLOAT6/FLOAT4 types answer 8). */
OPEMU_EXPORT size_t aclDataTypeSize(aclDataType dataType)
{
    switch ((int)dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

/* The newest RT header documents saturation: NaN and ±Inf become ±65504 (0x7BFF/0xFBFF). */
OPEMU_EXPORT aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    if (isnan(value) || isinf(value))
        return (aclFloat16)(sign | 0x7BFFu);
    float magnitude = fabsf(value);
    if (magnitude >= 65520.0f) /* rounds past the largest finite half */
        return (aclFloat16)(sign | 0x7BFFu);
    if (magnitude < 6.103515625e-05f) { /* subnormal half: multiples of 2^-24, nearest even */
        float scaled = magnitude * 16777216.0f;
        return (aclFloat16)(sign | (uint16_t)nearbyintf(scaled));
    }
    uint32_t m = bits & 0x7FFFFFFFu;
    uint32_t exponent = (m >> 23) - 127 + 15;
    uint32_t mantissa = m & 0x7FFFFFu;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* a carry into the exponent is the correct rounding */
    return (aclFloat16)(sign | half);
}

/* RT maps the special encodings to finite values: +Inf→65536, −Inf→−65536, NaN→98304. */
OPEMU_EXPORT float aclFloat16ToFloat(aclFloat16 value)
{
    uint16_t sign = value & 0x8000u, exponent = (value >> 10) & 0x1Fu, mantissa = value & 0x3FFu;
    float magnitude;
    if (exponent == 0x1F)
        magnitude = mantissa ? 98304.0f : 65536.0f;
    else if (exponent == 0)
        magnitude = ldexpf((float)mantissa, -24);
    else
        magnitude = ldexpf((float)(mantissa | 0x400u), (int)exponent - 25);
    return sign ? -magnitude : magnitude;
}

struct aclDataBuffer {
    void *data;
    size_t size;
};

OPEMU_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *buffer = malloc(sizeof *buffer);
    buffer->data = data;
    buffer->size = size;
    opemu_handle_add(buffer, OPEMU_KIND_DATA_BUFFER);
    return buffer;
}

OPEMU_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (dataBuffer == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][dataBuffer]param must not be null.");
    if (!opemu_handle_is(dataBuffer, OPEMU_KIND_DATA_BUFFER))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: %p is not a live data buffer", (void *)dataBuffer);
    opemu_handle_remove(dataBuffer);
    free((void *)dataBuffer);
    return ACL_SUCCESS;
}

OPEMU_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return opemu_handle_is(dataBuffer, OPEMU_KIND_DATA_BUFFER) ? dataBuffer->data : NULL;
}

OPEMU_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return opemu_handle_is(dataBuffer, OPEMU_KIND_DATA_BUFFER) ? dataBuffer->size : 0;
}
