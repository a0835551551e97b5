"""A look-alike of CANN's open 910B norm kernels (ops-nn `norm/rms_norm` style), written for these tests.

`extern "C"` entry with GET_TILING_DATA and numeric TILING_KEY_IS keys; the tiling-data class in
`op_host/<op>_tiling.h` (BEGIN_TILING_DATA_DEF); OpDef with an `epsilon` attr in `op_host/<op>_def.cpp`;
a tiling program that prefers the compile info its TilingParse filled (SoC version, core count, UB
size) over the platform, so a compile info the twin never parsed picks the wrong key. The kernel uses
the APIs the real ones need: the buffer-handle `DeQue()` after loading gamma, `Gather` to broadcast
per-row rstd held one per 32 B block (and to compact it for the output), `SetDeqScale` with the
int32 -> half Cast for the optional int8-rounded path (key 2, as a quantising norm rounds).
"""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#ifndef RMS_LIKE_TILING_H
#define RMS_LIKE_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"  // as ops-nn swi_glu's has it: the kernel sees this header too

namespace optiling {
BEGIN_TILING_DATA_DEF(RmsLikeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numRow);
TILING_DATA_FIELD_DEF(uint32_t, numCol);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(float, avgFactor);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RmsLike, RmsLikeTilingData)
}  // namespace optiling
#endif
"""

DEF = """\
#include "register/op_def_registry.h"

