// File helpers of the look-alike sample (same shape as the official samples' data_utils.h, written for these tests).
#ifndef DATA_UTILS_H
#define DATA_UTILS_H
#include <cstdio>
#include <string>

#include "acl/acl.h"

#define CHECK_ACL(x)                                                              \
    do {                                                                          \
        aclError __ret = x;                                                       \
        if (__ret != ACL_ERROR_NONE) std::fprintf(stderr, "aclError %d\n", __ret); \
    } while (0)

inline bool ReadFile(const std::string &path, size_t size, void *buf, size_t bufSize)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f || size > bufSize) return false;
    size_t got = std::fread(buf, 1, size, f);
    std::fclose(f);
    return got == size;
}
inline bool WriteFile(const std::string &path, const void *buf, size_t size)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    size_t put = std::fwrite(buf, 1, size, f);
    std::fclose(f);
    return put == size;
}
#endif
