"""A look-alike of the older cann-ops repository's elementwise operators, written for these tests.

`src/math/fabs/` in a repository tree: OpDef, InferShape and TilingFunc together in
`op_host/fabs.cpp` (a DT_COMPLEX128 column the twin has no dtype for), `op_host/fabs_tiling.h` with
BEGIN_TILING_DATA_DEF, the kernel `extern "C" ... void fabs(...)` (a C library function's name, which
the NPU compiler never sees declared), `float16_t` / `float32_t` in the kernel, and host code that
writes `std::cout` without including <iostream>, sizes elements with `ge::TypeUtils::
GetDataTypeLength` and asks `GetSigmoidMaxMinTmpSize`; InferShape reads its input's desc. The sample lives in
`examples/AclNNInvocationNaive/` (gen_data.py, main.cpp), as cann-ops keeps it. Repository-level
headers sit in `src/common/inc` (a log header on CANN's alog / error-message API, naming contexts by
`GetNodeType`); the kernel names the tiling struct unqualified, calls `assert` and `likely` bare, and
includes CANN's internal `impl/dav_c220/...` header, as the cann-ops norm kernels do, and calls the
compiler's intrinsics `get_block_idx`, `set_flag` / `wait_flag` (cann-ops activation kernels).
"""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#ifndef FABS_TILING_H
#define FABS_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(FabsTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);
  TILING_DATA_FIELD_DEF(uint32_t, typeBytes);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Fabs, FabsTilingData)

// Host code in the tiling header, which the kernel build sees too (as cann-ops mul_sigmoid's does).
inline void FillFabsTiling(FabsTilingData &t, uint32_t block, uint32_t tile, uint32_t bytes)
{
    t.set_blockLength(block);
    t.set_tileLength(tile);
    t.set_typeBytes(bytes);
}
}
#endif
"""

TRACE_H = """\
#pragma once
#include <base/alog_pub.h>
#include <base/err_msg.h>
#include <exe_graph/runtime/tiling_parse_context.h>
#include <exe_graph/runtime/infer_datatype_context.h>

template <class Ctx> inline const char *TraceWho(const Ctx *ctx)
{
    return ctx == nullptr ? "?" : ctx->GetNodeType();
}

#define TRACE_FAIL(CTX, FMT, ...)                                                                   \\
    do {                                                                                            \\
        if (AlogCheckDebugLevel(OP, DLOG_ERROR) == 1) {                                             \\
            AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_ERROR, "[%s]%s %s: " FMT, OPS_UTILS_LOG_SUB_MOD_NAME, \\
                       OPS_UTILS_LOG_PACKAGE_TYPE, TraceWho(CTX), ##__VA_ARGS__);                   \\
        }                                                                                           \\
        REPORT_INNER_ERR_MSG("EZ9999", FMT, ##__VA_ARGS__);                                         \\
    } while (0)
"""

HOST = """\
#include "fabs_tiling.h"
#include "log/fabs_trace.h"
#include "register/op_def_registry.h"
#include "graph/utils/type_utils.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
const uint32_t TILE_BYTES = 4096;
const uint32_t CORES = 4;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    FabsTilingData tiling;
    uint32_t typeBytes = 0;
    if (!ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeBytes)) {
        int dtype = static_cast<int>(context->GetInputDesc(0)->GetDataType());
        TRACE_FAIL(context, "no element size for dtype %d", dtype);
        return ge::GRAPH_FAILED;
    }
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t tile = TILE_BYTES / typeBytes;
    uint32_t maxTmp = 0;
    uint32_t minTmp = 0;
    std::vector<int64_t> dims = {tile};
    AscendC::GetSigmoidMaxMinTmpSize(ge::Shape(dims), typeBytes, false, maxTmp, minTmp);
    if (minTmp == 0 || maxTmp < minTmp || total % (CORES * tile) != 0) {
        std::cout << "fabs: " << total << " elements do not split into whole tiles" << std::endl;
        return ge::GRAPH_FAILED;
    }
    FillFabsTiling(tiling, total / CORES, tile, typeBytes);
    context->SetBlockDim(CORES);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    if (context->GetInputShape(0) == nullptr) {
        TRACE_FAIL(context, "%s", "no input shape");
        return GRAPH_FAILED;
    }
    if (context->GetInputDesc(0) == nullptr || context->GetInputDesc(0)->GetOriginFormat() != ge::FORMAT_ND) {
        return GRAPH_FAILED;
    }
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}