namespace ops {
class RmsLike : public OpDef {
public:
    explicit RmsLike(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("rstd").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RmsLike);
}  // namespace ops
"""

HOST = """\
#include "rms_like_tiling.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
struct RmsLikeCompileInfo {
    platform_ascendc::SocVersion soc;
    uint32_t coreNum;
    uint64_t ubSize;
};

static ge::graphStatus TilingRmsLike(gert::TilingContext *context)
{
    auto info = reinterpret_cast<const RmsLikeCompileInfo *>(context->GetCompileInfo());
    if (info == nullptr || info->coreNum == 0) return ge::GRAPH_FAILED;
    const gert::Shape x = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape gamma = context->GetInputShape(1)->GetStorageShape();
    uint32_t numCol = gamma.GetShapeSize();
    uint32_t numRow = x.GetShapeSize() / numCol;
    const float *eps = context->GetAttrs()->GetFloat(0);
    if (eps == nullptr || numCol % 64 != 0) return ge::GRAPH_FAILED;
    RmsLikeTilingData tiling;
    uint32_t per = (numRow + info->coreNum - 1) / info->coreNum;
    // one core's rows, their squares, y and three 32 B-per-row buffers must fit the UB
    uint32_t most = static_cast<uint32_t>((info->ubSize - 4 * numCol) / (12 * numCol + 128));
    if (per > most) per = most;
    tiling.set_numRow(numRow);
    tiling.set_numCol(numCol);
    tiling.set_rowsPerCore(per);
    tiling.set_avgFactor(1.0f / numCol);
    tiling.set_epsilon(*eps);
    context->SetBlockDim((numRow + per - 1) / per);
    // key 0: the 910B kernel; key 1: another SoC's (this look-alike leaves it empty)
    context->SetTilingKey(info->soc == platform_ascendc::SocVersion::ASCEND910B ? 0 : 1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus TilingPrepareRmsLike(gert::TilingParseContext *context)
{
    auto info = context->GetCompiledInfo<RmsLikeCompileInfo>();
    if (info == nullptr) return ge::GRAPH_FAILED;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    info->soc = platform.GetSocVersion();
    info->coreNum = platform.GetCoreNumAiv();
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(RmsLike).Tiling(TilingRmsLike).TilingParse<RmsLikeCompileInfo>(TilingPrepareRmsLike);
}  // namespace optiling
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t BLK = 8;  // float32 per 32 B block

class KernelRmsLike {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR rstd, const RmsLikeTilingData *t)
    {
        cols_ = t->numCol;
        avg_ = t->avgFactor;
        eps_ = t->epsilon;
        uint32_t start = GetBlockIdx() * t->rowsPerCore;
        rows_ = t->numRow - start < t->rowsPerCore ? t->numRow - start : t->rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float *)x + start * cols_, rows_ * cols_);
        yGm_.SetGlobalBuffer((__gm__ float *)y + start * cols_, rows_ * cols_);
        rstdGm_.SetGlobalBuffer((__gm__ float *)rstd + start, rows_);
        gammaGm_.SetGlobalBuffer((__gm__ float *)gamma, cols_);
        pipe_.InitBuffer(inX_, 1, rows_ * cols_ * sizeof(float));
        pipe_.InitBuffer(inGamma_, 1, cols_ * sizeof(float));
        pipe_.InitBuffer(outY_, 1, rows_ * cols_ * sizeof(float));
        pipe_.InitBuffer(outRstd_, 1, rows_ * BLK * sizeof(float));
        pipe_.InitBuffer(sqBuf_, rows_ * cols_ * sizeof(float));
        pipe_.InitBuffer(blkBuf_, rows_ * BLK * sizeof(float));
        pipe_.InitBuffer(bcBuf_, rows_ * BLK * sizeof(float));
        pipe_.InitBuffer(offBuf_, 2 * rows_ * BLK * sizeof(uint32_t));
    }
    __aicore__ inline void Process()
    {
        // gamma: wait for the copy through the handle form and keep using the tensor that was enqueued
        LocalTensor<float> g = inGamma_.AllocTensor<float>();
        DataCopy(g, gammaGm_, cols_);
        inGamma_.EnQue(g);
        inGamma_.DeQue();

        LocalTensor<float> xl = inX_.AllocTensor<float>();
        DataCopy(xl, xGm_, rows_ * cols_);
        inX_.EnQue(xl);
        xl = inX_.DeQue<float>();

        // byte offsets: [r * 8 + k] -> block r (broadcast), [n + r] -> block r (compact)
        LocalTensor<uint32_t> off = offBuf_.Get<uint32_t>();
        uint32_t n = rows_ * BLK;
        for (uint32_t i = 0; i < n; ++i) off.SetValue(i, (i / BLK) * 32);
        for (uint32_t r = 0; r < rows_; ++r) off.SetValue(n + r, r * 32);
        SetFlag<HardEvent::S_V>(EVENT_ID0);
        WaitFlag<HardEvent::S_V>(EVENT_ID0);

        LocalTensor<float> sq = sqBuf_.Get<float>();
        LocalTensor<float> blk = blkBuf_.Get<float>();
        Mul(sq, xl, xl, rows_ * cols_);
        Duplicate(blk, 0.0f, n);
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < rows_; ++r) ReduceSum(blk[r * BLK], sq[r * cols_], sq[r * cols_], cols_);
        PipeBarrier<PIPE_V>();
        Muls(blk, blk, avg_, n);
        PipeBarrier<PIPE_V>();
        Adds(blk, blk, eps_, n);
        PipeBarrier<PIPE_V>();
        Sqrt(blk, blk, n);
        LocalTensor<float> bc = bcBuf_.Get<float>();
        Duplicate(bc, 1.0f, n);
        PipeBarrier<PIPE_V>();
        Div(blk, bc, blk, n);
        PipeBarrier<PIPE_V>();
        Gather(bc, blk, off, 0u, n);
        LocalTensor<float> rs = outRstd_.AllocTensor<float>();
        Gather(rs, blk, off[n], 0u, rows_);
        outRstd_.EnQue(rs);
        PipeBarrier<PIPE_V>();

        LocalTensor<float> yl = outY_.AllocTensor<float>();
        for (uint32_t r = 0; r < rows_; ++r) {
            Mul(yl[r * cols_], xl[r * cols_], bc[r * BLK], 64, cols_ / 64, {1, 1, 0, 8, 8, 0});
            PipeBarrier<PIPE_V>();
            Mul(yl[r * cols_], yl[r * cols_], g, cols_);
        }
        if (TILING_KEY_IS(2)) RoundToInt8Grid(yl, sq);
        outY_.EnQue(yl);
        inX_.FreeTensor(xl);
        inGamma_.FreeTensor(g);

