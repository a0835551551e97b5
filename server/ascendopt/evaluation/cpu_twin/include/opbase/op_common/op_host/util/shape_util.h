// AscendOptimizer CPU twin: ops-base shape helpers (Ops::Base). Unknown rank is CANN's dims {-2}.
#ifndef ASCENDOPT_TWIN_OPBASE_HOST_SHAPE_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_HOST_SHAPE_UTIL_H

#include <cstdint>

#include "ascendopt_twin/host.h"

namespace Ops {
namespace Base {
constexpr int64_t kUnknownRankDim = -2;
constexpr int64_t kUnknownDim = -1;
inline bool IsUnknownRank(const gert::Shape &shape) { return shape.GetDimNum() == 1 && shape.GetDim(0) == kUnknownRankDim; }
inline void SetUnknownRank(gert::Shape &shape)
{
    shape.SetDimNum(0);
    shape.AppendDim(kUnknownRankDim);
}
inline bool IsUnknownShape(const gert::Shape &shape)
{
    for (size_t i = 0; i < shape.GetDimNum(); ++i)
        if (shape.GetDim(i) < 0) return true;
    return false;
}
template <typename T1, typename T2> bool CheckAxisBounds(const T1 dimNum, const T2 axis)
{
    if (dimNum == 0) return axis == 0;
    const int64_t lo = -static_cast<int64_t>(dimNum), hi = static_cast<int64_t>(dimNum) - 1;
    return static_cast<int64_t>(axis) >= lo && static_cast<int64_t>(axis) <= hi;
}
}  // namespace Base
}  // namespace Ops

#endif
