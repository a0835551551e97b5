"""A look-alike of a CANN open-repo operator (ops-math style), written for these tests.

Two-file kernel (`op_kernel/<op>.cpp` entry `template <uint32_t schMode>` + `op_kernel/<op>.h` class),
`<op>_tiling_key.h` with ASCENDC_TPL_*, `<op>_tiling_data.h` plain struct, and a host tiling program
with the ops-base helpers (OP_CHECK_IF, Ops::Base::CeilDiv, …), GetTilingData<T>(), GetWorkspaceSizes,
GET_TPL_TILING_KEY and IMPL_OP_OPTILING(...).Tiling(...).TilingParse<...>(...).
The float path scales by an architecture constant chosen with `__CCE_AICORE__`, so a wrong architecture
branch gives wrong values.
"""

from __future__ import annotations

from pathlib import Path

TILING_KEY = """\
#ifndef AXPY_LIKE_TILING_KEY_H
#define AXPY_LIKE_TILING_KEY_H
#include "ascendc/host_api/tiling/template_argument.h"

#define AXPY_LIKE_MODE_FLOAT 0
#define AXPY_LIKE_MODE_INT32 1
#define AXPY_LIKE_MODE_SPARE 2

ASCENDC_TPL_ARGS_DECL(AxpyLike,
    ASCENDC_TPL_UINT_DECL(schMode, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST,
                          AXPY_LIKE_MODE_FLOAT, AXPY_LIKE_MODE_INT32, AXPY_LIKE_MODE_SPARE),
    ASCENDC_TPL_BOOL_DECL(doubleBuffer, 0, 1), );

ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
                         ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, AXPY_LIKE_MODE_FLOAT),
                         ASCENDC_TPL_BOOL_SEL(doubleBuffer, 0, 1)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, AXPY_LIKE_MODE_INT32),
                         ASCENDC_TPL_BOOL_SEL(doubleBuffer, 1)), );
#endif
"""

TILING_DATA = """\
#ifndef AXPY_LIKE_TILING_DATA_H
#define AXPY_LIKE_TILING_DATA_H
#include <cstdint>
struct AxpyLikeTilingData {
    int64_t totalNum = 0;
    int64_t blockFactor = 0;
    int64_t ubFactor = 0;
};
#endif
"""

KERNEL_CLASS = """\
#ifndef AXPY_LIKE_H
#define AXPY_LIKE_H
#include "kernel_operator.h"
#include "axpy_like_tiling_data.h"
#include "axpy_like_tiling_key.h"

namespace NsAxpyLike {
using namespace AscendC;

#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
constexpr int32_t ARCH_SCALE = 1;
#else
constexpr int32_t ARCH_SCALE = 3;
#endif

template <typename T, int32_t BUFS>
class AxpyLike {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpyLikeTilingData *t)
    {
        int64_t start = t->blockFactor * GetBlockIdx();
        count_ = t->totalNum - start < t->blockFactor ? t->totalNum - start : t->blockFactor;
        ub_ = t->ubFactor;
        xGm_.SetGlobalBuffer((__gm__ T *)x + start, count_);
        yGm_.SetGlobalBuffer((__gm__ T *)y + start, count_);
        zGm_.SetGlobalBuffer((__gm__ T *)z + start, count_);
        pipe_.InitBuffer(inX_, BUFS, ub_ * sizeof(T));
        pipe_.InitBuffer(inY_, BUFS, ub_ * sizeof(T));
        pipe_.InitBuffer(out_, BUFS, ub_ * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (int64_t off = 0; off < count_; off += ub_) {
            int64_t n = count_ - off < ub_ ? count_ - off : ub_;
            LocalTensor<T> x = inX_.AllocTensor<T>();
            LocalTensor<T> y = inY_.AllocTensor<T>();
            DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            DataCopyPad(x, xGm_[off], p, pad);
            DataCopyPad(y, yGm_[off], p, pad);
            inX_.EnQue(x);
            inY_.EnQue(y);
            x = inX_.DeQue<T>();
            y = inY_.DeQue<T>();
            LocalTensor<T> z = out_.AllocTensor<T>();
            Muls(z, x, static_cast<T>(ARCH_SCALE), n);
            Add(z, z, y, n);
            out_.EnQue(z);
            inX_.FreeTensor(x);
            inY_.FreeTensor(y);
            z = out_.DeQue<T>();
            DataCopyPad(zGm_[off], z, p);
            out_.FreeTensor(z);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inX_, inY_;
    TQue<QuePosition::VECOUT, 2> out_;
    GlobalTensor<T> xGm_, yGm_, zGm_;
    int64_t count_ = 0, ub_ = 0;
};
}  // namespace NsAxpyLike
#endif
"""

