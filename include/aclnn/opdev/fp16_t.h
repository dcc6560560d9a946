/*
 * op::fp16_t — IEEE 754 binary16 host type used by the aclnn samples.
 * The vendor defines most members out of line in libnnopbase; here everything is inline so
 * the header works on its own. C++ only. Arithmetic and comparisons go through float.
 */
#ifndef _FP16_T_HPP_
#define _FP16_T_HPP_

#ifndef __cplusplus
#error "aclnn/opdev/fp16_t.h is a C++ header"
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace op {

typedef enum tagFp16RoundMode {
    ROUND_TO_NEAREST = 0,
    ROUND_BY_TRUNCATED,
    ROUND_MODE_RESERVED,
} fp16RoundMode_t;

namespace fp16_detail {

// Direct double -> binary16 with round-to-nearest-even. Going through float first would
// round twice and can be off by one ulp.
inline uint16_t DoubleToHalfBits(double d)
{
    uint64_t b;
    std::memcpy(&b, &d, sizeof(b));
    const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000U);
    const int exp = static_cast<int>((b >> 52) & 0x7FFU);
    const uint64_t man = b & 0x000FFFFFFFFFFFFFULL;

    if (exp == 0x7FF) {
        if (man == 0) {
            return static_cast<uint16_t>(sign | 0x7C00U);
        }
        // Quiet NaN, keeping the top payload bits.
        return static_cast<uint16_t>(sign | 0x7E00U | static_cast<uint16_t>((man >> 42) & 0x01FFU));
    }
    if (exp == 0) {
        return sign;  // double zero/subnormal is far below half's smallest subnormal
    }
    const int e = exp - 1023 + 15;  // biased half exponent
    if (e >= 31) {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    const uint64_t m = man | (1ULL << 52);  // 53 significant bits
    // Keep 11 bits (hidden + 10) for normals; subnormals lose (1 - e) more.
    const int shift = (e > 0) ? 42 : 42 + (1 - e);
    if (shift > 63) {
        return sign;
    }
    uint64_t q = m >> shift;
    const uint64_t rem = m & ((1ULL << shift) - 1ULL);
    const uint64_t halfway = 1ULL << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1ULL) != 0)) {
        ++q;
    }
    if (e <= 0) {
        // q may round up to 0x400, which is exactly the smallest normal's encoding.
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
    }
    // q is in [0x400, 0x800]; adding it to (e-1)<<10 carries a mantissa overflow into the
    // exponent, and exponent 31 with zero mantissa is +-inf as required.
    const uint32_t bits = (static_cast<uint32_t>(e - 1) << 10) + static_cast<uint32_t>(q);
    if (bits >= 0x7C00U) {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(bits));
}

