"""A look-alike of an ops-math operator whose host build differs per SoC, written for these tests
(`math/abs_like`, y = |x| on float16 by clearing the sign bit, in the style of ops-math is_inf):

* `op_host/abs_like_tiling.cpp` includes `abs_like_tiling_arch35.h`, which includes ops-base's
  `atvoss/elewise/elewise_tiling.h` (the 950 elementwise framework) and declares a regbase tiling
  class; the 910B program calls it only behind `Ops::Base::IsRegbaseSocVersion`.
* `op_host/abs_like_tiling_arch35.cpp` defines that class on a DAG header needing `atvoss/util/dag.h`,
  which neither the repository nor the twin has: it cannot build for the 910B here.
* The operator's CMakeLists maps ascend910b → `op_host/arch22/` (a helper the 910B tiling calls) and
  ascend950 → `op_host/arch35/` (a source that would not build), as `SUPPORT_TILING_DIR` does.
* Tiling data in `op_host/abs_like_tiling_def.h`; the kernel class keeps its queue depth as
  `constexpr static uint8_t BUFFER_NUM = 2;` and clears the sign with `And` on int16.
"""

from __future__ import annotations

from pathlib import Path

CMAKE = """\
set(SUPPORT_COMPUTE_UNIT "ascend910b" "ascend950")
set(SUPPORT_TILING_DIR "arch22" "arch35")
add_all_modules_sources(OPTYPE abs_like ACLNNTYPE aclnn
    COMPUTE_UNIT ${SUPPORT_COMPUTE_UNIT} TILING_DIR ${SUPPORT_TILING_DIR})
"""

TILING_DEF = """\
#ifndef ABS_LIKE_TILING_DEF_H
#define ABS_LIKE_TILING_DEF_H
#include "register/tilingdata_base.h"

namespace optiling {
struct AbsLikeCompileInfo {};
BEGIN_TILING_DATA_DEF(AbsLikeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalNum);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AbsLike, AbsLikeTilingData)
}  // namespace optiling
#endif
"""

ARCH35_H = """\
#ifndef ABS_LIKE_TILING_ARCH35_H
#define ABS_LIKE_TILING_ARCH35_H
#include "register/tilingdata_base.h"
#include "atvoss/elewise/elewise_tiling.h"

namespace optiling {
using namespace Ops::Base;
class AbsLikeRegbaseTiling {
public:
    explicit AbsLikeRegbaseTiling(gert::TilingContext *context) : context_(context) {}
    ge::graphStatus RunTiling();

private:
    gert::TilingContext *context_ = nullptr;
    EleBaseTilingDataV2 *tiling_ = nullptr;
};
}  // namespace optiling
#endif
"""

ARCH35_CPP = """\
#include "abs_like_tiling_arch35.h"
#include "../op_kernel/arch35/abs_like_dag.h"

namespace optiling {
ge::graphStatus AbsLikeRegbaseTiling::RunTiling()
{
    ElewiseBaseTiling base(context_);
    return base.DoTiling<AbsLikeOp::Dag<half>::OpDag>(*tiling_);
}
}  // namespace optiling
"""

DAG_H = """\
#pragma once
#include "atvoss/util/dag.h"
namespace AbsLikeOp {
template <typename T> struct Dag { using OpDag = Ops::Base::DAGSch<T>; };
}
"""

ARCH22_H = """\
#pragma once
#include <cstdint>
namespace optiling {
uint32_t AbsLikeTileNum(uint32_t perCore, uint32_t tile);
}
"""

ARCH22_CPP = """\
#include "abs_like_tiling_arch22.h"
namespace optiling {
uint32_t AbsLikeTileNum(uint32_t perCore, uint32_t tile) { return (perCore + tile - 1) / tile; }
}
"""

ARCH35_DIR_CPP = """\
#include "nowhere/regbase_only.h"
"""

HOST = """\
#include "register/op_impl_registry.h"
#include "abs_like_tiling_arch35.h"
#include "abs_like_tiling_def.h"
#include "arch22/abs_like_tiling_arch22.h"
#include "op_host/tiling_base_util.h"

namespace optiling {
constexpr uint32_t TILE = 2048;

static ge::graphStatus AbsLikeTilingFunc(gert::TilingContext *context)
{
    if (Ops::Base::IsRegbaseSocVersion(context)) {
        AbsLikeRegbaseTiling regbase(context);
        return regbase.RunTiling();
    }
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = static_cast<uint32_t>(platform.GetCoreNumAiv());
    uint32_t blocks = (total + 127) / 128;  // whole 256 B blocks of halves per core
    uint32_t used = blocks < cores ? (blocks ? blocks : 1) : cores;
    uint32_t perCore = (blocks + used - 1) / used * 128;
    used = (total + perCore - 1) / perCore;
    AbsLikeTilingData tiling;
    tiling.set_totalNum(total);
    tiling.set_perCore(perCore);
    tiling.set_tileNum(AbsLikeTileNum(perCore, TILE));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->SetTilingKey(1);
    context->SetBlockDim(used);
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus AbsLikeParse([[maybe_unused]] gert::TilingParseContext *context)
{
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(AbsLike).Tiling(AbsLikeTilingFunc).TilingParse<AbsLikeCompileInfo>(AbsLikeParse);
}  // namespace optiling
"""

