// The aclGet*Shape/Strides getters hand out arrays the app releases with delete[] (reference §3.5),
// so they must come from operator new[].
#include <cstdint>

extern "C" int64_t *opemu_new_int64_array(uint64_t n)
{
    return new int64_t[n ? n : 1];
}