        yl = outY_.DeQue<float>();
        DataCopy(yGm_, yl, rows_ * cols_);
        outY_.FreeTensor(yl);
        rs = outRstd_.DeQue<float>();
        DataCopyPad(rstdGm_, rs, {1, static_cast<uint32_t>(rows_ * sizeof(float)), 0, 0, 0});
        outRstd_.FreeTensor(rs);
    }

private:
    // y rounded to integers as a quantising norm does: float -> int32 (rint) -> half (DEQSCALE 1) -> float
    __aicore__ inline void RoundToInt8Grid(LocalTensor<float> &y, LocalTensor<float> &tmp)
    {
        uint32_t total = rows_ * cols_;
        PipeBarrier<PIPE_V>();
        Cast(tmp.ReinterpretCast<int32_t>(), y, RoundMode::CAST_RINT, total);
        PipeBarrier<PIPE_V>();
        SetDeqScale((half)1.0f);
        PipeBarrier<PIPE_V>();
        Cast(y.ReinterpretCast<half>(), tmp.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, total);
        PipeBarrier<PIPE_V>();
        Cast(tmp, y.ReinterpretCast<half>(), RoundMode::CAST_NONE, total);
        PipeBarrier<PIPE_V>();
        Adds(y, tmp, 0.0f, total);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inX_, inGamma_;
    TQue<QuePosition::VECOUT, 1> outY_, outRstd_;
    TBuf<TPosition::VECCALC> sqBuf_, blkBuf_, bcBuf_, offBuf_;
    GlobalTensor<float> xGm_, gammaGm_, yGm_, rstdGm_;
    uint32_t rows_ = 0, cols_ = 0;
    float avg_ = 0, eps_ = 0;
};

extern "C" __global__ __aicore__ void rms_like(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR rstd,
                                               GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(0) || TILING_KEY_IS(2)) {
        KernelRmsLike op;
        op.Init(x, gamma, y, rstd, &tilingData);
        op.Process();
    }
}
"""

SPEC = """\
schema_version = 1
name = "rms_like"
soc = "Ascend910B4"
reference = "reference.py:rms_like"

[[inputs]]
name = "x"
dtypes = ["float32"]
range = [-2.0, 2.0]

[[inputs]]
name = "gamma"
dtypes = ["float32"]
range = [0.5, 1.5]

[[outputs]]
name = "y"
dtypes = ["float32"]

[[outputs]]
name = "rstd"
dtypes = ["float32"]

[[attrs]]
name = "epsilon"
type = "float"
default = 1e-6

[[cases]]
name = "one-core"
dtype = "float32"
shapes = { x = [3, 128], gamma = [128] }

[[cases]]
name = "many-cores"
dtype = "float32"
shapes = { x = [100, 64], gamma = [64] }

[[cases]]
name = "wide"
dtype = "float32"
shapes = { x = [2, 8, 256], gamma = [256] }
"""

REFERENCE = """\
import numpy as np


def rms_like(x, gamma, epsilon=1e-6):
    x = x.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + epsilon)
    return x * rstd * gamma, rstd
"""


def write_rms_like(root: Path, host: str = HOST, kernel: str = KERNEL) -> Path:
    op = root / "norm" / "rms_like"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir(parents=True)
    (op / "op_host" / "rms_like_def.cpp").write_text(DEF)
    (op / "op_host" / "rms_like_tiling.h").write_text(TILING_H)
    (op / "op_host" / "rms_like_tiling.cpp").write_text(host)
    (op / "op_kernel" / "rms_like.cpp").write_text(kernel)
    (op / "ascendopt.toml").write_text(SPEC)
    (op / "reference.py").write_text(REFERENCE)
    return op
