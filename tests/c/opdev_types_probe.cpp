// Converts through the opdev narrow float types of libnnopbase: `probe <type> encode in out` reads
// float32 values and writes one byte each; `probe <type> decode in out` reads bytes and writes
// float32 values followed by one flag byte each (bit 0 IsZero, bit 1 IsNaN, bit 2 IsInf).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "opdev/float4_e2m1.h"
#include "opdev/float8_e4m3fn.h"
#include "opdev/float8_e5m2.h"
#include "opdev/float8_e8m0.h"
#include "opdev/hifloat8.h"

template <typename T>
static void Run(bool encode, const std::vector<unsigned char>& in, FILE* out)
{
    if (encode) {
        for (size_t i = 0; i + 4 <= in.size(); i += 4) {
            float f;
            std::memcpy(&f, &in[i], 4);
            T x(f);
            std::fwrite(&x.value, 1, 1, out);
        }
        return;
    }
    std::vector<unsigned char> flags;
    for (unsigned char bits : in) {
        T x(bits, T::FromBits());
        float f = static_cast<float>(x);
        std::fwrite(&f, 4, 1, out);
        flags.push_back(static_cast<unsigned char>(x.IsZero() | (x.IsNaN() << 1) | (x.IsInf() << 2)));
    }
    std::fwrite(flags.data(), 1, flags.size(), out);
}

int main(int argc, char** argv)
{
    if (argc != 5) {
        return 2;
    }
    FILE* f = std::fopen(argv[3], "rb");
    std::vector<unsigned char> in;
    for (int c; f != nullptr && (c = std::fgetc(f)) != EOF;) {
        in.push_back(static_cast<unsigned char>(c));
    }
    if (f != nullptr) {
        std::fclose(f);
    }
    FILE* out = std::fopen(argv[4], "wb");
    bool encode = std::strcmp(argv[2], "encode") == 0;
    std::string type = argv[1];
    if (type == "e2m1") Run<op::Float4E2M1>(encode, in, out);
    else if (type == "e4m3fn") Run<op::Float8E4M3FN>(encode, in, out);
    else if (type == "e5m2") Run<op::Float8E5M2>(encode, in, out);
    else if (type == "e8m0") Run<op::Float8E8M0>(encode, in, out);
    else if (type == "hif8") Run<op::HiFloat8>(encode, in, out);
    else return 2;
    std::fclose(out);
    return 0;
}
