/*
 * op::Float4E2M1 (opdev/float4_e2m1.h): the OCP MX FP4 E2M1 type (1 sign, 2 exponent, 1 mantissa bit, bias 1): no infinity and no NaN,
 * largest magnitude 6.0.
 * The conversions and predicates are libnnopbase's (csrc/aclnn/opdev_types.cpp); the rest is inline
 * here as in the vendor's header. C++ only.
 */
#ifndef OP_API_FLOAT4_E2M1_H
#define OP_API_FLOAT4_E2M1_H

/* C++ only: a C translation unit sees nothing here (the build's C pass reads every public header). */
#ifdef __cplusplus

#include <cstdint>
#include <limits>
#include <ostream>

namespace op {

struct Float4E2M1 {
    struct FromBitsTag {};
    static constexpr FromBitsTag FromBits() { return FromBitsTag(); }

    uint8_t value;

    static constexpr uint8_t HIGHEST_VALUE = 0x07;  // 6.0
    static constexpr uint8_t LOWEST_VALUE = 0x0F;  // -6.0
    static constexpr uint8_t MIN_POS_NORMAL_VALUE = 0x02;  // 1.0
    static constexpr uint8_t BITS_MASK = 0x0F;  // the 4 bits that hold the value
    static constexpr uint8_t EPSILON_VALUE = 0x01;  // 0.5

    constexpr Float4E2M1() : value(0) {}
    constexpr Float4E2M1(uint8_t bits, [[maybe_unused]] FromBitsTag fromBits) : value(bits & BITS_MASK) {}
    Float4E2M1(float v);

    operator float() const;
    operator double() const;

    static constexpr Float4E2M1 Epsilon() { return Float4E2M1(EPSILON_VALUE, FromBits()); }
    static constexpr Float4E2M1 Highest() { return Float4E2M1(HIGHEST_VALUE, FromBits()); }
    static constexpr Float4E2M1 Lowest() { return Float4E2M1(LOWEST_VALUE, FromBits()); }
    static constexpr Float4E2M1 MinPositiveNormal() { return Float4E2M1(MIN_POS_NORMAL_VALUE, FromBits()); }

    bool IsZero() const;
    bool IsNaN() const;
    bool IsInf() const;

private:
    union FP32 {
        uint32_t u;
        float f;
    };

    static float Float4E2M1ToFloat(Float4E2M1 x);
    static Float4E2M1 FloatToFloat4E2M1(float f);
};

inline std::ostream& operator<<(std::ostream& os, const Float4E2M1& x)
{
    os << static_cast<float>(x);
    return os;
}

}  // namespace op

namespace std {

inline bool isinf(const op::Float4E2M1& a [[maybe_unused]]) { return false; }
inline bool isnan(const op::Float4E2M1& a [[maybe_unused]]) { return false; }
inline bool isfinite(const op::Float4E2M1& a [[maybe_unused]]) { return true; }

template <>
class numeric_limits<op::Float4E2M1> {
public:
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = false;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_bounded = true;
    static constexpr bool is_exact = false;
    static constexpr bool is_integer = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_modulo = false;
    static constexpr bool is_signed = true;
    static constexpr bool is_specialized = true;
    static constexpr int digits = 1;
    static constexpr int digits10 = 0;
    static constexpr int max_digits10 = 1;
    static constexpr int min_exponent = -2;
    static constexpr int min_exponent10 = 0;
    static constexpr int max_exponent = 2;
    static constexpr int max_exponent10 = 0;
    static constexpr int radix = 2;
    static constexpr float round_error() { return 0.5f; }
    static constexpr float denorm_min() { return 0.5f; }
    static constexpr op::Float4E2M1 min() { return op::Float4E2M1::MinPositiveNormal(); }
    static constexpr op::Float4E2M1 lowest() { return op::Float4E2M1::Lowest(); }
    static constexpr op::Float4E2M1 max() { return op::Float4E2M1::Highest(); }
    static constexpr op::Float4E2M1 epsilon() { return op::Float4E2M1::Epsilon(); }
    static constexpr op::Float4E2M1 infinity() { return op::Float4E2M1::Highest(); }
    static constexpr op::Float4E2M1 quiet_NaN() { return op::Float4E2M1(0x00, op::Float4E2M1::FromBits()); }
    static constexpr op::Float4E2M1 signaling_NaN() { return quiet_NaN(); }
};

}  // namespace std

#endif  /* __cplusplus */
#endif  /* OP_API_FLOAT4_E2M1_H */
