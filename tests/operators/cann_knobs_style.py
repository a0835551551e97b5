"""Two look-alikes of CANN open-repo operators, written for the knob-space tests, with the tunables
where CANN keeps them: in the kernel's class header and in the host tiling program.

* `activation/sq_like` (ops-nn style, y = x * |x|): the class in `op_kernel/sq_like.h` streams tiles
  of `PP_ELEMENT_NUM = 12 * 1024` elements (a per-architecture value behind `#if __NPU_ARCH__`) and
  hands whole tiles to the cores; the host counts its cores in `MAX_ELEMENT_NUM_EACH_CORE = 12 * 1024`
  (the same size, another name), tiling data by `BEGIN_TILING_DATA_DEF`, `TILING_KEY_IS` keys.
* `math/sub_like` (ops-math style, z = x - y): `op_kernel/sub_like.h` has `BUFFER_NUM = 2` queues
  of depth 2; the host splits ubSize into `BUFFER_NUM = 6` UB tensors (2 inputs + 1 output, double
  buffered); `ASCENDC_TPL_*` keys: `schMode` by dtype (a correctness requirement) and a bool
  `doubleBuffer` chosen by `total > MIN_SPLIT_THRESHOLD` (a policy).
"""

from __future__ import annotations

from pathlib import Path

SQ_KERNEL_CLASS = """\
#ifndef SQ_LIKE_H
#define SQ_LIKE_H
#include "kernel_operator.h"

namespace SqLike {
using namespace AscendC;

#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003
constexpr int32_t PP_ELEMENT_NUM = 4 * 1024;
#else
constexpr int32_t PP_ELEMENT_NUM = 12 * 1024;
#endif

template <typename T>
class SqLikeND {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SqLikeTilingData *t)
    {
        total_ = t->elementNum;
        cores_ = t->needCoreNum;
        xGm_.SetGlobalBuffer((__gm__ T *)x);
        yGm_.SetGlobalBuffer((__gm__ T *)y);
        pipe_.InitBuffer(inQ_, 2, PP_ELEMENT_NUM * sizeof(T));
        pipe_.InitBuffer(outQ_, 2, PP_ELEMENT_NUM * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        int64_t me = GetBlockIdx();
        if (me >= cores_) {
            return;
        }
        int64_t tiles = (total_ + PP_ELEMENT_NUM - 1) / PP_ELEMENT_NUM;
        int64_t each = tiles / cores_;
        int64_t extra = tiles % cores_;
        int64_t first = me * each + (me < extra ? me : extra);
        int64_t mine = each + (me < extra ? 1 : 0);
        for (int64_t i = first; i < first + mine; i++) {
            int64_t off = i * PP_ELEMENT_NUM;
            int64_t n = total_ - off < PP_ELEMENT_NUM ? total_ - off : PP_ELEMENT_NUM;
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
}  // namespace SqLike
#endif
"""

SQ_KERNEL_ENTRY = """\
#include "sq_like.h"

using namespace SqLike;

extern "C" __global__ __aicore__ void sq_like(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
#if __CCE_AICORE__ == 220 || (defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003)
    if (TILING_KEY_IS(1)) {
        SqLikeND<float> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
#endif
}
"""

SQ_TILING_DATA = """\
#ifndef SQ_LIKE_TILING_H
#define SQ_LIKE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
struct SqLikeCompileInfo {};
BEGIN_TILING_DATA_DEF(SqLikeTilingData)
TILING_DATA_FIELD_DEF(int64_t, elementNum);
TILING_DATA_FIELD_DEF(uint32_t, needCoreNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SqLike, SqLikeTilingData)
}  // namespace optiling
#endif
"""

SQ_HOST = """\
#include "sq_like_tiling.h"
#include "register/op_impl_registry.h"

namespace optiling {
constexpr int64_t MAX_ELEMENT_NUM_EACH_CORE = 12 * 1024;
constexpr uint64_t TILING_KEY_FLOAT = 1;

static ge::graphStatus SqLikeTilingFunc(gert::TilingContext *context)
{
    auto shape = context->GetInputShape(0);
    if (shape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    int64_t total = shape->GetStorageShape().GetShapeSize();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    int64_t coreNum = platform.GetCoreNumAiv();
    int64_t need = (total + MAX_ELEMENT_NUM_EACH_CORE - 1) / MAX_ELEMENT_NUM_EACH_CORE;
    need = need < 1 ? 1 : (need > coreNum ? coreNum : need);
    SqLikeTilingData tiling;
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

static ge::graphStatus SqLikeTilingParse([[maybe_unused]] gert::TilingParseContext *context)
{
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(SqLike).Tiling(SqLikeTilingFunc).TilingParse<SqLikeCompileInfo>(SqLikeTilingParse);
}  // namespace optiling
"""

