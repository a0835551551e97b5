// AscendOptimizer CPU twin: ops-base tiling helpers (Ops::Base).
#ifndef ASCENDOPT_TWIN_OPBASE_HOST_TILING_BASE_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_HOST_TILING_BASE_UTIL_H

#include "ascendopt_twin/host.h"
// ops-base declares IsRegbaseSocVersion & co with these helpers (is_inf's 910B tiling reaches it from here).
#include "op_host/util/platform_util.h"

namespace Ops {
namespace Base {
// A scalar (rank 0) shape is read as {1}; any other shape is returned as it is.
inline const gert::Shape &EnsureNotScalar(const gert::Shape &inShape)
{
    static const gert::Shape kOne{1};
    return inShape.IsScalar() ? kOne : inShape;
}
}  // namespace Base
}  // namespace Ops

#endif
