// The expectation macros and case table the C probes share: `probe CASE` runs one named case and
// prints "PASS" or the first failed expectation.
#ifndef OPEMU_TESTS_PROBE_H
#define OPEMU_TESTS_PROBE_H

#include <cstdio>
#include <cstring>
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
#define EXPECT_TRUE(cond)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            printf("FAIL line %d: %s\n", __LINE__, #cond);                       \
            return 1;                                                            \
        }                                                                        \
    } while (0)
// A failed call leaves a message naming the function for aclGetRecentErrMsg.
#define EXPECT_MESSAGE_MENTIONS(text)                                             \
    do {                                                                          \
        const char* m_ = aclGetRecentErrMsg();                                    \
        if (m_ == nullptr || strstr(m_, text) == nullptr) {                       \
            printf("FAIL line %d: message %s lacks %s\n", __LINE__, m_ ? m_ : "(null)", text); \
            return 1;                                                             \
        }                                                                         \
    } while (0)

typedef std::map<std::string, std::function<int()>> probe_cases;

static inline int run_probe(const probe_cases& cases, int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == "--list") {
        for (const auto& c : cases)
            printf("%s\n", c.first.c_str());
        return 0;
    }
    if (argc != 2 || cases.count(argv[1]) == 0) {
        fprintf(stderr, "usage: %s CASE | --list\n", argv[0]);
        return 2;
    }
    int rc = cases.at(argv[1])();
    if (rc == 0)
        printf("PASS\n");
    return rc;
}

#endif