KERNEL_CLASS = """\
#ifndef ABS_LIKE_H
#define ABS_LIKE_H
#include "kernel_operator.h"

namespace AbsLikeNS {
using namespace AscendC;

class AbsLike {
public:
    constexpr static uint8_t BUFFER_NUM = 2;
    constexpr static uint32_t TILE = 2048;

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AbsLikeTilingData *t)
    {
        uint32_t start = t->perCore * GetBlockIdx();
        count_ = t->totalNum - start < t->perCore ? t->totalNum - start : t->perCore;
        xGm_.SetGlobalBuffer((__gm__ int16_t *)x + start, count_);
        yGm_.SetGlobalBuffer((__gm__ int16_t *)y + start, count_);
        pipe_.InitBuffer(inQ_, BUFFER_NUM, TILE * sizeof(int16_t));
        pipe_.InitBuffer(outQ_, BUFFER_NUM, TILE * sizeof(int16_t));
        pipe_.InitBuffer(mask_, TILE * sizeof(int16_t));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<int16_t> mask = mask_.Get<int16_t>();
        Duplicate(mask, static_cast<int16_t>(0x7fff), static_cast<int32_t>(TILE));
        for (uint32_t off = 0; off < count_; off += TILE) {
            uint32_t n = count_ - off < TILE ? count_ - off : TILE;
            DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(int16_t)), 0, 0, 0};
            LocalTensor<int16_t> x = inQ_.AllocTensor<int16_t>();
            DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<int16_t>{false, 0, 0, 0});
            inQ_.EnQue(x);
            x = inQ_.DeQue<int16_t>();
            LocalTensor<int16_t> y = outQ_.AllocTensor<int16_t>();
            And(y, x, mask, static_cast<int32_t>(n));
            outQ_.EnQue(y);
            inQ_.FreeTensor(x);
            y = outQ_.DeQue<int16_t>();
            DataCopyPad(yGm_[off], y, p);
            outQ_.FreeTensor(y);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
    TBuf<> mask_;
    GlobalTensor<int16_t> xGm_, yGm_;
    uint32_t count_ = 0;
};
}  // namespace AbsLikeNS
#endif
"""

KERNEL_ENTRY = """\
#include "abs_like.h"

extern "C" __global__ __aicore__ void abs_like(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        AbsLikeNS::AbsLike op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
}
"""

SPEC = """\
schema_version = 1
name = "abs_like"
soc = "Ascend910B4"
reference = "reference.py:abs_like"

[[inputs]]
name = "x"
dtypes = ["float16"]
range = [-4.0, 4.0]

[[outputs]]
name = "y"
dtypes = ["float16"]

[[cases]]
name = "rows"
dtype = "float16"
shapes = { x = [16, 1000] }
"""

REFERENCE = """\
import numpy as np


def abs_like(x):
    return np.abs(x)
"""


def write_abs_like(root: Path, host: str = HOST) -> Path:
    """A repository under `root` (`build.sh` beside `common/`); returns `math/abs_like`."""
    op = root / "math" / "abs_like"
    files = {
        root / "build.sh": "#!/bin/bash\n",
        root / "common" / "CMakeLists.txt": "# common\n",
        op / "CMakeLists.txt": CMAKE,
        op / "op_host/abs_like_tiling.cpp": host,
        op / "op_host/abs_like_tiling_def.h": TILING_DEF,
        op / "op_host/abs_like_tiling_arch35.h": ARCH35_H,
        op / "op_host/abs_like_tiling_arch35.cpp": ARCH35_CPP,
        op / "op_host/arch22/abs_like_tiling_arch22.h": ARCH22_H,
        op / "op_host/arch22/abs_like_tiling_arch22.cpp": ARCH22_CPP,
        op / "op_host/arch35/abs_like_tiling_regbase.cpp": ARCH35_DIR_CPP,
        op / "op_kernel/abs_like.cpp": KERNEL_ENTRY,
        op / "op_kernel/abs_like.h": KERNEL_CLASS,
        op / "op_kernel/arch35/abs_like_dag.h": DAG_H,
        op / "ascendopt.toml": SPEC,
        op / "reference.py": REFERENCE,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return op
