// AscendOptimizer CPU twin: the bounds-checked memory functions of Huawei's securec library that operators'
// host code uses (memset_s, memcpy_s, memmove_s). A count beyond destMax fills/clears the destination and
// returns an error code, a null pointer returns EINVAL, overlapping memcpy_s is an error: as securec documents.
#ifndef ASCENDOPT_TWIN_SECUREC_H
#define ASCENDOPT_TWIN_SECUREC_H

#include <cstddef>
#include <cstring>

typedef int errno_t;
#ifndef EOK
#define EOK 0
#endif
#define ASCENDOPT_SECUREC_EINVAL 22
#define ASCENDOPT_SECUREC_ERANGE 34
#define ASCENDOPT_SECUREC_ERANGE_AND_RESET 162
#define ASCENDOPT_SECUREC_EOVERLAP_AND_RESET 182

inline errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (dest == nullptr) return ASCENDOPT_SECUREC_EINVAL;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return ASCENDOPT_SECUREC_ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}
inline errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (dest == nullptr) return ASCENDOPT_SECUREC_EINVAL;
    if (src == nullptr || count > destMax) {
        std::memset(dest, 0, destMax);
        return src == nullptr ? ASCENDOPT_SECUREC_EINVAL : ASCENDOPT_SECUREC_ERANGE_AND_RESET;
    }
    const char *d = static_cast<const char *>(dest), *s = static_cast<const char *>(src);
    if (count > 0 && ((d <= s && s < d + count) || (s <= d && d < s + count))) {
        std::memset(dest, 0, destMax);
        return ASCENDOPT_SECUREC_EOVERLAP_AND_RESET;
    }
    std::memcpy(dest, src, count);
    return EOK;
}
inline errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (dest == nullptr) return ASCENDOPT_SECUREC_EINVAL;
    if (src == nullptr || count > destMax) {
        std::memset(dest, 0, destMax);
        return src == nullptr ? ASCENDOPT_SECUREC_EINVAL : ASCENDOPT_SECUREC_ERANGE_AND_RESET;
    }
    std::memmove(dest, src, count);
    return EOK;
}

#endif