SQ_SPEC = """\
schema_version = 1
name = "sq_like"
soc = "Ascend910B4"
reference = "reference.py:sq_like"

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
shapes = { x = [256, 4096] }
"""

SQ_REFERENCE = """\
import numpy as np


def sq_like(x):
    return (x.astype(np.float64) * np.abs(x.astype(np.float64))).astype(x.dtype)
"""

SUB_TILING_KEY = """\
#ifndef SUB_LIKE_TILING_KEY_H
#define SUB_LIKE_TILING_KEY_H
#include "ascendc/host_api/tiling/template_argument.h"

#define SUB_LIKE_MODE_FLOAT 0
#define SUB_LIKE_MODE_INT32 1

ASCENDC_TPL_ARGS_DECL(SubLike,
    ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, SUB_LIKE_MODE_FLOAT, SUB_LIKE_MODE_INT32),
    ASCENDC_TPL_BOOL_DECL(doubleBuffer, 0, 1));

ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, SUB_LIKE_MODE_FLOAT, SUB_LIKE_MODE_INT32),
        ASCENDC_TPL_BOOL_SEL(doubleBuffer, 0, 1)));
#endif
"""

SUB_TILING_DATA = """\
#ifndef SUB_LIKE_TILING_DATA_H
#define SUB_LIKE_TILING_DATA_H
#include <cstdint>
struct SubLikeTilingData {
    int64_t totalNum = 0;
    int64_t blockFactor = 0;
    int64_t ubFactor = 0;
};
#endif
"""

SUB_KERNEL_CLASS = """\
#ifndef SUB_LIKE_H
#define SUB_LIKE_H
#include "kernel_operator.h"
#include "sub_like_tiling_data.h"
#include "sub_like_tiling_key.h"

namespace NsSubLike {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T, bool DB>
class SubLike {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const SubLikeTilingData *t)
    {
        int64_t start = t->blockFactor * GetBlockIdx();
        len_ = t->totalNum - start < t->blockFactor ? t->totalNum - start : t->blockFactor;
        ub_ = t->ubFactor;
        xGm_.SetGlobalBuffer((__gm__ T *)x + start, len_);
        yGm_.SetGlobalBuffer((__gm__ T *)y + start, len_);
        zGm_.SetGlobalBuffer((__gm__ T *)z + start, len_);
        constexpr int32_t depth = DB ? BUFFER_NUM : 1;
        pipe_.InitBuffer(qx_, depth, ub_ * sizeof(T));
        pipe_.InitBuffer(qy_, depth, ub_ * sizeof(T));
        pipe_.InitBuffer(qz_, depth, ub_ * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (int64_t off = 0; off < len_; off += ub_) {
            int64_t n = len_ - off < ub_ ? len_ - off : ub_;
            DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            LocalTensor<T> x = qx_.AllocTensor<T>();
            LocalTensor<T> y = qy_.AllocTensor<T>();
            DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<T>{false, 0, 0, 0});
            DataCopyPad(y, yGm_[off], p, DataCopyPadExtParams<T>{false, 0, 0, 0});
            qx_.EnQue(x);
            qy_.EnQue(y);
            x = qx_.DeQue<T>();
            y = qy_.DeQue<T>();
            LocalTensor<T> z = qz_.AllocTensor<T>();
            Sub(z, x, y, n);
            qz_.EnQue(z);
            qx_.FreeTensor(x);
            qy_.FreeTensor(y);
            z = qz_.DeQue<T>();
            DataCopyPad(zGm_[off], z, p);
            qz_.FreeTensor(z);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> qx_, qy_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> qz_;
    GlobalTensor<T> xGm_, yGm_, zGm_;
    int64_t len_ = 0, ub_ = 0;
};
}  // namespace NsSubLike
#endif
"""

SUB_KERNEL_ENTRY = """\
#include "sub_like.h"

template <uint32_t schMode, bool doubleBuffer>
__global__ __aicore__ void sub_like(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SubLikeTilingData);
    GET_TILING_DATA_WITH_STRUCT(SubLikeTilingData, tilingData, tiling);
    if constexpr (schMode == SUB_LIKE_MODE_FLOAT) {
        NsSubLike::SubLike<float, doubleBuffer> op;
        op.Init(x, y, z, &tilingData);
        op.Process();
    }
    if constexpr (schMode == SUB_LIKE_MODE_INT32) {
        NsSubLike::SubLike<int32_t, doubleBuffer> op;
        op.Init(x, y, z, &tilingData);
        op.Process();
    }
}
"""

