/*
 * op::Float8E4M3FN (opdev/float8_e4m3fn.h): the OCP FP8 E4M3FN type (1 sign, 4 exponent, 3 mantissa bits, bias 7): no infinity, NaN is
 * S.1111.111, largest magnitude 448.
 * The conversions and predicates are libnnopbase's (csrc/aclnn/opdev_types.cpp); the rest is inline
 * here as in the vendor's header. C++ only.
 */
#ifndef OP_API_FLOAT8_E4M3FN_H
#define OP_API_FLOAT8_E4M3FN_H

/* C++ only: a C translation unit sees nothing here (the build's C pass reads every public header). */
#ifdef __cplusplus

#include <cstdint>
#include <limits>
#include <ostream>

namespace op {

struct Float8E4M3FN {
    struct FromBitsTag {};
    static constexpr FromBitsTag FromBits() { return FromBitsTag(); }

    uint8_t value;

    static constexpr uint8_t NAN_VALUE = 0x7F;  // NaN
    static constexpr uint8_t HIGHEST_VALUE = 0x7E;  // 448
    static constexpr uint8_t LOWEST_VALUE = 0xFE;  // -448
    static constexpr uint8_t EPSILON_VALUE = 0x20;  // one mantissa step at 1.0
    static constexpr uint8_t MIN_POS_NORMAL_VALUE = 0x08;  // 2^-6

    constexpr Float8E4M3FN() : value(0) {}
    constexpr Float8E4M3FN(uint8_t bits, [[maybe_unused]] FromBitsTag fromBits) : value(bits) {}
    Float8E4M3FN(float v);

    operator float() const;
    operator double() const;

    static constexpr Float8E4M3FN Epsilon() { return Float8E4M3FN(EPSILON_VALUE, FromBits()); }
    static constexpr Float8E4M3FN Highest() { return Float8E4M3FN(HIGHEST_VALUE, FromBits()); }
    static constexpr Float8E4M3FN Lowest() { return Float8E4M3FN(LOWEST_VALUE, FromBits()); }
    static constexpr Float8E4M3FN MinPositiveNormal() { return Float8E4M3FN(MIN_POS_NORMAL_VALUE, FromBits()); }

    bool IsZero() const;
    bool IsNaN() const;
    bool IsInf() const;

private:
    union FP32 {
        uint32_t u;
        float f;
    };

    static float Float8E4M3FNToFloat(Float8E4M3FN x);
    static Float8E4M3FN FloatToFloat8E4M3FN(float f);
};

inline std::ostream& operator<<(std::ostream& os, const Float8E4M3FN& x)
{
    os << static_cast<float>(x);
    return os;
}

}  // namespace op

namespace std {

inline bool isinf(const op::Float8E4M3FN& a [[maybe_unused]]) { return false; }
inline bool isnan(const op::Float8E4M3FN& a) { return a.IsNaN(); }
inline bool isfinite(const op::Float8E4M3FN& a) { return !a.IsNaN(); }

template <>
class numeric_limits<op::Float8E4M3FN> {
public:
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_bounded = true;
    static constexpr bool is_exact = false;
    static constexpr bool is_integer = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_modulo = false;
    static constexpr bool is_signed = true;
    static constexpr bool is_specialized = true;
    static constexpr int digits = 3;
    static constexpr int digits10 = 0;
    static constexpr int max_digits10 = 2;
    static constexpr int min_exponent = -6;
    static constexpr int min_exponent10 = -1;
    static constexpr int max_exponent = 9;
    static constexpr int max_exponent10 = 2;
    static constexpr int radix = 2;
    static constexpr float round_error() { return 0.5f; }
    static constexpr float denorm_min() { return 0.001953125f; }
    static constexpr op::Float8E4M3FN min() { return op::Float8E4M3FN::MinPositiveNormal(); }
    static constexpr op::Float8E4M3FN lowest() { return op::Float8E4M3FN::Lowest(); }
    static constexpr op::Float8E4M3FN max() { return op::Float8E4M3FN::Highest(); }
    static constexpr op::Float8E4M3FN epsilon() { return op::Float8E4M3FN::Epsilon(); }
    static constexpr op::Float8E4M3FN infinity() { return op::Float8E4M3FN::Highest(); }
    static constexpr op::Float8E4M3FN quiet_NaN() { return op::Float8E4M3FN(op::Float8E4M3FN::NAN_VALUE, op::Float8E4M3FN::FromBits()); }
    static constexpr op::Float8E4M3FN signaling_NaN() { return quiet_NaN(); }
};

}  // namespace std

#endif  /* __cplusplus */
#endif  /* OP_API_FLOAT8_E4M3FN_H */
