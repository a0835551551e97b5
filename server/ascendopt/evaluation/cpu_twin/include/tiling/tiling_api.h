// AscendOptimizer CPU twin: host-side "tiling/tiling_api.h". Host tiling code includes it for the
// tiling-data macros, the platform and the advanced APIs' host tiling functions. Only the families
// the twin implements on the kernel side are here (BroadCast); a tiling program calling another
// (SoftMax, LayerNorm, Matmul, …) fails to compile naming it.
#ifndef ASCENDOPT_TWIN_TILING_TILING_API_H
#define ASCENDOPT_TWIN_TILING_TILING_API_H

#include "ascendopt_twin/broadcast_size.h"
#include "ascendopt_twin/host.h"
#include "graph/tensor.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
// BroadCast: the temporary space range for broadcasting srcShape to dstShape (1-D {1} -> {k}, or 2-D with one
// axis of size 1). See ascendopt_twin/broadcast_size.h for how the twin estimates it.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC &ascendcPlatform, const ge::Shape &srcShape,
                                      const ge::Shape &dstShape, uint32_t typeSize, const bool isReuseSource,
                                      uint32_t &maxValue, uint32_t &minValue)
{
    (void)ascendcPlatform;
    (void)isReuseSource;  // the twin's estimate does not reuse the source
    const size_t dim = dstShape.GetDimNum();
    uint32_t axis = 0;
    uint64_t m = 1, k = static_cast<uint64_t>(dstShape.GetDim(0));
    if (dim == 2) {
        axis = srcShape.GetDim(1) == 1 && dstShape.GetDim(1) != 1 ? 1 : 0;
        m = static_cast<uint64_t>(dstShape.GetDim(0));
        k = static_cast<uint64_t>(dstShape.GetDim(1));
    }
    const ascendopt_twin::BroadCastTmp t =
        ascendopt_twin::BroadCastTmpSize(static_cast<uint32_t>(dim), axis, m, k, typeSize);
    minValue = t.minBytes;
    maxValue = t.maxBytes;
}
}  // namespace AscendC
#endif
