/*
 * op::fp16_t: the IEEE binary16 host type of the aclnn operator API (opdev/fp16_t.h).
 *
 * Declared as the vendor declares it: the members the vendor defines inline are inline here, the
 * others are only declared and live in libnnopbase (csrc/fp16_t.cpp), so a program built against
 * this header references the vendor's mangled names. The helper constants, macros and templates
 * are public in the vendor header and are kept with the vendor's values. C++ only.
 */
#ifndef _FP16_T_HPP_
#define _FP16_T_HPP_

#ifndef __cplusplus
#error "aclnn/opdev/fp16_t.h is a C++ header"
#endif

#include <algorithm>
#include <cmath>
#include <math.h>
#include <stdint.h>

namespace op {
struct bfloat16;

const uint16_t DIM_0 = 0;
const uint16_t DIM_1 = 1;
const uint16_t DIM_2 = 2;
const uint16_t DIM_3 = 3;
const uint16_t DIM_4 = 4;
const uint16_t DIM_5 = 5;
const uint16_t DIM_6 = 6;
const uint16_t DIM_7 = 7;
const uint16_t DIM_8 = 8;
const uint16_t DIM_9 = 9;
const uint16_t DIM_10 = 10;
const uint16_t DIM_11 = 11;
const uint16_t DIM_12 = 12;
const uint16_t DIM_13 = 13;
const uint16_t DIM_14 = 14;
const uint16_t DIM_15 = 15;
const uint16_t DIM_16 = 16;

const uint16_t BitShift_2 = 2;
const uint16_t BitShift_3 = 3;
const uint16_t BitShift_4 = 4;
const uint16_t BitShift_5 = 5;
const uint16_t BitShift_6 = 6;
const uint16_t BitShift_7 = 7;
const uint16_t BitShift_8 = 8;
const uint16_t BitShift_9 = 9;
const uint16_t BitShift_10 = 10;
const uint16_t BitShift_12 = 12;
const uint16_t BitShift_13 = 13;
const uint16_t BitShift_14 = 14;
const uint16_t BitShift_15 = 15;
const uint16_t BitShift_16 = 16;
const uint16_t BitShift_20 = 20;
const uint16_t BitShift_24 = 24;
const uint16_t BitShift_27 = 27;
const uint16_t BitShift_28 = 28;
const uint16_t BitShift_31 = 31;
const uint16_t BitShift_32 = 32;
const uint16_t BitShift_36 = 36;
const uint16_t BitShift_40 = 40;
const uint16_t BitShift_44 = 44;
const uint16_t BitShift_48 = 48;
const uint16_t BitShift_52 = 52;
const uint16_t BitShift_56 = 56;
const uint16_t BitShift_59 = 59;
const uint16_t BitShift_60 = 60;
const uint16_t BitShift_63 = 63;
const uint16_t BitShift_64 = 64;
const uint16_t BitShift_128 = 128;
const uint16_t BitShift_255 = 255;
const uint16_t BitShift_256 = 256;
const uint16_t BitShift_512 = 512;
const uint16_t BitShift_768 = 768;
const uint16_t BitShift_784 = 784;
const uint16_t BitShift_1020 = 1020;
const uint16_t BitShift_1024 = 1024;
const uint16_t BitShift_3136 = 3136;
const uint16_t BitShift_4096 = 4096;
const uint16_t BitShift_6144 = 6144;
const uint16_t BitShift_10240 = 10240;

/* binary16 layout: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits. */
#define FP16_EXP_BIAS (15)
#define FP16_EXP_LEN (5)
#define FP16_MAN_LEN (10)
#define FP16_SIGN_INDEX (15)
#define FP16_SIGN_MASK (0x8000)
#define FP16_EXP_MASK (0x7C00)
#define FP16_MAN_MASK (0x03FF)
#define FP16_MAN_HIDE_BIT (0x0400)
#define FP16_MAX (0x7BFF)
#define FP16_MIN (0xFBFF)
#define FP16_ABS_MAX (0x7FFF)
#define FP16_MAX_EXP (0x001F)
#define FP16_MAX_VALID_EXP (0x001E)
#define FP16_MAX_MAN (0x03FF)
#define FP16_MIN_NORMAL ((1.0f / (2 << 14)))

#define FP16_EXTRAC_SIGN(x) (((x) >> 15) & 1)
#define FP16_EXTRAC_EXP(x) (((x) >> 10) & FP16_MAX_EXP)
/* The mantissa with the implicit leading bit of a normal number made explicit. */
#define FP16_EXTRAC_MAN(x) ((((x) >> 0) & 0x3FF) | (((((x) >> 10) & 0x1F) > 0 ? 1 : 0) * 0x400))
#define FP16_CONSTRUCTOR(s, e, m) \
    (static_cast<uint16_t>(((s) << FP16_SIGN_INDEX) | ((e) << FP16_MAN_LEN) | ((m) & FP16_MAX_MAN)))

#define FP16_IS_ZERO(x) (((x) & FP16_ABS_MAX) == 0)
#define FP16_IS_DENORM(x) ((((x) & FP16_EXP_MASK) == 0))
/* As the vendor defines it: true for the all-ones NaN pattern only, not for infinity (see IsInf). */
#define FP16_IS_INF(x) (((x) & FP16_ABS_MAX) == FP16_ABS_MAX)
#define FP16_IS_NAN(x) ((((x) & FP16_EXP_MASK) == FP16_EXP_MASK) && ((x) & FP16_MAN_MASK))
#define FP16_IS_INVALID(x) (((x) & FP16_EXP_MASK) == FP16_EXP_MASK)

/* binary32 layout: 1 sign bit, 8 exponent bits (bias 127), 23 mantissa bits. */
#define FP32_EXP_BIAS (127)
#define FP32_EXP_LEN (8)
#define FP32_MAN_LEN (23)
#define FP32_SIGN_INDEX (31)
#define FP32_SIGN_MASK (0x80000000u)
#define FP32_EXP_MASK (0x7F800000u)
#define FP32_MAN_MASK (0x007FFFFFu)
#define FP32_MAN_HIDE_BIT (0x00800000u)
#define FP32_ABS_MAX (0x7FFFFFFFu)
#define FP32_MAX_EXP (0xFF)
#define FP32_MAX_MAN (0x7FFFFF)
#define FP32_IS_NAN(x) ((((x) & FP32_EXP_MASK) == FP32_EXP_MASK) && ((x) & FP32_MAN_MASK))
#define FP32_IS_INF(x) ((((x) & FP32_EXP_MASK) == FP32_EXP_MASK) && (!((x) & FP32_MAN_MASK)))
#define FP32_IS_DENORM(x) ((((x) & FP32_EXP_MASK) == 0))
#define FP32_EXTRAC_SIGN(x) (((x) >> FP32_SIGN_INDEX) & 1)
#define FP32_EXTRAC_EXP(x) (((x) & FP32_EXP_MASK) >> FP32_MAN_LEN)
#define FP32_EXTRAC_MAN(x) \
    (((x) & FP32_MAN_MASK) | (((((x) >> FP32_MAN_LEN) & FP32_MAX_EXP) > 0 ? 1 : 0) * FP32_MAN_HIDE_BIT))
#define FP32_CONSTRUCTOR(s, e, m) (((s) << FP32_SIGN_INDEX) | ((e) << FP32_MAN_LEN) | ((m) & FP32_MAX_MAN))

/* binary64 layout: 1 sign bit, 11 exponent bits (bias 1023), 52 mantissa bits. */
#define FP64_EXP_BIAS (1023)
#define FP64_EXP_LEN (11)
#define FP64_MAN_LEN (52)
#define FP64_SIGN_INDEX (63)
#define FP64_SIGN_MASK (0x8000000000000000LLu)
#define FP64_EXP_MASK (0x7FF0000000000000LLu)
#define FP64_MAN_MASK (0x000FFFFFFFFFFFFFLLu)
#define FP64_MAN_HIDE_BIT (0x0010000000000000LLu)
#define FP64_ABS_MAX (0x7FFFFFFFFFFFFFFFLLu)
#define FP64_MAX_EXP (0x07FF)
/* The vendor's value (44 bits set, not 52). */
#define FP64_MAX_MAN (0xFFFFFFFFFFFLLu)
#define FP64_IS_NAN(x) ((((x) & FP64_EXP_MASK) == FP64_EXP_MASK) && ((x) & FP64_MAN_MASK))
#define FP64_IS_INF(x) ((((x) & FP64_EXP_MASK) == FP64_EXP_MASK) && (!((x) & FP64_MAN_MASK)))

#define INT8_T_MAX (0x7F)
#define BIT_LEN8_MAX (0xFF)
#define INT16_T_MAX (0x7FFF)
#define BIT_LEN16_MAX (0xFFFF)
#define INT32_T_MAX (0x7FFFFFFFu)
#define BIT_LEN32_MAX (0xFFFFFFFFu)

typedef enum tagFp16RoundMode {
    ROUND_TO_NEAREST = 0,
    ROUND_BY_TRUNCATED,
    ROUND_MODE_RESERVED,
} fp16RoundMode_t;

typedef struct tagFp16 {
    uint16_t val;

public:
    tagFp16(void) : val(0) {}

    // Any numeric type, through the matching assignment operator below.
    template <typename T>
    tagFp16(const T& value) : val(0)
    {
        *this = value;
    }

    tagFp16(const bfloat16& value);

    // A uint16_t is taken as the raw bit pattern (the assignment from uint16_t converts the number).
    constexpr tagFp16(const uint16_t& uiVal) : val(uiVal) {}

    tagFp16(const tagFp16& fp) : val(fp.val) {}

    tagFp16 operator+(const tagFp16 fp);
    tagFp16 operator-(const tagFp16 fp);
    tagFp16 operator*(const tagFp16 fp);
    tagFp16 operator/(const tagFp16 fp);
    tagFp16 operator+=(const tagFp16 fp);
    tagFp16 operator-=(const tagFp16 fp);
    tagFp16 operator*=(const tagFp16 fp);
    tagFp16 operator/=(const tagFp16 fp);

    bool operator==(const tagFp16& fp) const;
    bool operator!=(const tagFp16& fp) const;
    bool operator>(const tagFp16& fp) const;
    bool operator>=(const tagFp16& fp) const;
    bool operator<(const tagFp16& fp) const;
    bool operator<=(const tagFp16& fp) const;

    tagFp16& operator=(const tagFp16& fp);
    tagFp16& operator=(const float& fVal);
    tagFp16& operator=(const double& dVal);
    tagFp16& operator=(const int8_t& iVal);
    tagFp16& operator=(const uint8_t& uiVal);
    tagFp16& operator=(const int16_t& iVal);
    tagFp16& operator=(const uint16_t& uiVal);
    tagFp16& operator=(const int32_t& iVal);
    tagFp16& operator=(const uint32_t& uiVal);
    tagFp16& operator=(const int64_t& iVal);
    tagFp16& operator=(const uint64_t& uiVal);

    operator float() const;
    operator bfloat16() const;
    operator double() const;
    operator int8_t() const;
    operator uint8_t() const;
    operator int16_t() const;
    operator uint16_t() const;
    operator int32_t() const;
    operator uint32_t() const;
    operator int64_t() const;
    operator uint64_t() const;
    operator bool() const;

    // 1 for +inf, -1 for -inf, 0 otherwise.
    int IsInf();

    float toFloat();
    double toDouble();
    int8_t toInt8();
    uint8_t toUInt8();
    int16_t toInt16();
    uint16_t toUInt16();
    int32_t toInt32();
    uint32_t toUInt32();
} fp16_t;

// Sign, exponent field (1 for zeros and subnormals) and mantissa with the implicit bit of val.
void ExtractFP16(const uint16_t& val, uint16_t* s, int16_t* e, uint16_t* m);

// Two's complement of *man when negative.
template <typename T>
void ReverseMan(bool negative, T* man)
{
    if (negative) {
        *man = static_cast<T>(~(*man) + 1);
    }
}

// The mantissa whose exponent is the smaller (the one to align).
template <typename T>
T* MinMan(const int16_t& ea, T* ma, const int16_t& eb, T* mb)
{
    return ea > eb ? mb : ma;
}

// Right shift that keeps the top bit set when it is set (sign-extending for two's complement).
template <typename T>
T RightShift(T man, int16_t shift)
{
    const T top = static_cast<T>(static_cast<T>(1u) << (sizeof(T) * 8 - 1));
    for (int16_t i = 0; i < shift; ++i) {
        man = static_cast<T>((man & top) | (man >> 1));
    }
    return man;
}

// Sum of two mantissas after shifting the one with the smaller exponent to the other's.
template <typename T>
T GetManSum(int16_t ea, const T& ma, int16_t eb, const T& mb)
{
    if (ea > eb) {
        return static_cast<T>(ma + RightShift(mb, static_cast<int16_t>(ea - eb)));
    }
    if (ea < eb) {
        return static_cast<T>(RightShift(ma, static_cast<int16_t>(eb - ea)) + mb);
    }
    return static_cast<T>(ma + mb);
}

// man >> shift, plus one when the dropped part is above one half, or exactly one half and the kept
// last bit is odd: bit0 is that last kept bit, bit1 the first dropped bit, bitLeft any lower one.
template <typename T>
T ManRoundToNearest(bool bit0, bool bit1, bool bitLeft, T man, uint16_t shift = 0)
{
    return static_cast<T>((man >> shift) + ((bit1 && (bitLeft || bit0)) ? 1 : 0));
}

// Number of significant bits of man.
template <typename T>
int16_t GetManBitLength(T man)
{
    int16_t length = 0;
    for (; man != 0; man >>= 1) {
        ++length;
    }
    return length;
}

// "scalar < half" and "scalar > half" compare in the scalar's type.
template <typename T>
bool operator<(T a, op::fp16_t b)
{
    return a < static_cast<T>(b);
}

template <typename T>
bool operator>(T a, op::fp16_t b)
{
    return a > static_cast<T>(b);
}
}  // namespace op

// The vendor header adds these two overloads to std.
namespace std {
inline bool isnan(op::fp16_t value)
{
    return FP16_IS_NAN(value.val);
}

inline float abs(op::fp16_t value)
{
    return std::abs(value.toFloat());
}
}  // namespace std

#endif /* _FP16_T_HPP_ */
