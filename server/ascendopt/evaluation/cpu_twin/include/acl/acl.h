// AscendOptimizer CPU twin: the few ACL names a CPU-debug host program's helpers use (the samples' data_utils.h
// includes acl/acl.h in both modes). No runtime API: an NPU-mode host program does not build against the twin.
#ifndef ASCENDOPT_TWIN_ACL_ACL_H
#define ASCENDOPT_TWIN_ACL_ACL_H

#include <cstdint>
#include <cstring>

using aclError = int;
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;
using aclFloat16 = uint16_t;

inline float aclFloat16ToFloat(aclFloat16 value)
{
    _Float16 h;
    std::memcpy(&h, &value, sizeof h);
    return static_cast<float>(h);
}
inline aclFloat16 aclFloatToFloat16(float value)
{
    _Float16 h = static_cast<_Float16>(value);
    aclFloat16 u;
    std::memcpy(&u, &h, sizeof u);
    return u;
}

#endif
