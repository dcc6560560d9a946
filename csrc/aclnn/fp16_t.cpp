// The op::fp16_t members libnnopbase defines (opdev/fp16_t.h declares them), with the results the
// vendor's implementation gives (hicann/opbase src/nnopbase/common/utils/fp16_t.cpp), bit for bit.
// That implementation is a software float, not IEEE arithmetic; where it differs, ours follows it:
//   - Conversions to fp16 round to nearest, ties to even, and overflow to infinity; every NaN
//     becomes the all-ones pattern 0x7FFF with its sign (IEEE tools give 0x7E00).
//   - Arithmetic reads exponent field 31 as an ordinary number: infinity is 65536 and a NaN
//     65536 * 1.m, so inf - inf = 0, inf * 0 = 0, 1 / inf = 2^-16. +, - and * round the exact
//     result to nearest-even, and a result past the largest exponent keeps its rounded mantissa
//     under exponent field 31: infinity only when that mantissa is 0, a NaN pattern otherwise.
//   - Division: x / 0 is +-65504 (the largest finite half), 0 / x is +0; otherwise the quotient
//     rounded through float, which is the correctly rounded half quotient.
//   - Comparisons order the bit patterns by sign and magnitude with -0 == +0; a NaN compares by its
//     bits (equal to itself, greater than infinity).
//   - Conversions to integers round to nearest-even (not truncation, unlike a C cast) and saturate;
//     a NaN gives the type's maximum, or its minimum when the sign bit is set (0 for unsigned).
//     64-bit conversions saturate at the 32-bit limits, although the vendor docs only say "converts".
//   - int8_t -128 converts to -0 and operator bool is false only for +0 (the sign bit alone is true).
#pragma GCC visibility push(default)
#include "aclnn/opdev/fp16_t.h"
#include "aclnn/opdev/bfloat16.h"
#pragma GCC visibility pop

#include <cstring>
#include <limits>

