"""A look-alike of an open-repo operator whose kernel entry only dispatches (ops-nn style), written for
the rewrite-scope tests.

`<repo>/activation/quad_like/` (y = x * |x|): `op_kernel/quad_like.cpp` picks a class by tiling key;
the class that runs on 910B is in `op_kernel/quad_like_a.h`, the one behind `#if __NPU_ARCH__ == 3510`
in `op_kernel/quad_like_b.h`; `op_kernel/arch35/` holds the 950 variant (an entry and its header);
`quad_like_a.h` takes its tile count from the repository-shared `common/inc/op_kernel/shared.h`. The
host `op_host/quad_like_tiling.cpp`'s TilingFunc counts cores with a helper class of
`op_host/quad_like_tiling_helper.h`; tiling data by `BEGIN_TILING_DATA_DEF` in `op_host/quad_like_tiling.h`.
"""

from __future__ import annotations

from pathlib import Path

SHARED = """\
#ifndef SHARED_KERNEL_UTIL_H
#define SHARED_KERNEL_UTIL_H
#include "kernel_operator.h"

namespace SharedUtil {
__aicore__ inline int64_t TileCount(int64_t total, int64_t tile)
{
    return (total + tile - 1) / tile;
}
}  // namespace SharedUtil
#endif
"""

CLASS_A = """\
#ifndef QUAD_LIKE_A_H
#define QUAD_LIKE_A_H
#include "kernel_operator.h"
#include "op_kernel/shared.h"

namespace QuadLike {
using namespace AscendC;
constexpr int32_t TILE_ELEMENTS = 8 * 1024;

template <typename T>
class QuadLikeA {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const QuadLikeTilingData *t)
    {
        total_ = t->elementNum;
        cores_ = t->needCoreNum;
        xGm_.SetGlobalBuffer((__gm__ T *)x);
        yGm_.SetGlobalBuffer((__gm__ T *)y);
        pipe_.InitBuffer(inQ_, 1, TILE_ELEMENTS * sizeof(T));
        pipe_.InitBuffer(outQ_, 1, TILE_ELEMENTS * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        int64_t me = GetBlockIdx();
        if (me >= cores_) {
            return;
        }
        int64_t tiles = SharedUtil::TileCount(total_, TILE_ELEMENTS);
        for (int64_t i = me; i < tiles; i += cores_) {
            int64_t off = i * TILE_ELEMENTS;
            int64_t n = total_ - off < TILE_ELEMENTS ? total_ - off : TILE_ELEMENTS;
            DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            LocalTensor<T> x = inQ_.AllocTensor<T>();
            DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<T>{false, 0, 0, 0});
            inQ_.EnQue(x);
            x = inQ_.DeQue<T>();
            LocalTensor<T> y = outQ_.AllocTensor<T>();
            Abs(y, x, n);
            Mul(y, y, x, n);
            outQ_.EnQue(y);
            inQ_.FreeTensor(x);
            y = outQ_.DeQue<T>();
            DataCopyPad(yGm_[off], y, p);
            outQ_.FreeTensor(y);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQ_;
    TQue<QuePosition::VECOUT, 2> outQ_;
    GlobalTensor<T> xGm_, yGm_;
    int64_t total_ = 0;
    int64_t cores_ = 1;
};
}  // namespace QuadLike
#endif
"""

CLASS_B = """\
#ifndef QUAD_LIKE_B_H
#define QUAD_LIKE_B_H
#include "kernel_operator.h"

namespace QuadLike {
template <typename T>
class QuadLikeB {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const QuadLikeTilingData *t) {}
    __aicore__ inline void Process() {}
};
}  // namespace QuadLike
#endif
"""

ENTRY = """\
#include "kernel_operator.h"
#include "quad_like_a.h"
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
#include "quad_like_b.h"
#endif

extern "C" __global__ __aicore__ void quad_like(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        QuadLike::QuadLikeA<float> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
    if (TILING_KEY_IS(2)) {
        QuadLike::QuadLikeB<float> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
#endif
}
"""

ENTRY_950 = """\
#include "kernel_operator.h"
#include "arch35/quad_like_regbase.h"

extern "C" __global__ __aicore__ void quad_like(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
}
"""