KERNEL_ENTRY = """\
#include "axpy_like.h"

template <uint32_t schMode, bool doubleBuffer>
__global__ __aicore__ void axpy_like(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(AxpyLikeTilingData);
    GET_TILING_DATA_WITH_STRUCT(AxpyLikeTilingData, tilingData, tiling);
    constexpr int32_t bufs = doubleBuffer ? 2 : 1;
    if constexpr (schMode == AXPY_LIKE_MODE_FLOAT) {
        NsAxpyLike::AxpyLike<float, bufs> op;
        op.Init(x, y, z, &tilingData);
        op.Process();
    }
    if constexpr (schMode == AXPY_LIKE_MODE_INT32) {
        NsAxpyLike::AxpyLike<int32_t, bufs> op;
        op.Init(x, y, z, &tilingData);
        op.Process();
    }
}
"""

HOST = """\
#include "log/log.h"
#include "util/math_util.h"
#include "util/platform_util.h"
#include "op_host/tiling_base_util.h"
#include "register/op_impl_registry.h"
#include "../op_kernel/axpy_like_tiling_data.h"
#include "../op_kernel/axpy_like_tiling_key.h"

namespace optiling {
constexpr int64_t BUFFER_NUM = 6;
constexpr int64_t DOUBLE_BUFFER_MIN = 4096;
struct AxpyLikeCompileInfo {};

static ge::graphStatus AxpyLikeTilingFunc(gert::TilingContext *context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    int64_t coreNum = platform.GetCoreNumAiv();
    OP_CHECK_IF(coreNum == 0, OP_LOGE(context, "coreNum is 0"), return ge::GRAPH_FAILED);
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    auto xShape = context->GetInputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, xShape);
    int64_t total = Ops::Base::EnsureNotScalar(xShape->GetStorageShape()).GetShapeSize();
    auto desc = context->GetInputDesc(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, desc);
    ge::DataType dt = desc->GetDataType();
    OP_CHECK_IF(dt != ge::DT_FLOAT && dt != ge::DT_INT32, OP_LOGE(context, "dtype %d", int(dt)),
                return ge::GRAPH_FAILED);

    AxpyLikeTilingData *tiling = context->GetTilingData<AxpyLikeTilingData>();
    OP_CHECK_NULL_WITH_CONTEXT(context, tiling);
    OP_CHECK_IF(memset_s(tiling, sizeof(AxpyLikeTilingData), 0, sizeof(AxpyLikeTilingData)) != EOK,
                OP_LOGE(context, "memset_s"), return ge::GRAPH_FAILED);
    tiling->totalNum = total;
    tiling->blockFactor = Ops::Base::CeilAlign(Ops::Base::CeilDiv(total, coreNum), int64_t(8));
    int64_t blocks = Ops::Base::CeilDiv(total, tiling->blockFactor);
    int64_t ubBlock = Ops::Base::GetUbBlockSize(context);
    tiling->ubFactor = Ops::Base::FloorAlign(Ops::Base::FloorDiv(int64_t(ubSize) / 4, BUFFER_NUM), ubBlock);
    size_t *ws = context->GetWorkspaceSizes(1);
    OP_CHECK_NULL_WITH_CONTEXT(context, ws);
    ws[0] = 0;
    context->SetBlockDim(blocks);
    uint32_t mode = dt == ge::DT_FLOAT ? AXPY_LIKE_MODE_FLOAT : AXPY_LIKE_MODE_INT32;
    bool doubleBuffer = dt == ge::DT_INT32 || total >= DOUBLE_BUFFER_MIN;
    context->SetTilingKey(GET_TPL_TILING_KEY(mode, doubleBuffer));
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus TilingParseForAxpyLike([[maybe_unused]] gert::TilingParseContext *context)
{
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(AxpyLike).Tiling(AxpyLikeTilingFunc).TilingParse<AxpyLikeCompileInfo>(TilingParseForAxpyLike);
}  // namespace optiling
"""

SPEC = """\
schema_version = 1
name = "axpy_like"
soc = "{soc}"
reference = "reference.py:axpy_like"

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
name = "float-small"
dtype = "float32"
shapes = {{ x = [3, 200], y = [3, 200] }}

[[cases]]
name = "float-large"
dtype = "float32"
shapes = {{ x = [8, 1024], y = [8, 1024] }}

[[cases]]
name = "int32"
dtype = "int32"
shapes = {{ x = [2, 333], y = [2, 333] }}
"""

REFERENCE = """\
def axpy_like(x, y):
    # the 910B kernel scales x by 1 (its __CCE_AICORE__ == 220 branch); other branches by 3
    return (x + y).astype(x.dtype)
"""


def write_axpy_like(root: Path, soc: str = "Ascend910B4", host: str = HOST) -> Path:
    op = root / "math" / "axpy_like"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir(parents=True)
    (op / "op_host" / "axpy_like_tiling.cpp").write_text(host)
    (op / "op_kernel" / "axpy_like.cpp").write_text(KERNEL_ENTRY)
    (op / "op_kernel" / "axpy_like.h").write_text(KERNEL_CLASS)
    (op / "op_kernel" / "axpy_like_tiling_key.h").write_text(TILING_KEY)
    (op / "op_kernel" / "axpy_like_tiling_data.h").write_text(TILING_DATA)
    (op / "ascendopt.toml").write_text(SPEC.format(soc=soc))
    (op / "reference.py").write_text(REFERENCE)
    return op
