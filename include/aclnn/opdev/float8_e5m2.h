/*
 * op::Float8E5M2 (opdev/float8_e5m2.h): the OCP FP8 E5M2 type (1 sign, 5 exponent, 2 mantissa bits, bias 15): IEEE-like, with
 * infinities and NaNs, largest finite magnitude 57344.
 * The conversions and predicates are libnnopbase's (csrc/aclnn/opdev_types.cpp); the rest is inline
 * here as in the vendor's header. C++ only.
 */
#ifndef OP_API_FLOAT8_E5M2_H
#define OP_API_FLOAT8_E5M2_H

/* C++ only: a C translation unit sees nothing here (the build's C pass reads every public header). */
#ifdef __cplusplus

#include <cstdint>
#include <limits>
#include <ostream>

namespace op {

struct Float8E5M2 {
    struct FromBitsTag {};
    static constexpr FromBitsTag FromBits() { return FromBitsTag(); }

    uint8_t value;

    static constexpr uint8_t INF_VALUE = 0x7C;  // +infinity
    static constexpr uint8_t NAN_VALUE = 0x7F;  // NaN
    static constexpr uint8_t HIGHEST_VALUE = 0x7B;  // 57344
    static constexpr uint8_t LOWEST_VALUE = 0xFB;  // -57344
    static constexpr uint8_t EPSILON_VALUE = 0x34;  // one mantissa step at 1.0
    static constexpr uint8_t MIN_POS_NORMAL_VALUE = 0x04;  // 2^-14

    constexpr Float8E5M2() : value(0) {}
    constexpr Float8E5M2(uint8_t bits, [[maybe_unused]] FromBitsTag fromBits) : value(bits) {}
    Float8E5M2(float v);

    operator float() const;
    operator double() const;

    static constexpr Float8E5M2 Epsilon() { return Float8E5M2(EPSILON_VALUE, FromBits()); }
    static constexpr Float8E5M2 Highest() { return Float8E5M2(HIGHEST_VALUE, FromBits()); }
    static constexpr Float8E5M2 Lowest() { return Float8E5M2(LOWEST_VALUE, FromBits()); }
    static constexpr Float8E5M2 MinPositiveNormal() { return Float8E5M2(MIN_POS_NORMAL_VALUE, FromBits()); }

    bool IsZero() const;
    bool IsNaN() const;
    bool IsInf() const;

private:
    union FP32 {
        uint32_t u;
        float f;
    };

    static float Float8E5M2ToFloat(Float8E5M2 x);
    static Float8E5M2 FloatToFloat8E5M2(float f);
};

inline std::ostream& operator<<(std::ostream& os, const Float8E5M2& x)
{
    os << static_cast<float>(x);
    return os;
}

}  // namespace op

namespace std {

inline bool isinf(const op::Float8E5M2& a) { return a.IsInf(); }
inline bool isnan(const op::Float8E5M2& a) { return a.IsNaN(); }
inline bool isfinite(const op::Float8E5M2& a) { return !a.IsNaN() && !a.IsInf(); }

template <>
class numeric_limits<op::Float8E5M2> {
public:
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_bounded = true;
    static constexpr bool is_exact = false;
    static constexpr bool is_integer = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_modulo = false;
    static constexpr bool is_signed = true;
    static constexpr bool is_specialized = true;
    static constexpr int digits = 2;
    static constexpr int digits10 = 0;
    static constexpr int max_digits10 = 1;
    static constexpr int min_exponent = -14;
    static constexpr int min_exponent10 = -4;
    static constexpr int max_exponent = 16;
    static constexpr int max_exponent10 = 4;
    static constexpr int radix = 2;
    static constexpr float round_error() { return 0.5f; }
    static constexpr float denorm_min() { return 0.0000152587890625f; }
    static constexpr op::Float8E5M2 min() { return op::Float8E5M2::MinPositiveNormal(); }
    static constexpr op::Float8E5M2 lowest() { return op::Float8E5M2::Lowest(); }
    static constexpr op::Float8E5M2 max() { return op::Float8E5M2::Highest(); }
    static constexpr op::Float8E5M2 epsilon() { return op::Float8E5M2::Epsilon(); }
    static constexpr op::Float8E5M2 infinity() { return op::Float8E5M2(op::Float8E5M2::INF_VALUE, op::Float8E5M2::FromBits()); }
    static constexpr op::Float8E5M2 quiet_NaN() { return op::Float8E5M2(op::Float8E5M2::NAN_VALUE, op::Float8E5M2::FromBits()); }
    static constexpr op::Float8E5M2 signaling_NaN() { return quiet_NaN(); }
};

}  // namespace std

#endif  /* __cplusplus */
#endif  /* OP_API_FLOAT8_E5M2_H */