inline float HalfBitsToFloat(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    const uint32_t exp = (h >> 10) & 0x1FU;
    const uint32_t man = h & 0x03FFU;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            // Subnormal: man * 2^-24 is exact in float.
            const float mag = static_cast<float>(man) * 5.9604644775390625e-8F;
            return (sign != 0) ? -mag : mag;
        }
    } else if (exp == 0x1FU) {
        bits = sign | 0x7F800000U | (man << 13);
    } else {
        bits = sign | ((exp + 112U) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

// float -> integer with NaN -> 0 and saturation, since out-of-range casts are undefined.
template <typename I>
inline I FloatToInt(float f)
{
    if (f != f) {
        return 0;
    }
    const float lo = static_cast<float>(std::numeric_limits<I>::min());
    const float hi = static_cast<float>(std::numeric_limits<I>::max());
    if (f <= lo) {
        return std::numeric_limits<I>::min();
    }
    if (f >= hi) {
        return std::numeric_limits<I>::max();
    }
    return static_cast<I>(f);
}

}  // namespace fp16_detail

typedef struct tagFp16 {
    uint16_t val;

public:
    constexpr tagFp16() : val(0) {}

    // Numeric conversion from any type that has an operator= below.
    template <typename T>
    tagFp16(const T& value) : val(0)
    {
        *this = value;
    }

    // Raw bit pattern. As a non-template it wins over the template for exact uint16_t arguments.
    constexpr tagFp16(const uint16_t& ui_val) : val(ui_val) {}

    tagFp16 operator+(const tagFp16& fp) const { return tagFp16(ToFloat() + fp.ToFloat()); }
    tagFp16 operator-(const tagFp16& fp) const { return tagFp16(ToFloat() - fp.ToFloat()); }
    tagFp16 operator*(const tagFp16& fp) const { return tagFp16(ToFloat() * fp.ToFloat()); }
    tagFp16 operator/(const tagFp16& fp) const { return tagFp16(ToFloat() / fp.ToFloat()); }
    tagFp16 operator-() const { return FromBits(static_cast<uint16_t>(val ^ 0x8000U)); }

    tagFp16& operator+=(const tagFp16& fp) { return *this = *this + fp; }
    tagFp16& operator-=(const tagFp16& fp) { return *this = *this - fp; }
    tagFp16& operator*=(const tagFp16& fp) { return *this = *this * fp; }
    tagFp16& operator/=(const tagFp16& fp) { return *this = *this / fp; }

    bool operator==(const tagFp16& fp) const { return ToFloat() == fp.ToFloat(); }
    bool operator!=(const tagFp16& fp) const { return ToFloat() != fp.ToFloat(); }
    bool operator>(const tagFp16& fp) const { return ToFloat() > fp.ToFloat(); }
    bool operator>=(const tagFp16& fp) const { return ToFloat() >= fp.ToFloat(); }
    bool operator<(const tagFp16& fp) const { return ToFloat() < fp.ToFloat(); }
    bool operator<=(const tagFp16& fp) const { return ToFloat() <= fp.ToFloat(); }

    tagFp16& operator=(const float& fVal) { return SetDouble(static_cast<double>(fVal)); }
    tagFp16& operator=(const double& dVal) { return SetDouble(dVal); }
    // Integer assignments convert the numeric value (including uint16_t, unlike the constructor).
    tagFp16& operator=(const int8_t& iVal) { return SetDouble(static_cast<double>(iVal)); }
    tagFp16& operator=(const uint8_t& uiVal) { return SetDouble(static_cast<double>(uiVal)); }
    tagFp16& operator=(const int16_t& iVal) { return SetDouble(static_cast<double>(iVal)); }
    tagFp16& operator=(const uint16_t& uiVal) { return SetDouble(static_cast<double>(uiVal)); }
    tagFp16& operator=(const int32_t& iVal) { return SetDouble(static_cast<double>(iVal)); }
    tagFp16& operator=(const uint32_t& uiVal) { return SetDouble(static_cast<double>(uiVal)); }
    // Values too large for an exact double are far above 65504, so the result is inf either way.
    tagFp16& operator=(const int64_t& iVal) { return SetDouble(static_cast<double>(iVal)); }
    tagFp16& operator=(const uint64_t& uiVal) { return SetDouble(static_cast<double>(uiVal)); }

    operator float() const { return ToFloat(); }
    operator double() const { return static_cast<double>(ToFloat()); }
    operator int8_t() const { return fp16_detail::FloatToInt<int8_t>(ToFloat()); }
    operator uint8_t() const { return fp16_detail::FloatToInt<uint8_t>(ToFloat()); }
    operator int16_t() const { return fp16_detail::FloatToInt<int16_t>(ToFloat()); }
    operator uint16_t() const { return fp16_detail::FloatToInt<uint16_t>(ToFloat()); }
    operator int32_t() const { return fp16_detail::FloatToInt<int32_t>(ToFloat()); }
    operator uint32_t() const { return fp16_detail::FloatToInt<uint32_t>(ToFloat()); }
    operator int64_t() const { return fp16_detail::FloatToInt<int64_t>(ToFloat()); }
    operator uint64_t() const { return fp16_detail::FloatToInt<uint64_t>(ToFloat()); }
    operator bool() const { return (val & 0x7FFFU) != 0; }

    // 1: +inf, -1: -inf, 0: anything else.
    int IsInf() const
    {
        if ((val & 0x7FFFU) != 0x7C00U) {
            return 0;
        }
        return ((val & 0x8000U) != 0) ? -1 : 1;
    }

    float toFloat() const { return ToFloat(); }
    double toDouble() const { return static_cast<double>(ToFloat()); }
    int8_t toInt8() const { return static_cast<int8_t>(*this); }
    uint8_t toUInt8() const { return static_cast<uint8_t>(*this); }
    int16_t toInt16() const { return static_cast<int16_t>(*this); }
    uint16_t toUInt16() const { return static_cast<uint16_t>(*this); }
    int32_t toInt32() const { return static_cast<int32_t>(*this); }
    uint32_t toUInt32() const { return static_cast<uint32_t>(*this); }

private:
    float ToFloat() const { return fp16_detail::HalfBitsToFloat(val); }

    tagFp16& SetDouble(double d)
    {
        val = fp16_detail::DoubleToHalfBits(d);
        return *this;
    }

    static tagFp16 FromBits(uint16_t bits)
    {
        tagFp16 r;
        r.val = bits;
        return r;
    }
} fp16_t;

// Without these, "scalar < fp16" is ambiguous between the built-in comparisons.
template <typename T>
inline bool operator<(T a, op::fp16_t b)
{
    return a < static_cast<T>(b);
}

template <typename T>
inline bool operator>(T a, op::fp16_t b)
{
    return a > static_cast<T>(b);
}

}  // namespace op

// The vendor header adds these two overloads to std; code written against it calls them.
namespace std {
inline bool isnan(op::fp16_t value)
{
    return ((value.val & 0x7C00U) == 0x7C00U) && ((value.val & 0x03FFU) != 0);
}

inline float abs(op::fp16_t value)
{
    return std::abs(value.toFloat());
}
}  // namespace std

#endif /* _FP16_T_HPP_ */
