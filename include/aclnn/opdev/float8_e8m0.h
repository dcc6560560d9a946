/*
 * op::Float8E8M0 (opdev/float8_e8m0.h): the OCP MX scale type, an unsigned power of two (8 exponent
 * bits, bias 127, no mantissa): 0xFF is NaN, there is no infinity, and libnnopbase reads 0x00 as zero.
 * The conversions and predicates are libnnopbase's (csrc/aclnn/opdev_types.cpp). C++ only.
 */
#ifndef OP_API_FLOAT8_E8M0_H
#define OP_API_FLOAT8_E8M0_H

/* C++ only: a C translation unit sees nothing here (the build's C pass reads every public header). */
#ifdef __cplusplus

#include <cstdint>
#include <limits>
#include <ostream>

namespace op {

struct Float8E8M0 {
    struct FromBitsTag {};
    static constexpr FromBitsTag FromBits() { return FromBitsTag(); }

    uint8_t value;

    static constexpr uint8_t NAN_VALUE = 0xFF;           // NaN (the only special value)
    static constexpr uint8_t ONE_VALUE = 0x7F;           // 2^0
    static constexpr uint8_t HIGHEST_VALUE = 0xFE;       // 2^127
    static constexpr uint8_t MIN_POSITIVE_VALUE = 0x01;  // 2^-126

    constexpr Float8E8M0() : value(0) {}
    constexpr Float8E8M0(uint8_t bits, [[maybe_unused]] FromBitsTag fromBits) : value(bits) {}
    Float8E8M0(float v);

    operator float() const;
    operator double() const;

    // The step after 1.0 is 2.0: epsilon is 1.0.
    static constexpr Float8E8M0 Epsilon() { return Float8E8M0(ONE_VALUE, FromBits()); }
    static constexpr Float8E8M0 Highest() { return Float8E8M0(HIGHEST_VALUE, FromBits()); }
    // Unsigned: the lowest value is the smallest positive one.
    static constexpr Float8E8M0 Lowest() { return Float8E8M0::MinPositive(); }
    static constexpr Float8E8M0 MinPositive() { return Float8E8M0(MIN_POSITIVE_VALUE, FromBits()); }

    bool IsZero() const;
    bool IsNaN() const;
    bool IsInf() const;
    // The unbiased exponent (0 for zero and NaN).
    int32_t GetExponent() const;

private:
    static float Float8E8M0ToFloat(Float8E8M0 x);
    static Float8E8M0 FloatToFloat8E8M0(float f);
};

inline std::ostream& operator<<(std::ostream& os, const Float8E8M0& x)
{
    os << static_cast<float>(x);
    return os;
}

}  // namespace op

namespace std {

inline bool isinf(const op::Float8E8M0& a) { return a.IsInf(); }
inline bool isnan(const op::Float8E8M0& a) { return a.IsNaN(); }
inline bool isfinite(const op::Float8E8M0& a) { return !a.IsNaN(); }

template <>
class numeric_limits<op::Float8E8M0> {
public:
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_bounded = true;
    static constexpr bool is_exact = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_modulo = false;
    static constexpr bool is_signed = false;
    static constexpr bool is_specialized = true;
    static constexpr int digits = 0;
    static constexpr int digits10 = 0;
    static constexpr int max_digits10 = 0;
    static constexpr int min_exponent = -126;
    static constexpr int min_exponent10 = -38;
    static constexpr int max_exponent = 127;
    static constexpr int max_exponent10 = 38;
    static constexpr int radix = 2;
    static constexpr float round_error() { return 1.0f; }
    static constexpr float denorm_min() { return 0.0f; }
    static constexpr op::Float8E8M0 min() { return op::Float8E8M0::MinPositive(); }
    static constexpr op::Float8E8M0 lowest() { return op::Float8E8M0::MinPositive(); }
    static constexpr op::Float8E8M0 max() { return op::Float8E8M0::Highest(); }
    static constexpr op::Float8E8M0 epsilon() { return op::Float8E8M0::Epsilon(); }
    // No infinity: the largest value stands in.
    static constexpr op::Float8E8M0 infinity() { return op::Float8E8M0::Highest(); }
    static constexpr op::Float8E8M0 quiet_NaN() { return op::Float8E8M0(op::Float8E8M0::NAN_VALUE, op::Float8E8M0::FromBits()); }
    static constexpr op::Float8E8M0 signaling_NaN() { return quiet_NaN(); }
};

}  // namespace std

#endif  /* __cplusplus */
#endif  /* OP_API_FLOAT8_E8M0_H */