TILING_DATA = """\
#ifndef QUAD_LIKE_TILING_H
#define QUAD_LIKE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
struct QuadLikeCompileInfo {};
BEGIN_TILING_DATA_DEF(QuadLikeTilingData)
TILING_DATA_FIELD_DEF(int64_t, elementNum);
TILING_DATA_FIELD_DEF(uint32_t, needCoreNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(QuadLike, QuadLikeTilingData)
}  // namespace optiling
#endif
"""

HELPER = """\
#ifndef QUAD_LIKE_TILING_HELPER_H
#define QUAD_LIKE_TILING_HELPER_H
#include <cstdint>

namespace optiling {
constexpr int64_t ELEMENTS_EACH_CORE = 8 * 1024;

class QuadLikeCoreSplit {
public:
    QuadLikeCoreSplit(int64_t total, int64_t coreNum) : total_(total), coreNum_(coreNum) {}
    int64_t NeedCores() const
    {
        int64_t need = (total_ + ELEMENTS_EACH_CORE - 1) / ELEMENTS_EACH_CORE;
        return need < 1 ? 1 : (need > coreNum_ ? coreNum_ : need);
    }

private:
    int64_t total_;
    int64_t coreNum_;
};

inline int64_t QuadLikeWorkspaceGuess(int64_t total)
{
    return total * 2;
}
}  // namespace optiling
#endif
"""

HOST = """\
#include "quad_like_tiling.h"
#include "quad_like_tiling_helper.h"
#include "register/op_impl_registry.h"

namespace optiling {
constexpr uint64_t TILING_KEY_FLOAT = 1;

static ge::graphStatus QuadLikeTilingFunc(gert::TilingContext *context)
{
    auto shape = context->GetInputShape(0);
    if (shape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    int64_t total = shape->GetStorageShape().GetShapeSize();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    QuadLikeCoreSplit split(total, platform.GetCoreNumAiv());
    int64_t need = split.NeedCores();
    QuadLikeTilingData tiling;
    tiling.set_elementNum(total);
    tiling.set_needCoreNum(static_cast<uint32_t>(need));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->SetTilingKey(TILING_KEY_FLOAT);
    context->SetBlockDim(need);
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus QuadLikeTilingParse([[maybe_unused]] gert::TilingParseContext *context)
{
    int64_t unused = 0;
    return unused == 0 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}

IMPL_OP_OPTILING(QuadLike).Tiling(QuadLikeTilingFunc).TilingParse<QuadLikeCompileInfo>(QuadLikeTilingParse);
}  // namespace optiling
"""

SPEC = """\
schema_version = 1
name = "quad_like"
soc = "Ascend910B4"
reference = "reference.py:quad_like"

[[inputs]]
name = "x"
dtypes = ["float32"]
range = [-2.0, 2.0]

[[outputs]]
name = "y"
dtypes = ["float32"]

[[cases]]
name = "small"
dtype = "float32"
shapes = { x = [3, 100] }

[[cases]]
name = "big"
dtype = "float32"
shapes = { x = [64, 4096] }
"""

REFERENCE = """\
import numpy as np


def quad_like(x):
    return (x.astype(np.float64) * np.abs(x.astype(np.float64))).astype(x.dtype)
"""


def write_quad_like(root: Path) -> Path:
    """The repository under `root`; returns the operator folder (`activation/quad_like`)."""
    files = {
        "build.sh": "#!/bin/bash\ncmake -S . -B build\n",
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(ops_lookalike)\n",
        "common/CMakeLists.txt": "# common\n",
        "common/inc/op_kernel/shared.h": SHARED,
        "activation/quad_like/op_kernel/quad_like.cpp": ENTRY,
        "activation/quad_like/op_kernel/quad_like_a.h": CLASS_A,
        "activation/quad_like/op_kernel/quad_like_b.h": CLASS_B,
        "activation/quad_like/op_kernel/arch35/quad_like_apt.cpp": ENTRY_950,
        "activation/quad_like/op_kernel/arch35/quad_like_regbase.h": "#pragma once\n",
        "activation/quad_like/op_host/quad_like_tiling.h": TILING_DATA,
        "activation/quad_like/op_host/quad_like_tiling_helper.h": HELPER,
        "activation/quad_like/op_host/quad_like_tiling.cpp": HOST,
        "activation/quad_like/ascendopt.toml": SPEC,
        "activation/quad_like/reference.py": REFERENCE,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "activation" / "quad_like"
