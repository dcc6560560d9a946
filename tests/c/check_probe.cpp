// Programs with one mistake each, for `opemu check`: `check_probe CASE` makes that mistake (and
// otherwise cleans up after itself), `check_probe clean` makes none.
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"

struct Embedding {
    void *weight = nullptr, *indices = nullptr, *out = nullptr;
    aclTensor *w = nullptr, *i = nullptr, *o = nullptr;
    explicit Embedding(bool write_indices = true, int64_t out_rows = 2)
    {
        float wh[6] = {0, 1, 2, 3, 4, 5};
        int64_t ih[2] = {2, 0};
        aclrtMalloc(&weight, sizeof wh, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&indices, sizeof ih, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&out, 4 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(weight, sizeof wh, wh, sizeof wh, ACL_MEMCPY_HOST_TO_DEVICE);
        if (write_indices)
            aclrtMemcpy(indices, sizeof ih, ih, sizeof ih, ACL_MEMCPY_HOST_TO_DEVICE);
        int64_t wd[2] = {3, 2}, id[1] = {out_rows}, od[2] = {out_rows, 2};
        w = aclCreateTensor(wd, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, wd, 2, weight);
        i = aclCreateTensor(id, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, id, 1, indices);
        o = aclCreateTensor(od, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, od, 2, out);
    }
    int Run(aclrtStream stream, bool twice = false)
    {
        uint64_t ws = 0;
        aclOpExecutor* e = nullptr;
        int rc = aclnnEmbeddingGetWorkspaceSize(w, i, o, &ws, &e);
        if (rc == 0)
            rc = aclnnEmbedding(nullptr, ws, e, stream);
        if (twice)
            aclnnEmbedding(nullptr, ws, e, stream);
        return rc;
    }
    ~Embedding()
    {
        aclDestroyTensor(w);
        aclDestroyTensor(i);
        aclDestroyTensor(o);
        aclrtFree(weight);
        aclrtFree(indices);
        aclrtFree(out);
    }
};

static std::map<std::string, std::function<void(aclrtStream)>> cases = {
    {"clean", [](aclrtStream s) {
         Embedding e;
         e.Run(s);
         aclrtSynchronizeStream(s);
         float r[4];
         aclrtMemcpy(r, sizeof r, e.out, sizeof r, ACL_MEMCPY_DEVICE_TO_HOST);
     }},
    {"use-after-free", [](aclrtStream) {
         void* p = nullptr;
         char host[16] = {0};
         aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST);
         aclrtMemcpy(p, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE);
         aclrtFree(p);
         aclrtMemcpy(host, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST);
     }},
    {"double-free", [](aclrtStream) {
         void* p = nullptr;
         aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST);
         aclrtFree(p);
         aclrtFree(p);
     }},
    {"invalid-free", [](aclrtStream) {
         static char not_device[16];
         aclrtFree(not_device);
     }},
    {"memcpy-kind", [](aclrtStream) {
         void *a = nullptr, *b = nullptr;
         aclrtMalloc(&a, 16, ACL_MEM_MALLOC_HUGE_FIRST);
         aclrtMalloc(&b, 16, ACL_MEM_MALLOC_HUGE_FIRST);
         aclrtMemset(b, 16, 0, 16);
         aclrtMemcpy(a, 16, b, 16, ACL_MEMCPY_HOST_TO_DEVICE);  // b is device memory
         aclrtFree(a);
         aclrtFree(b);
     }},
    {"out-of-bounds", [](aclrtStream) {
         void* p = nullptr;
         char host[64] = {0};
         aclrtMalloc(&p, 40, ACL_MEM_MALLOC_HUGE_FIRST);       // 96 bytes are mapped
         aclrtMemcpy(p, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE);  // fine on hardware, past the request
         aclrtFree(p);
     }},
    {"uninitialized-read", [](aclrtStream s) {
         Embedding e(false);  // indices never copied in
         e.Run(s);
         aclrtSynchronizeStream(s);
     }},
    {"unsynchronized-read", [](aclrtStream s) {
         Embedding e;
         e.Run(s);
         float r[4];
         aclrtMemcpy(r, sizeof r, e.out, sizeof r, ACL_MEMCPY_DEVICE_TO_HOST);  // before the sync
         aclrtSynchronizeStream(s);
     }},
    {"executor-reuse", [](aclrtStream s) {
         Embedding e;
         e.Run(s, true);
         aclrtSynchronizeStream(s);
     }},
    {"invalid-handle", [](aclrtStream) {
         aclrtStream gone = nullptr;
         aclrtCreateStream(&gone);
         aclrtDestroyStream(gone);
         aclrtSynchronizeStream(gone);
     }},
    {"leak", [](aclrtStream) {
         void* p = nullptr;
         aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST);
         int64_t d[1] = {4};
         aclCreateTensor(d, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d, 1, p);
     }},
};

int main(int argc, char** argv)
{
    if (argc < 2 || cases.find(argv[1]) == cases.end()) {
        for (auto& c : cases)
            printf("%s\n", c.first.c_str());
        return argc < 2 ? 0 : 2;
    }
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    cases[argv[1]](stream);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
