// Runs op::fp16_t's library members over inputs the test writes to a file and writes their results
// column by column (raw little-endian arrays) for tests/test_fp16_t.py to check against NumPy.
//   fp16_probe MODE INPUT OUTPUT
// MODE: half (uint16 patterns), float, double, bf16 (uint16 patterns), i8 u8 i16 u16 i32 u32 i64 u64,
// pairs (n uint16 left operands, then n right operands).
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "opdev/bfloat16.h"
#include "opdev/fp16_t.h"

namespace {

FILE* g_out = nullptr;

template <typename T>
std::vector<T> ReadAll(const char* path)
{
    std::vector<T> values;
    FILE* in = std::fopen(path, "rb");
    T value;
    while (in != nullptr && std::fread(&value, sizeof(value), 1, in) == 1) {
        values.push_back(value);
    }
    if (in != nullptr) {
        std::fclose(in);
    }
    return values;
}

template <typename T>
void Write(const std::vector<T>& column)
{
    std::fwrite(column.data(), sizeof(T), column.size(), g_out);
}

template <typename T, typename F>
void Column(const std::vector<uint16_t>& halves, F member)
{
    std::vector<T> column;
    for (uint16_t bits : halves) {
        op::fp16_t h(bits);
        column.push_back(member(h));
    }
    Write(column);
}

template <typename T>
uint64_t Bits(T value)
{
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(value));
    return bits;
}

void Halves(const std::vector<uint16_t>& in)
{
    typedef op::fp16_t& H;
    Column<uint32_t>(in, [](H h) { return static_cast<uint32_t>(Bits(static_cast<float>(h))); });
    Column<uint64_t>(in, [](H h) { return Bits(static_cast<double>(h)); });
    Column<int8_t>(in, [](H h) { return static_cast<int8_t>(h); });
    Column<uint8_t>(in, [](H h) { return static_cast<uint8_t>(h); });
    Column<int16_t>(in, [](H h) { return static_cast<int16_t>(h); });
    Column<uint16_t>(in, [](H h) { return static_cast<uint16_t>(h); });
    Column<int32_t>(in, [](H h) { return static_cast<int32_t>(h); });
    Column<uint32_t>(in, [](H h) { return static_cast<uint32_t>(h); });
    Column<int64_t>(in, [](H h) { return static_cast<int64_t>(h); });
    Column<uint64_t>(in, [](H h) { return static_cast<uint64_t>(h); });
    Column<uint8_t>(in, [](H h) { return static_cast<uint8_t>(static_cast<bool>(h) ? 1 : 0); });
    Column<int32_t>(in, [](H h) { return static_cast<int32_t>(h.IsInf()); });
    Column<uint32_t>(in, [](H h) { return static_cast<uint32_t>(Bits(h.toFloat())); });
    Column<uint64_t>(in, [](H h) { return Bits(h.toDouble()); });
    Column<int8_t>(in, [](H h) { return h.toInt8(); });
    Column<uint8_t>(in, [](H h) { return h.toUInt8(); });
    Column<int16_t>(in, [](H h) { return h.toInt16(); });
    Column<uint16_t>(in, [](H h) { return h.toUInt16(); });
    Column<int32_t>(in, [](H h) { return h.toInt32(); });
    Column<uint32_t>(in, [](H h) { return h.toUInt32(); });
    Column<uint16_t>(in, [](H h) { return h.operator op::bfloat16().value; });
    std::vector<uint16_t> signs, mantissas;
    std::vector<int16_t> exponents;
    for (uint16_t bits : in) {
        uint16_t s = 0;
        int16_t e = 0;
        uint16_t m = 0;
        op::ExtractFP16(bits, &s, &e, &m);
        signs.push_back(s);
        exponents.push_back(e);
        mantissas.push_back(m);
    }
    Write(signs);
    Write(exponents);
    Write(mantissas);
}

// Assignment, then the converting constructor (which assigns through the same operator).
template <typename T>
void From(const std::vector<T>& in)
{
    std::vector<uint16_t> assigned, constructed;
    for (const T& value : in) {
        op::fp16_t h;
        h = value;
        assigned.push_back(h.val);
        constructed.push_back(op::fp16_t(value).val);
    }
    Write(assigned);
    Write(constructed);
}

void FromBfloat16(const std::vector<uint16_t>& in)
{
    std::vector<uint16_t> out;
    for (uint16_t bits : in) {
        const op::bfloat16 b(bits, op::bfloat16::from_bits());
        out.push_back(op::fp16_t(b).val);
    }
    Write(out);
}

// The uint16_t constructor takes bits, so only the assignment converts: written twice, like From.
void FromUint16(const std::vector<uint16_t>& in)
{
    std::vector<uint16_t> out;
    for (uint16_t value : in) {
        op::fp16_t h;
        h = value;
        out.push_back(h.val);
    }
    Write(out);
    Write(out);
}

void Pairs(const std::vector<uint16_t>& in)
{
    const size_t n = in.size() / 2;
    std::vector<uint16_t> sum, difference, product, quotient, compound[4], returned[4];
    std::vector<uint8_t> comparisons;
    for (size_t i = 0; i < n; ++i) {
        op::fp16_t a(in[i]);
        const op::fp16_t b(in[n + i]);
        sum.push_back((a + b).val);
        difference.push_back((a - b).val);
        product.push_back((a * b).val);
        quotient.push_back((a / b).val);
        op::fp16_t x[4];
        for (int k = 0; k < 4; ++k) {
            x[k] = a;
        }
        const op::fp16_t r[4] = {x[0] += b, x[1] -= b, x[2] *= b, x[3] /= b};
        for (int k = 0; k < 4; ++k) {
            compound[k].push_back(x[k].val);
            returned[k].push_back(r[k].val);
        }
        comparisons.push_back(static_cast<uint8_t>((a == b) | (a != b) << 1 | (a > b) << 2 | (a >= b) << 3 |
                                                   (a < b) << 4 | (a <= b) << 5));
    }
    Write(sum);
    Write(difference);
    Write(product);
    Write(quotient);
    for (int k = 0; k < 4; ++k) {
        Write(compound[k]);
        Write(returned[k]);
    }
    Write(comparisons);
}

template <typename T, void (*kMode)(const std::vector<T>&)>
void Run(const char* input)
{
    kMode(ReadAll<T>(input));
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s MODE INPUT OUTPUT\n", argv[0]);
        return 2;
    }
    typedef void (*Mode)(const char* input);
    const std::map<std::string, Mode> modes = {
        {"half", Run<uint16_t, Halves>}, {"float", Run<float, From<float>>}, {"double", Run<double, From<double>>},
        {"bf16", Run<uint16_t, FromBfloat16>}, {"i8", Run<int8_t, From<int8_t>>}, {"u8", Run<uint8_t, From<uint8_t>>},
        {"i16", Run<int16_t, From<int16_t>>}, {"u16", Run<uint16_t, FromUint16>}, {"i32", Run<int32_t, From<int32_t>>},
        {"u32", Run<uint32_t, From<uint32_t>>}, {"i64", Run<int64_t, From<int64_t>>},
        {"u64", Run<uint64_t, From<uint64_t>>}, {"pairs", Run<uint16_t, Pairs>}};
    const auto mode = modes.find(argv[1]);
    if (mode == modes.end()) {
        std::fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    g_out = std::fopen(argv[3], "wb");
    if (g_out == nullptr) {
        return 1;
    }
    mode->second(argv[2]);
    return std::fclose(g_out) == 0 ? 0 : 1;
}
