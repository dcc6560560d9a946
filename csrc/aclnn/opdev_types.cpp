// The members of the narrow opdev float types libnnopbase defines (opdev/float4_e2m1.h,
// float8_e4m3fn.h, float8_e5m2.h, float8_e8m0.h, hifloat8.h declare them), with the results of the
// vendor's implementation (hicann/opbase src/nnopbase/common/utils/), bit for bit. Where it is not what
// an IEEE-minded reader expects, ours follows it:
//   - From float, FP4 E2M1 and FP8 E4M3FN/E5M2 round the normalised mantissa to nearest-even first and
//     then, for a result below the normal range, shift it right, truncating: one rounding at the normal
//     precision, none at the subnormal one.
//   - Overflow saturates (FP4, E4M3FN: to the largest finite value) or gives infinity (E5M2). For E4M3FN
//     every value whose exponent reaches the top field (>= 256) saturates to 448, although 256..448 are
//     representable. Infinities saturate alike; a NaN becomes FP4's largest value (it has no NaN), and
//     E4M3FN's/E5M2's positive NaN pattern.
//   - E8M0 rounds the exponent up when the mantissa is at least one half, maps negatives to NaN, zero and
//     subnormals below 2^-127 to 0x00 (which reads back as zero), and saturates at 2^127.
//   - HiFloat8 rounds half away from zero at the mantissa width its exponent leaves; magnitudes below
//     2^-23 become +0 (the sign is dropped), above 2^15 infinity; its 0x80 NaN pattern also counts as
//     zero for IsZero (the predicate masks the sign).
#pragma GCC visibility push(default)
#include "aclnn/opdev/float4_e2m1.h"
#include "aclnn/opdev/float8_e4m3fn.h"
#include "aclnn/opdev/float8_e5m2.h"
#include "aclnn/opdev/float8_e8m0.h"
#include "aclnn/opdev/hifloat8.h"
#pragma GCC visibility pop

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace op {
namespace {

uint32_t BitsOf(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// A sign/exponent/mantissa byte format: its field widths, its bias, the exponent field from which a
// value saturates, and the patterns overflow and NaN give.
struct Minifloat {
    int expBits;
    int manBits;
    int bias;
    int overflowExp;       // a rounded exponent at or above this saturates
    uint8_t overflowBits;  // the magnitude overflow and infinity give
    uint8_t nanBits;       // what a NaN becomes
    int signShift() const { return expBits + manBits; }
    uint8_t manMask() const { return static_cast<uint8_t>((1u << manBits) - 1); }
    uint8_t magnitudeMask() const { return static_cast<uint8_t>((1u << signShift()) - 1); }
};

const Minifloat kE2M1 = {2, 1, 1, 4, 0x07, 0x07};
const Minifloat kE4M3FN = {4, 3, 7, 15, 0x7E, 0x7F};
const Minifloat kE5M2 = {5, 2, 15, 31, 0x7C, 0x7F};

uint8_t Encode(const Minifloat& t, float f)
{
    if (std::isnan(f)) {
        return t.nanBits;
    }
    const uint32_t u = BitsOf(f);
    const uint8_t sign = static_cast<uint8_t>((u >> 31) << t.signShift());
    uint32_t field = (u >> 23) & 0xFF;
    uint32_t man = u & 0x7FFFFF;
    if (field == 0 && man == 0) {
        return sign;
    }
    if (std::isinf(f)) {
        return sign | t.overflowBits;
    }
    int exp;
    if (field == 0) {  // a float subnormal: normalise it
        exp = 1 - 127 + t.bias;
        while ((man & 0x800000) == 0) {
            man <<= 1;
            exp--;
        }
        man &= 0x7FFFFF;
    } else {
        exp = static_cast<int>(field) - 127 + t.bias;
    }
    const int drop = 23 - t.manBits;
    const uint32_t half = (man >> (drop - 1)) & 1;
    const uint32_t sticky = (man & ((1u << (drop - 1)) - 1)) != 0;
    uint32_t kept = man >> drop;
    if (half && (sticky || (kept & 1))) {
        kept++;
        if (kept > t.manMask()) {
            kept = 0;
            exp++;
        }
    }
    if (exp <= 0) {
        if (exp < -t.manBits) {
            return sign;
        }
        kept = (kept | (1u << t.manBits)) >> (1 - exp);
        exp = 0;
    } else if (exp >= t.overflowExp) {
        return sign | t.overflowBits;
    }
    return static_cast<uint8_t>(sign | (exp << t.manBits) | (kept & t.manMask()));
}

// The exact value of a finite, non-NaN pattern.
float Decode(const Minifloat& t, uint8_t bits)
{
    const float sign = (bits >> t.signShift()) & 1 ? -1.0f : 1.0f;
    const int field = (bits & t.magnitudeMask()) >> t.manBits;
    const int man = bits & t.manMask();
    if (field == 0) {
        return sign * std::ldexp(static_cast<float>(man), 1 - t.bias - t.manBits);
    }
    return sign * std::ldexp(static_cast<float>(man + (1 << t.manBits)), field - t.bias - t.manBits);
}

// HiFloat8: the exponent magnitude decides the dot code and the mantissa width.
const uint8_t kHifMantissaWidth[23] = {3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
const uint8_t kHifDot[16] = {1, 2, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 12, 12, 12, 12};
const int kHifMaxExp = 15;
const int kHifDenormalMaxExp = -16;  // exponents -22..-16 are the denormal run 0bS0000eee
const int kHifDenormalBias = 23;
const int kHifMinExp = -22;
const uint8_t kHifSign = 0x80;

uint8_t HifEncode(int exp, uint32_t mantissa)
{
    if (exp <= kHifDenormalMaxExp) {
        return static_cast<uint8_t>(exp + kHifDenormalBias);
    }
    const int mag = exp < 0 ? -exp : exp;
    uint32_t signedMag = 0;
    if (mag != 0) {  // the magnitude with its leading one replaced by the exponent's sign
        int top = 31 - __builtin_clz(static_cast<uint32_t>(mag));
        signedMag = (static_cast<uint32_t>(mag) & ~(1u << top)) | (static_cast<uint32_t>(exp < 0) << top);
    }
    return static_cast<uint8_t>((kHifDot[mag] << 3) | (signedMag << kHifMantissaWidth[mag]) | mantissa);
}

}  // namespace

Float4E2M1::Float4E2M1(float v) : value(Encode(kE2M1, v)) {}
Float4E2M1::operator float() const { return Decode(kE2M1, value); }
Float4E2M1::operator double() const { return Decode(kE2M1, value); }
bool Float4E2M1::IsZero() const { return (value & kE2M1.magnitudeMask()) == 0; }
bool Float4E2M1::IsNaN() const { return false; }
bool Float4E2M1::IsInf() const { return false; }

Float8E4M3FN::Float8E4M3FN(float v) : value(Encode(kE4M3FN, v)) {}
Float8E4M3FN::operator float() const { return IsNaN() ? std::nanf("") : Decode(kE4M3FN, value); }
Float8E4M3FN::operator double() const { return static_cast<float>(*this); }
bool Float8E4M3FN::IsZero() const { return (value & 0x7F) == 0; }
bool Float8E4M3FN::IsNaN() const { return (value & 0x7F) == NAN_VALUE; }
bool Float8E4M3FN::IsInf() const { return false; }

Float8E5M2::Float8E5M2(float v) : value(Encode(kE5M2, v)) {}
Float8E5M2::operator float() const
{
    if (IsNaN()) {
        return std::nanf("");
    }
    if (IsInf()) {
        return value & 0x80 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    }
    return Decode(kE5M2, value);
}
Float8E5M2::operator double() const { return static_cast<float>(*this); }
bool Float8E5M2::IsZero() const { return (value & 0x7F) == 0; }
bool Float8E5M2::IsNaN() const { return (value & 0x7C) == 0x7C && (value & 0x03) != 0; }
bool Float8E5M2::IsInf() const { return (value & 0x7F) == INF_VALUE; }

Float8E8M0::Float8E8M0(float v) : value(0)
{
    const uint32_t u = BitsOf(v);
    uint32_t field = (u >> 23) & 0xFF;
    if (std::isnan(v) || (v < 0.0f)) {
        value = NAN_VALUE;
    } else if (v == 0.0f) {
        value = 0;
    } else if (std::isinf(v)) {
        value = HIGHEST_VALUE;
    } else {
        field += (u & 0x7FFFFF) >= 0x400000 ? 1 : 0;
        value = field > HIGHEST_VALUE ? HIGHEST_VALUE : static_cast<uint8_t>(field);
    }
}
Float8E8M0::operator float() const
{
    if (IsNaN()) {
        return std::nanf("");
    }
    return IsZero() ? 0.0f : std::ldexp(1.0f, static_cast<int>(value) - 127);
}
Float8E8M0::operator double() const { return static_cast<float>(*this); }
bool Float8E8M0::IsZero() const { return value == 0; }
bool Float8E8M0::IsNaN() const { return value == NAN_VALUE; }
bool Float8E8M0::IsInf() const { return false; }
int32_t Float8E8M0::GetExponent() const { return IsZero() || IsNaN() ? 0 : static_cast<int32_t>(value) - 127; }

HiFloat8::HiFloat8(float f32) : value(BitsFromFp32(BitsOf(f32))) {}

uint8_t HiFloat8::BitsFromFp32(uint32_t f32)
{
    if ((f32 & 0x7FFFFFFF) == 0) {
        return HIF8_ZERO_VALUE;
    }
    const uint8_t sign = (f32 & 0x80000000u) ? kHifSign : 0;
    const int field = (f32 >> 23) & 0xFF;
    uint32_t mantissa = f32 & 0x7FFFFF;
    if (field == 0xFF) {
        return mantissa != 0 ? HIF8_NAN_VALUE : static_cast<uint8_t>(sign | HIF8_INF_VALUE);
    }
    int exp = field - 127;  // float subnormals lie far below HiFloat8's range
    if (field == 0 || exp < kHifMinExp - 1) {
        return HIF8_ZERO_VALUE;
    }
    if (exp > kHifMaxExp) {
        return sign | HIF8_INF_VALUE;
    }
    const int mag = exp < 0 ? -exp : exp;
    // Below 2^-22 no mantissa bit survives, nor the leading one: 2^-23 .. 2^-22 rounds up to 2^-22.
    const int discard = mag > -kHifMinExp ? 24 : 23 - kHifMantissaWidth[mag];
    const uint32_t rounded = mantissa + (1u << (discard - 1));
    mantissa = rounded & 0x7FFFFF;
    if (rounded & 0x800000) {
        if (++exp > kHifMaxExp) {
            return sign | HIF8_INF_VALUE;
        }
    }
    return sign | HifEncode(exp, mantissa >> discard);
}

HiFloat8::operator float() const { return Hifp8ToFloat(*this); }
bool HiFloat8::IsNaN() const { return value == HIF8_NAN_VALUE; }
bool HiFloat8::IsInf() const { return (value & ~kHifSign & 0xFF) == HIF8_INF_VALUE; }
bool HiFloat8::IsZero() const { return (value & ~kHifSign & 0xFF) == HIF8_ZERO_VALUE; }

float HiFloat8::Hifp8ToFloat(HiFloat8 x)
{
    if (x.IsNaN()) {
        return std::nanf("");
    }
    const float sign = (x.value & kHifSign) ? -1.0f : 1.0f;
    if (x.IsInf()) {
        return sign * std::numeric_limits<float>::infinity();
    }
    // The dot code (bits 6..3, prefix-coded) gives the exponent width and the code's own width.
    static const uint8_t kExpBits[16] = {0xFF, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
    static const uint8_t kCodeBits[16] = {4, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    const int code = (x.value & 0x78) >> 3;
    if (kExpBits[code] == 0xFF) {
        const int denormal = x.value & 0x07;
        return denormal == 0 ? 0.0f : sign * std::ldexp(1.0f, denormal - kHifDenormalBias);
    }
    const int expBits = kExpBits[code];
    const int manBits = 7 - (expBits + kCodeBits[code]);
    const int man = x.value & ((1 << manBits) - 1);
    int exp = 0;
    if (expBits != 0) {
        const int field = (x.value >> manBits) & ((1 << expBits) - 1);
        const int top = 1 << (expBits - 1);  // stands for the magnitude's leading one and holds the sign
        exp = (field & top) ? -(field | top) : (field | top);
    }
    return sign * std::ldexp(1.0f + std::ldexp(static_cast<float>(man), -manBits), exp);
}

}  // namespace op
