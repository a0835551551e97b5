// AscendOptimizer CPU twin: TCubeTiling, the tiling structure of the high-level Matmul API, with the fields the AscendC
// docs publish (TCubeTiling结构体: all `int`), global as CANN's kernel_tiling/kernel_tiling.h declares it. Filled on
// the host by matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling::GetTiling (tiling/tiling_api.h); read by
// matmul::Matmul::Init (matmul_api.h), which takes the original shapes (M, N, Ka, Kb) and the single-core shapes from
// it. The split fields (base*, step*, depth*, db*) are informative to the twin: its Matmul is a functional model.
#ifndef ASCENDOPT_TWIN_CUBE_TILING_H
#define ASCENDOPT_TWIN_CUBE_TILING_H

#include <cstdint>

// One X(field) per field, in the struct's order: the host class's set_/get_ accessors come from the same list.
#define ASCENDOPT_TWIN_TCUBE_FIELDS(X)                                                                                 \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN) X(baseK)      \
    X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength) X(iterateOrder) X(shareMode) X(shareL1Size)      \
    X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN) X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb)            \
    X(depthAL1CacheUB) X(depthBL1CacheUB) X(dbL0A) X(dbL0B) X(dbL0C) X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) \
    X(ALayoutInfoG) X(ALayoutInfoD) X(BLayoutInfoB) X(BLayoutInfoS) X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD)   \
    X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG) X(CLayoutInfoS2) X(BatchNum) X(mxTypePara)

#define ASCENDOPT_TWIN_TCUBE_MEMBER(f) int32_t f = 0;
struct TCubeTiling {
    ASCENDOPT_TWIN_TCUBE_FIELDS(ASCENDOPT_TWIN_TCUBE_MEMBER)
};
#undef ASCENDOPT_TWIN_TCUBE_MEMBER

namespace AscendC {
namespace tiling {
using TCubeTiling = ::TCubeTiling;
}  // namespace tiling
}  // namespace AscendC

#endif
