// One implemented call, one declared but not supported, and one no vendor header declares (the
// test links it from a stand-in library, as a binary built against another toolkit would be).
#include <cstdio>
#include "acl/acl.h"
#include "aclnn/acl_meta.h"

extern "C" aclError aclrtNoSuchCallAnywhere(int);

int main(int argc, char**)
{
    void* p = nullptr;
    int rc = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    int dumped = aclDumpOpTensors("Add", "add", nullptr, 0, 0, nullptr);
    if (argc > 5)  // never taken: the unknown call would stop the program
        rc += aclrtNoSuchCallAnywhere(argc);
    printf("malloc %d dump %d\n", rc, dumped);
    return 0;
}