namespace op {
namespace {

const uint16_t kSignBit = 0x8000;
const uint16_t kMagnitude = 0x7FFF;
const uint16_t kInfinity = 0x7C00;
const uint16_t kAllOnesNan = 0x7FFF;
const uint16_t kLargestFinite = 0x7BFF;
const int kMantissaBits = 10;
const int kSubnormalScale = -24;  // a subnormal half is m * 2^-24

enum class Overflow { kToInfinity, kKeepMantissa };

bool IsNegative(uint16_t bits) { return (bits & kSignBit) != 0; }
int ExponentField(uint16_t bits) { return (bits >> kMantissaBits) & 0x1F; }

int BitLength(uint64_t x)
{
    int length = 0;
    for (; x != 0; x >>= 1) {
        ++length;
    }
    return length;
}

// value / 2^dropped (0 < dropped < 64) rounded to nearest, ties to even.
uint64_t ShiftRightToNearestEven(uint64_t value, int dropped)
{
    uint64_t kept = value >> dropped;
    const uint64_t rest = value & ((uint64_t(1) << dropped) - 1);
    const uint64_t half = uint64_t(1) << (dropped - 1);
    if (rest > half || (rest == half && (kept & 1) != 0)) {
        ++kept;
    }
    return kept;
}

// The value magnitude * 2^scale as a half, rounded to nearest, ties to even.
uint16_t RoundToHalf(bool negative, uint64_t magnitude, int scale, Overflow overflow)
{
    const uint16_t sign = negative ? kSignBit : 0;
    const int length = BitLength(magnitude);
    // Keep 11 significant bits, but nothing finer than the subnormal step 2^-24. Dropping more than
    // the length means below half that step. Otherwise dropped < 64: integers come with scale 0
    // (dropped = length - 11), float and double significands with at most 53 bits.
    int dropped = std::max(length - (kMantissaBits + 1), kSubnormalScale - scale);
    if (dropped > length) {
        return sign;
    }
    uint64_t kept = dropped <= 0 ? magnitude << -dropped : ShiftRightToNearestEven(magnitude, dropped);
    if (kept == (uint64_t(1) << (kMantissaBits + 1))) {
        kept >>= 1;
        ++dropped;
    }
    if (kept < (1U << kMantissaBits)) {
        return static_cast<uint16_t>(sign | kept);  // subnormal (or zero)
    }
    const int field = scale + dropped - kSubnormalScale + 1;
    const uint16_t mantissa = static_cast<uint16_t>(kept & 0x3FF);
    if (field >= 31) {
        return static_cast<uint16_t>(sign | kInfinity | (overflow == Overflow::kKeepMantissa ? mantissa : 0));
    }
    return static_cast<uint16_t>(sign | (field << kMantissaBits) | mantissa);
}

// |half| as magnitude * 2^scale, reading exponent field 31 as a number as the vendor's arithmetic does.
struct Scaled {
    uint64_t magnitude;
    int scale;
};

Scaled Unpack(uint16_t bits)
{
    const int field = ExponentField(bits);
    const uint64_t mantissa = bits & 0x3FFU;
    if (field == 0) {
        return Scaled{mantissa, kSubnormalScale};
    }
    return Scaled{mantissa | 0x400U, field - 1 + kSubnormalScale};
}

template <typename Float, typename Bits, int kFractionBits, int kBias>
uint16_t HalfFromBinary(Float value)
{
    Bits bits;
    std::memcpy(&bits, &value, sizeof(bits));
    const bool negative = (bits >> (sizeof(Bits) * 8 - 1)) != 0;
    const int field = static_cast<int>((bits << 1) >> (kFractionBits + 1));
    const Bits fraction = bits & ((Bits(1) << kFractionBits) - 1);
    const uint16_t sign = negative ? kSignBit : 0;
    if (field == (1 << (sizeof(Bits) * 8 - kFractionBits - 1)) - 1) {
        return static_cast<uint16_t>(sign | (fraction != 0 ? kAllOnesNan : kInfinity));
    }
    if (field == 0) {
        return RoundToHalf(negative, fraction, 1 - kBias - kFractionBits, Overflow::kToInfinity);
    }
    return RoundToHalf(negative, fraction | (Bits(1) << kFractionBits), field - kBias - kFractionBits,
                       Overflow::kToInfinity);
}

uint16_t HalfFromFloat(float value) { return HalfFromBinary<float, uint32_t, 23, 127>(value); }
uint16_t HalfFromDouble(double value) { return HalfFromBinary<double, uint64_t, 52, 1023>(value); }

uint16_t HalfFromUnsigned(uint64_t value) { return RoundToHalf(false, value, 0, Overflow::kToInfinity); }

uint16_t HalfFromSigned(int64_t value)
{
    // |value| without overflowing at INT64_MIN.
    const uint64_t magnitude = value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
    return RoundToHalf(value < 0, magnitude, 0, Overflow::kToInfinity);
}

// Exact widening to float or double. Infinity and NaN keep their pattern: the half's mantissa
// becomes the top of the wider fraction (a signalling NaN stays signalling, as in the vendor's).
template <typename Float, typename Bits, int kFractionBits>
Float WidenHalf(uint16_t bits)
{
    const bool negative = IsNegative(bits);
    if (ExponentField(bits) == 31) {
        const Bits wide = (Bits(negative ? 1 : 0) << (sizeof(Bits) * 8 - 1)) |
                          (((Bits(1) << (sizeof(Bits) * 8 - kFractionBits - 1)) - 1) << kFractionBits) |
                          (Bits(bits & 0x3FFU) << (kFractionBits - kMantissaBits));
        Float special;
        std::memcpy(&special, &wide, sizeof(special));
        return special;
    }
    const Scaled s = Unpack(bits);
    const Float magnitude = std::ldexp(static_cast<Float>(s.magnitude), s.scale);
    return negative ? -magnitude : magnitude;
}

// |value of a finite half| rounded to an integer, ties to even.
uint32_t RoundedMagnitude(uint16_t bits)
{
    const Scaled s = Unpack(bits);
    if (s.scale >= 0) {
        return static_cast<uint32_t>(s.magnitude << s.scale);
    }
    return static_cast<uint32_t>(ShiftRightToNearestEven(s.magnitude, -s.scale));
}

template <typename Int>
Int SaturatedInteger(uint16_t bits)
{
    const Int lowest = std::numeric_limits<Int>::min();
    const Int highest = std::numeric_limits<Int>::max();
    const bool negative = IsNegative(bits);
    if (ExponentField(bits) == 31) {
        return negative ? lowest : highest;
    }
    const uint64_t magnitude = RoundedMagnitude(bits);
    if (!negative) {
        return magnitude > static_cast<uint64_t>(highest) ? highest : static_cast<Int>(magnitude);
    }
    if (magnitude == 0 || lowest == 0) {
        return 0;
    }
    const uint64_t most_negative = static_cast<uint64_t>(-(static_cast<int64_t>(lowest)));
    return magnitude >= most_negative ? lowest : static_cast<Int>(-static_cast<int64_t>(magnitude));
}

uint16_t Add(uint16_t a, uint16_t b)
{
    // Both as integers in units of 2^-24 (at most 2^41): the sum is exact.
    const Scaled x = Unpack(a);
    const Scaled y = Unpack(b);
    const int64_t xs = static_cast<int64_t>(x.magnitude << (x.scale - kSubnormalScale));
    const int64_t ys = static_cast<int64_t>(y.magnitude << (y.scale - kSubnormalScale));
    const int64_t sum = (IsNegative(a) ? -xs : xs) + (IsNegative(b) ? -ys : ys);
    if (sum == 0) {
        // -0 only when both addends carry the sign (-0 + -0); x + -x is +0.
        return (IsNegative(a) && IsNegative(b)) ? kSignBit : 0;
    }
    const bool negative = sum < 0;
    return RoundToHalf(negative, static_cast<uint64_t>(negative ? -sum : sum), kSubnormalScale,
                       Overflow::kKeepMantissa);
}

uint16_t Multiply(uint16_t a, uint16_t b)
{
    const Scaled x = Unpack(a);
    const Scaled y = Unpack(b);
    return RoundToHalf(IsNegative(a) != IsNegative(b), x.magnitude * y.magnitude, x.scale + y.scale,
                       Overflow::kKeepMantissa);
}

uint16_t Divide(uint16_t a, uint16_t b)
{
    const bool negative = IsNegative(a) != IsNegative(b);
    if ((b & kMagnitude) == 0) {
        return static_cast<uint16_t>((negative ? kSignBit : 0) | kLargestFinite);
    }
    if ((a & kMagnitude) == 0) {
        return 0;
    }
    // Both operands are exact in float and their quotient stays far from float's limits, so float
    // division rounds once and rounding that to half gives the correctly rounded half quotient.
    const Scaled x = Unpack(a);
    const Scaled y = Unpack(b);
    const float quotient =
        std::ldexp(static_cast<float>(x.magnitude), x.scale) / std::ldexp(static_cast<float>(y.magnitude), y.scale);
    return static_cast<uint16_t>(HalfFromFloat(quotient) | (negative ? kSignBit : 0));
}

// The order the comparisons use: sign and magnitude of the bit pattern, with -0 equal to +0.
int OrderKey(uint16_t bits)
{
    const int magnitude = bits & kMagnitude;
    return IsNegative(bits) ? -magnitude : magnitude;
}

tagFp16 FromBits(uint16_t bits) { return tagFp16(bits); }

tagFp16& Store(tagFp16& half, uint16_t bits)
{
    half.val = bits;
    return half;
}

}  // namespace

void ExtractFP16(const uint16_t& val, uint16_t* s, int16_t* e, uint16_t* m)
{
    const int field = ExponentField(val);
    *s = IsNegative(val) ? 1 : 0;
    *e = static_cast<int16_t>(field == 0 ? 1 : field);
    *m = static_cast<uint16_t>((val & 0x3FFU) | (field == 0 ? 0U : 0x400U));
}

tagFp16::tagFp16(const bfloat16& value) : val(HalfFromFloat(static_cast<float>(value))) {}

tagFp16 tagFp16::operator+(const tagFp16 fp) { return FromBits(Add(val, fp.val)); }
tagFp16 tagFp16::operator-(const tagFp16 fp) { return FromBits(Add(val, static_cast<uint16_t>(fp.val ^ kSignBit))); }
tagFp16 tagFp16::operator*(const tagFp16 fp) { return FromBits(Multiply(val, fp.val)); }
tagFp16 tagFp16::operator/(const tagFp16 fp) { return FromBits(Divide(val, fp.val)); }

tagFp16 tagFp16::operator+=(const tagFp16 fp) { return *this = *this + fp; }
tagFp16 tagFp16::operator-=(const tagFp16 fp) { return *this = *this - fp; }
tagFp16 tagFp16::operator*=(const tagFp16 fp) { return *this = *this * fp; }
tagFp16 tagFp16::operator/=(const tagFp16 fp) { return *this = *this / fp; }

bool tagFp16::operator==(const tagFp16& fp) const { return OrderKey(val) == OrderKey(fp.val); }
bool tagFp16::operator!=(const tagFp16& fp) const { return OrderKey(val) != OrderKey(fp.val); }
bool tagFp16::operator>(const tagFp16& fp) const { return OrderKey(val) > OrderKey(fp.val); }
bool tagFp16::operator>=(const tagFp16& fp) const { return OrderKey(val) >= OrderKey(fp.val); }
bool tagFp16::operator<(const tagFp16& fp) const { return OrderKey(val) < OrderKey(fp.val); }
bool tagFp16::operator<=(const tagFp16& fp) const { return OrderKey(val) <= OrderKey(fp.val); }

tagFp16& tagFp16::operator=(const tagFp16& fp) { return Store(*this, fp.val); }

tagFp16& tagFp16::operator=(const float& fVal) { return Store(*this, HalfFromFloat(fVal)); }
tagFp16& tagFp16::operator=(const double& dVal) { return Store(*this, HalfFromDouble(dVal)); }
// The vendor converts the sign and the low seven bits apart, so -128 becomes -0.
tagFp16& tagFp16::operator=(const int8_t& iVal)
{
    return Store(*this, iVal == INT8_MIN ? kSignBit : HalfFromSigned(iVal));
}
tagFp16& tagFp16::operator=(const uint8_t& uiVal) { return Store(*this, HalfFromUnsigned(uiVal)); }
tagFp16& tagFp16::operator=(const int16_t& iVal) { return Store(*this, HalfFromSigned(iVal)); }
tagFp16& tagFp16::operator=(const uint16_t& uiVal) { return Store(*this, HalfFromUnsigned(uiVal)); }
// INT32_MIN gives -inf. The vendor negates it in int32_t (undefined behaviour): an optimised build
// of its source gives -inf too, an unoptimised one -0.5.
tagFp16& tagFp16::operator=(const int32_t& iVal) { return Store(*this, HalfFromSigned(iVal)); }
tagFp16& tagFp16::operator=(const uint32_t& uiVal) { return Store(*this, HalfFromUnsigned(uiVal)); }
tagFp16& tagFp16::operator=(const int64_t& iVal) { return Store(*this, HalfFromSigned(iVal)); }
tagFp16& tagFp16::operator=(const uint64_t& uiVal) { return Store(*this, HalfFromUnsigned(uiVal)); }

tagFp16::operator float() const { return WidenHalf<float, uint32_t, 23>(val); }
tagFp16::operator double() const { return WidenHalf<double, uint64_t, 52>(val); }
tagFp16::operator bfloat16() const { return bfloat16(static_cast<float>(*this)); }
tagFp16::operator int8_t() const { return SaturatedInteger<int8_t>(val); }
tagFp16::operator uint8_t() const { return SaturatedInteger<uint8_t>(val); }
tagFp16::operator int16_t() const { return SaturatedInteger<int16_t>(val); }
tagFp16::operator uint16_t() const { return SaturatedInteger<uint16_t>(val); }
tagFp16::operator int32_t() const { return SaturatedInteger<int32_t>(val); }
tagFp16::operator uint32_t() const { return SaturatedInteger<uint32_t>(val); }
// The vendor's 64-bit conversions go through the 32-bit ones (and saturate at their limits).
tagFp16::operator int64_t() const { return SaturatedInteger<int32_t>(val); }
tagFp16::operator uint64_t() const { return SaturatedInteger<uint32_t>(val); }
tagFp16::operator bool() const { return val != 0; }

int tagFp16::IsInf()
{
    if ((val & kMagnitude) != kInfinity) {
        return 0;
    }
    return IsNegative(val) ? -1 : 1;
}

float tagFp16::toFloat() { return static_cast<float>(*this); }
double tagFp16::toDouble() { return static_cast<double>(*this); }
int8_t tagFp16::toInt8() { return static_cast<int8_t>(*this); }
uint8_t tagFp16::toUInt8() { return static_cast<uint8_t>(*this); }
int16_t tagFp16::toInt16() { return static_cast<int16_t>(*this); }
uint16_t tagFp16::toUInt16() { return static_cast<uint16_t>(*this); }
int32_t tagFp16::toInt32() { return static_cast<int32_t>(*this); }
uint32_t tagFp16::toUInt32() { return static_cast<uint32_t>(*this); }

}  // namespace op
