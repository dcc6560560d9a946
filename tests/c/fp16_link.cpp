// A program as an operator example would use op::fp16_t: built with the ops-nn example's g++ line,
// it must link against the vendor library names and print the values the vendor's library gives.
#include <cmath>
#include <cstdio>
#include <vector>

#include "opdev/bfloat16.h"
#include "opdev/fp16_t.h"

int main()
{
    std::vector<op::fp16_t> host(4, 0);
    host[0] = 1.5f;
    host[1] = 2.0009765625;  // halfway between 2 and the next half: ties to even, 2
    host[2] = 7;
    host[3] = op::fp16_t(op::bfloat16(0.1f));
    op::fp16_t sum = host[0] + host[1];
    sum += host[2];
    op::fp16_t inf(static_cast<uint16_t>(0x7C00));
    op::fp16_t nan(static_cast<uint16_t>(0x7E00));
    const op::bfloat16 narrowed = host[3];  // fp16_t's conversion operator
    std::printf("sum=%g bits=%04x int=%d bf16=%04x inf=%d nan=%d abs=%g less=%d\n", static_cast<float>(sum),
                static_cast<unsigned>(host[1].val), sum.toInt32(), narrowed.value,
                inf.IsInf(), std::isnan(nan) ? 1 : 0, std::abs(op::fp16_t(-2.5f)), host[0] < host[1] ? 1 : 0);
    return 0;
}