SUB_HOST = """\
#include "log/log.h"
#include "util/math_util.h"
#include "util/platform_util.h"
#include "op_host/tiling_base_util.h"
#include "register/op_impl_registry.h"
#include "../op_kernel/sub_like_tiling_data.h"
#include "../op_kernel/sub_like_tiling_key.h"

namespace optiling {
constexpr int64_t BUFFER_NUM = 6;
constexpr int64_t TYPE_SIZE = 4;
constexpr int64_t MIN_SPLIT_THRESHOLD = 1024;
struct SubLikeCompileInfo {};

static ge::graphStatus SubLikeTilingFunc(gert::TilingContext *context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    int64_t coreNum = platform.GetCoreNumAiv();
    OP_CHECK_IF(coreNum == 0, OP_LOGE(context, "coreNum is 0"), return ge::GRAPH_FAILED);
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    auto xShape = context->GetInputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, xShape);
    int64_t total = Ops::Base::EnsureNotScalar(xShape->GetStorageShape()).GetShapeSize();
    ge::DataType dt = context->GetInputDesc(0)->GetDataType();

    SubLikeTilingData *tiling = context->GetTilingData<SubLikeTilingData>();
    OP_CHECK_NULL_WITH_CONTEXT(context, tiling);
    tiling->totalNum = total;
    tiling->blockFactor = Ops::Base::CeilDiv(total, coreNum);
    int64_t used = Ops::Base::CeilDiv(total, tiling->blockFactor);
    int64_t ubBlock = Ops::Base::GetUbBlockSize(context);
    int64_t ubCanUse = static_cast<int64_t>(ubSize);
    tiling->ubFactor = Ops::Base::FloorAlign(Ops::Base::FloorDiv(ubCanUse / TYPE_SIZE, BUFFER_NUM), ubBlock);
    size_t *ws = context->GetWorkspaceSizes(1);
    OP_CHECK_NULL_WITH_CONTEXT(context, ws);
    ws[0] = 0;
    context->SetBlockDim(used);
    bool doubleBuffer = total > MIN_SPLIT_THRESHOLD;
    if (dt == ge::DT_FLOAT) {
        context->SetTilingKey(GET_TPL_TILING_KEY(SUB_LIKE_MODE_FLOAT, doubleBuffer));
    } else if (dt == ge::DT_INT32) {
        context->SetTilingKey(GET_TPL_TILING_KEY(SUB_LIKE_MODE_INT32, doubleBuffer));
    } else {
        return ge::GRAPH_FAILED;
    }
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus SubLikeTilingParse([[maybe_unused]] gert::TilingParseContext *context)
{
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(SubLike).Tiling(SubLikeTilingFunc).TilingParse<SubLikeCompileInfo>(SubLikeTilingParse);
}  // namespace optiling
"""

SUB_SPEC = """\
schema_version = 1
name = "sub_like"
soc = "Ascend910B4"
reference = "reference.py:sub_like"

[[inputs]]
name = "x"
dtypes = ["float32", "int32"]
range = [-10.0, 10.0]

[[inputs]]
name = "y"
dtypes = ["float32", "int32"]
range = [-10.0, 10.0]

[[outputs]]
name = "z"
dtypes = ["float32", "int32"]

[[cases]]
name = "small"
dtype = "float32"
shapes = { x = [4, 200], y = [4, 200] }

[[cases]]
name = "big"
dtype = "float32"
shapes = { x = [64, 8192], y = [64, 8192] }

[[cases]]
name = "int32"
dtype = "int32"
shapes = { x = [8, 1000], y = [8, 1000] }
"""

SUB_REFERENCE = """\
def sub_like(x, y):
    return (x - y).astype(x.dtype)
"""


def _write(op: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (op / rel).parent.mkdir(parents=True, exist_ok=True)
        (op / rel).write_text(text)
    return op


def write_sq_like(root: Path) -> Path:
    return _write(
        root / "activation" / "sq_like",
        {
            "op_kernel/sq_like.cpp": SQ_KERNEL_ENTRY,
            "op_kernel/sq_like.h": SQ_KERNEL_CLASS,
            "op_host/sq_like_tiling.h": SQ_TILING_DATA,
            "op_host/sq_like_tiling.cpp": SQ_HOST,
            "ascendopt.toml": SQ_SPEC,
            "reference.py": SQ_REFERENCE,
        },
    )


def write_sub_like(root: Path) -> Path:
    return _write(
        root / "math" / "sub_like",
        {
            "op_kernel/sub_like.cpp": SUB_KERNEL_ENTRY,
            "op_kernel/sub_like.h": SUB_KERNEL_CLASS,
            "op_kernel/sub_like_tiling_key.h": SUB_TILING_KEY,
            "op_kernel/sub_like_tiling_data.h": SUB_TILING_DATA,
            "op_host/sub_like_tiling.cpp": SUB_HOST,
            "ascendopt.toml": SUB_SPEC,
            "reference.py": SUB_REFERENCE,
        },
    )
