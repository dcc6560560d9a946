// What the MACA probes share: expectations that print the failing line, and a main that runs one named
// case (`probe CASE` prints "PASS" or the first failed expectation; no argument lists the cases).
#ifndef MC_HARNESS_H
#define MC_HARNESS_H
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#define EXPECT_EQ(actual, expected)                                                                      \
    do {                                                                                                 \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                                  \
        if (a_ != e_) {                                                                                  \
            printf("FAIL line %d: %s == %lld, expected %lld\n", __LINE__, #actual, a_, e_);             \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)
#define EXPECT_TRUE(cond)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("FAIL line %d: %s\n", __LINE__, #cond); \
            return 1;                                      \
        }                                                  \
    } while (0)

typedef std::map<std::string, std::function<int()>> probe_cases;

static int run_probe(const probe_cases &cases, int argc, char **argv)
{
    if (argc < 2) {
        for (auto &c : cases)
            printf("%s\n", c.first.c_str());
        return 0;
    }
    auto it = cases.find(argv[1]);
    if (it == cases.end()) {
        printf("unknown case %s\n", argv[1]);
        return 2;
    }
    int rc = it->second();
    if (rc == 0)
        printf("PASS\n");
    return rc;
}
#endif
