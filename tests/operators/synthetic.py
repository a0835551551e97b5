"""Small operator trees in the layouts we wrote no template for (cann_open, kernel_launch)."""

from __future__ import annotations

from pathlib import Path

CANN_OPEN_TILING_DATA = """\
#ifndef SCALE_TILING_DATA_H
#define SCALE_TILING_DATA_H
#include <cstdint>
struct ScaleTilingData {
    int64_t totalNum;
    int64_t blockFactor;
    int64_t ubFactor;
    float scales[4];
};
#endif
"""

CANN_OPEN_TILING = """\
#include "register/op_impl_registry.h"
#include "../op_kernel/scale_tiling_data.h"

namespace optiling {
constexpr int64_t UB_FACTOR = 8192;  // ascendopt: knob pow2=1024..16384
constexpr int64_t ALIGN = 32;

static ge::graphStatus ScaleTilingFunc(gert::TilingContext *context)
{
    auto *tiling = context->GetTilingData<ScaleTilingData>();
    int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    // # evolve_tiling_block_start
    int64_t coreNum = 40;
    int64_t blockFactor = (total + coreNum - 1) / coreNum;
    // # evolve_tiling_block_end
    tiling->totalNum = total;
    tiling->blockFactor = blockFactor;
    tiling->ubFactor = UB_FACTOR;
    context->SetBlockDim((total + blockFactor - 1) / blockFactor);
    context->SetTilingKey(1);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(Scale).Tiling(ScaleTilingFunc);
}  // namespace optiling
"""

CANN_OPEN_KERNEL = """\
#include "kernel_operator.h"
#include "scale_tiling_data.h"

template <typename T>
class ScaleKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaleTilingData *t) {}
    __aicore__ inline void Process() {}
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaleTilingData);
    GET_TILING_DATA_WITH_STRUCT(ScaleTilingData, tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        ScaleKernel<DTYPE_X> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
}
"""

LAUNCH_KERNEL = """\
#include "kernel_operator.h"
constexpr int32_t TOTAL_LENGTH = 8 * 2048;
constexpr int32_t USE_CORE_NUM = 8;
constexpr int32_t BLOCK_LENGTH = TOTAL_LENGTH / USE_CORE_NUM;
constexpr int32_t TILE_NUM = 8;
constexpr int32_t BUFFER_NUM = 2;

extern "C" __global__ __aicore__ void sub_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    AscendC::GlobalTensor<half> xGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + BLOCK_LENGTH * AscendC::GetBlockIdx(), BLOCK_LENGTH);
}
"""

LAUNCH_MAIN = """\
#include "data_utils.h"
#include "acl/acl.h"
extern void sub_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z);

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 8;
    size_t inputByteSize = 8 * 2048 * sizeof(uint16_t);
    aclrtStream stream = nullptr;
    uint8_t *xDevice, *yDevice, *zDevice;
    sub_custom<<<blockDim, nullptr, stream>>>(xDevice, yDevice, zDevice);
    return 0;
}
"""


def write_cann_open(root: Path) -> Path:
    op = root / "math" / "scale"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir(parents=True)
    (op / "op_host" / "scale_tiling.cpp").write_text(CANN_OPEN_TILING)
    (op / "op_kernel" / "scale_tiling_data.h").write_text(CANN_OPEN_TILING_DATA)
    (op / "op_kernel" / "scale.cpp").write_text(CANN_OPEN_KERNEL)
    return op


def write_kernel_launch(root: Path) -> Path:
    op = root / "samples" / "SubCustom"
    op.mkdir(parents=True)
    (op / "sub_custom.cpp").write_text(LAUNCH_KERNEL)
    (op / "main.cpp").write_text(LAUNCH_MAIN)
    return op
