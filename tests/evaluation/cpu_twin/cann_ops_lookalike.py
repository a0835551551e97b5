"""A look-alike of the older cann-ops repository's elementwise operators, written for these tests.

`src/math/fabs/` in a repository tree: OpDef, InferShape and TilingFunc together in
`op_host/fabs.cpp` (a DT_COMPLEX64 column the twin has no dtype for), `op_host/fabs_tiling.h` with
BEGIN_TILING_DATA_DEF, the kernel `extern "C" ... void fabs(...)` (a C library function's name, which
the NPU compiler never sees declared), `float16_t` / `float32_t` in the kernel, and host code that
writes `std::cout` without including <iostream>, sizes elements with `ge::TypeUtils::
GetDataTypeLength` and asks `GetSigmoidMaxMinTmpSize`. The sample lives in
`examples/AclNNInvocationNaive/` (gen_data.py, main.cpp), as cann-ops keeps it.
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
}
#endif
"""

HOST = """\
#include "fabs_tiling.h"
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
    tiling.set_blockLength(total / CORES);
    tiling.set_tileLength(tile);
    tiling.set_typeBytes(typeBytes);
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
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_COMPLEX64})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_COMPLEX64})
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

template <typename T>
class KernelFabs {
public:
    __aicore__ inline KernelFabs() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->tileLength = tileLength;
        this->tiles = blockLength / tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQ, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<T> a = inQ.AllocTensor<T>();
            AscendC::DataCopy(a, xGm[i * tileLength], tileLength);
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
        op.Init(x, y, tiling_data.blockLength, tiling_data.tileLength);
        op.Process();
    } else {
        KernelFabs<float16_t> op;
        op.Init(x, y, tiling_data.blockLength, tiling_data.tileLength);
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

REFERENCE = """\
import numpy as np

def fabs(x):
    return np.abs(x.astype(np.float64))
"""


def write_cann_ops_repo(root: Path) -> Path:
    """The repository (a `.git` folder, `src/common/inc/`) and its `src/math/fabs/` operator."""
    (root / ".git").mkdir(parents=True)
    (root / "build.sh").write_text("#!/bin/bash\n")
    (root / "src" / "common" / "inc").mkdir(parents=True)
    op = root / "src" / "math" / "fabs"
    for sub in ("op_host", "op_kernel", "examples/AclNNInvocationNaive"):
        (op / sub).mkdir(parents=True)
    (op / "op_host" / "fabs_tiling.h").write_text(TILING_H)
    (op / "op_host" / "fabs.cpp").write_text(HOST)
    (op / "op_kernel" / "fabs.cpp").write_text(KERNEL)
    (op / "examples" / "AclNNInvocationNaive" / "gen_data.py").write_text(GEN_DATA)
    return op