namespace ops {
class Fabs : public OpDef {
public:
    explicit Fabs(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_COMPLEX128})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_COMPLEX128})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Fabs);
}
"""

KERNEL = """\
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"

template <typename T>
class KernelFabs {
public:
    __aicore__ inline KernelFabs() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const FabsTilingData *t)
    {
        assert(t != nullptr);
        uint32_t blockLength = t->blockLength;
        this->tileLength = t->tileLength;
        this->tiles = likely(tileLength > 0) ? blockLength / tileLength : 0;
        xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * get_block_idx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQ, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<T> a = inQ.AllocTensor<T>();
            AscendC::DataCopy(a, xGm[i * tileLength], tileLength);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            inQ.EnQue(a);
            AscendC::LocalTensor<T> b = inQ.DeQue<T>();
            AscendC::LocalTensor<T> c = outQ.AllocTensor<T>();
            AscendC::Abs(c, b, tileLength);
            outQ.EnQue<T>(c);
            inQ.FreeTensor(b);
            AscendC::LocalTensor<T> d = outQ.DeQue<T>();
            AscendC::DataCopy(yGm[i * tileLength], d, tileLength);
            outQ.FreeTensor(d);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQ;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    uint32_t tileLength;
    uint32_t tiles;
};

extern "C" __global__ __aicore__ void fabs(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    if (tiling_data.typeBytes == sizeof(float32_t)) {
        KernelFabs<float32_t> op;
        op.Init(x, y, &tiling_data);
        op.Process();
    } else {
        KernelFabs<float16_t> op;
        op.Init(x, y, &tiling_data);
        op.Process();
    }
}
"""

GEN_DATA = """\
import os
import numpy as np

def gen_golden_data_simple():
    dtype = np.float16
    input_shape = [16, 512]
    x = np.random.uniform(-3, 3, input_shape).astype(dtype)
    golden = np.abs(x).astype(dtype)
    os.system("mkdir -p input output")
    x.tofile("./input/input_x.bin")
    golden.tofile("./output/golden.bin")

if __name__ == "__main__":
    gen_golden_data_simple()
"""

# The sample's aclnn call, as cann-ops writes it beside gen_data.py: shapes named after the tensors.
NAIVE_MAIN = """\
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_fabs.h"

int main()
{
    std::vector<int64_t> xShape = {4, 2048};
    std::vector<int64_t> yShape = {4, 2048};
    void *xDeviceAddr = nullptr;
    void *yDeviceAddr = nullptr;
    aclTensor *x = nullptr;
    aclTensor *y = nullptr;
    std::vector<aclFloat16> xHostData(8192);
    std::vector<aclFloat16> yHostData(8192);
    CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT16, &x);
    CreateAclTensor(yHostData, yShape, &yDeviceAddr, aclDataType::ACL_FLOAT16, &y);
    return 0;
}
"""

REFERENCE = """\
import numpy as np

def fabs(x):
    return np.abs(x.astype(np.float64))
"""


def write_cann_ops_repo(root: Path, gen_data: bool = True) -> Path:
    """The repository (a `.git` folder, `src/common/inc/`) and its `src/math/fabs/` operator; its
    sample is gen_data.py, or without it the aclnn call in main.cpp alone."""
    (root / ".git").mkdir(parents=True)
    (root / "build.sh").write_text("#!/bin/bash\n")
    (root / "src" / "common" / "inc" / "log").mkdir(parents=True)
    (root / "src" / "common" / "inc" / "log" / "fabs_trace.h").write_text(TRACE_H)
    op = root / "src" / "math" / "fabs"
    for sub in ("op_host", "op_kernel", "examples/AclNNInvocationNaive"):
        (op / sub).mkdir(parents=True)
    (op / "op_host" / "fabs_tiling.h").write_text(TILING_H)
    (op / "op_host" / "fabs.cpp").write_text(HOST)
    (op / "op_kernel" / "fabs.cpp").write_text(KERNEL)
    sample = op / "examples" / "AclNNInvocationNaive"
    if gen_data:
        (sample / "gen_data.py").write_text(GEN_DATA)
    else:
        (sample / "main.cpp").write_text(NAIVE_MAIN)
    return op
