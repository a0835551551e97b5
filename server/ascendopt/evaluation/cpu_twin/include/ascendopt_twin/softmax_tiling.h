// AscendOptimizer CPU twin: SoftMaxTiling, the tiling structure of the SoftMax family (SoftMax, SoftmaxGrad), with
// the fields the AscendC docs publish (global namespace, as CANN's kernel_tiling/kernel_tiling.h declares it;
// AscendC::tiling::SoftMaxTiling names the same struct). Filled by SoftMaxTilingFunc / SoftMaxGradTilingFunc
// (tiling/tiling_api.h). The twin's kernels take the shape from SoftMaxShapeInfo, as CANN's do with the default
// isCheckTiling (a tiling that disagrees with the shape is recomputed), so the split fields are informative only.
#ifndef ASCENDOPT_TWIN_SOFTMAX_TILING_H
#define ASCENDOPT_TWIN_SOFTMAX_TILING_H

#include <cstdint>

struct SoftMaxTiling {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t srcSize = 0;
    uint32_t outMaxM = 0;
    uint32_t outMaxK = 0;
    uint32_t outMaxSize = 0;
    uint32_t splitM = 0;
    uint32_t splitK = 0;
    uint32_t splitSize = 0;
    uint32_t reduceM = 0;
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t rangeM = 0;
    uint32_t tailM = 0;
    uint32_t tailSplitSize = 0;
    uint32_t tailReduceSize = 0;
};

namespace AscendC {
namespace tiling {
using SoftMaxTiling = ::SoftMaxTiling;
}  // namespace tiling
}  // namespace AscendC

#endif
