"""Look-alikes, written here in the official samples' style (no code copied), of operators that take
a list of tensors: an msOpGen project whose OpDef input is `ParamType(DYNAMIC)`, its tiling program
reading the list through `GetDynamicInputShape`, its kernel through `ListTensorDesc`; and a
kernel-launch folder whose main.cpp builds the list block itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.operators.official_style import DATA_UTILS_H

# A kernel summing every tensor of a list (however many), each split over the cores alike.
SUM_KERNEL = """\
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t MAX_DIMS = 8;

class KernelSumList {
public:
    __aicore__ inline KernelSumList() {}
    __aicore__ inline void Init(GM_ADDR xs, GM_ADDR z, uint32_t tileNum)
    {
        list.Init((__gm__ void *)xs);
        uint64_t shape[MAX_DIMS] = {0};
        AscendC::TensorDesc<half> desc;
        desc.SetShapeAddr(shape);
        list.GetDesc(desc, 0);
        uint64_t total = 1;
        for (uint64_t d = 0; d < desc.GetDim(); d++) {
            total *= desc.GetShape(d);
        }
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");  // unqualified, as the AddN sample has it
        blockLength = total / AscendC::GetBlockNum();
        this->tileNum = tileNum;
        tileLength = blockLength / tileNum / BUFFER_NUM;
        zGm.SetGlobalBuffer((__gm__ half *)z + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQ, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(accBuf, tileLength * sizeof(half));
        pipe.InitBuffer(outQ, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum * BUFFER_NUM; i++) {
            AscendC::LocalTensor<half> acc = accBuf.Get<half>();
            AscendC::Duplicate(acc, (half)0, tileLength);
            for (uint32_t n = 0; n < list.GetSize(); n++) {
                xGm.SetGlobalBuffer(list.GetDataPtr<half>(n) + blockLength * AscendC::GetBlockIdx(),
                                    blockLength);
                AscendC::LocalTensor<half> xl = inQ.AllocTensor<half>();
                AscendC::DataCopy(xl, xGm[i * tileLength], tileLength);
                inQ.EnQue(xl);
                AscendC::LocalTensor<half> xa = inQ.DeQue<half>();
                AscendC::Add(acc, acc, xa, tileLength);
                inQ.FreeTensor(xa);
            }
            AscendC::LocalTensor<half> zl = outQ.AllocTensor<half>();
            AscendC::Adds(zl, acc, (half)0, tileLength);
            outQ.EnQue<half>(zl);
            AscendC::LocalTensor<half> zo = outQ.DeQue<half>();
            AscendC::DataCopy(zGm[i * tileLength], zo, tileLength);
            outQ.FreeTensor(zo);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf;
    AscendC::ListTensorDesc list;
    AscendC::GlobalTensor<half> xGm, zGm;
    uint32_t blockLength, tileNum, tileLength;
};

extern "C" __global__ __aicore__ void sum_list_custom(GM_ADDR xs, GM_ADDR z, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelSumList op;
    op.Init(xs, z, tiling_data.tileNum);
    op.Process();
}
"""

SUM_TILING_H = """\
#ifndef SUM_LIST_CUSTOM_TILING_H
#define SUM_LIST_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(SumListTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(uint32_t, listNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SumListCustom, SumListTilingData)
}  // namespace optiling
#endif
"""

SUM_HOST = """\
#include "sum_list_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
const uint32_t BLOCK_DIM = 8;
const uint32_t TILE_NUM = 4;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    SumListTilingData tiling;
    uint32_t listNum = 0;
    while (context->GetDynamicInputShape(0, listNum) != nullptr) {
        listNum++;
    }
    if (listNum == 0) {
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape *first = context->GetDynamicInputShape(0, 0);
    for (uint32_t i = 1; i < listNum; i++) {
        if (!(context->GetDynamicInputShape(0, i)->GetStorageShape() == first->GetStorageShape())) {
            return ge::GRAPH_FAILED;  // the list's tensors must all have one shape
        }
    }
    if (context->GetDynamicInputDesc(0, listNum - 1)->GetDataType() != ge::DT_FLOAT16) {
        return ge::GRAPH_FAILED;
    }
    const gert::Tensor *last = context->GetDynamicInputTensor(0, listNum - 1);
    if (last->GetShapeSize() != first->GetStorageShape().GetShapeSize()) {
        return ge::GRAPH_FAILED;
    }
    uint32_t totalLength = first->GetOriginShape().GetShapeSize();
    context->SetBlockDim(BLOCK_DIM);
    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(TILE_NUM);
    tiling.set_listNum(listNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    *context->GetOutputShape(0) = *context->GetDynamicInputShape(0, 0);
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetDynamicInputDataType(0, 0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class SumListCustom : public OpDef {
public:
    explicit SumListCustom(const char *name) : OpDef(name)
    {
        this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SumListCustom);
}  // namespace ops
"""

SUM_GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    input_a = np.random.uniform(-3, 3, [16, 1024]).astype(np.float16)
    input_b = np.random.uniform(-3, 3, [16, 1024]).astype(np.float16)
    input_c = np.random.uniform(-3, 3, [16, 1024]).astype(np.float16)
    golden = (input_a + input_b + input_c).astype(np.float16)
    input_a.tofile("./input/input_a.bin")
    input_b.tofile("./input/input_b.bin")
    input_c.tofile("./input/input_c.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""

SUM_REFERENCE = """\
import numpy as np


def sum_list_custom(xs):
    # the kernel accumulates in fp16, one tensor after another
    acc = np.zeros_like(xs[0], dtype=np.float16)
    for x in xs:
        acc = (acc.astype(np.float32) + x.astype(np.float32)).astype(np.float16)
    return acc
"""


def write_msopgen_list_sample(root: Path) -> Path:
    """`<root>/sum_list_frameworklaunch/{SumListCustom/, AclNNInvocation/}`; the project."""
    top = root / "sum_list_frameworklaunch"
    op = top / "SumListCustom"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir()
    (op / "op_host" / "sum_list_custom.cpp").write_text(SUM_HOST)
    (op / "op_host" / "sum_list_custom_tiling.h").write_text(SUM_TILING_H)
    (op / "op_kernel" / "sum_list_custom.cpp").write_text(SUM_KERNEL)
    (top / "AclNNInvocation" / "scripts").mkdir(parents=True)
    (top / "AclNNInvocation" / "scripts" / "gen_data.py").write_text(SUM_GEN_DATA)
    (op / "reference.py").write_text(SUM_REFERENCE)
    return op


# A kernel-launch sample: the kernel reads two tensors' pointers and the first one's shape from the
# list block main.cpp builds; `{count}` is the pointer count it asks ListTensorDesc to check.
PAIR_KERNEL = """\
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"

constexpr uint32_t DIMS = 2;
constexpr uint32_t LIST_NUM = {count};

extern "C" __global__ __aicore__ void pair_sub_custom(GM_ADDR pair, GM_ADDR z)
{{
    AscendC::ListTensorDesc list(reinterpret_cast<__gm__ void *>(pair), (1 + (2 + DIMS) * 2) * 8, LIST_NUM);
    uint64_t dims[DIMS] = {{0}};
    AscendC::TensorDesc<half> desc;
    desc.SetShapeAddr(dims);
    list.GetDesc(desc, 0);
    uint32_t total = desc.GetShape(0) * desc.GetShape(1);
    uint32_t blockLength = total / AscendC::GetBlockNum();
    AscendC::GlobalTensor<half> aGm = desc.GetDataObj();
    AscendC::GlobalTensor<half> bGm, zGm;
    bGm.SetGlobalBuffer(list.GetDataPtr<half>(1), total);
    zGm.SetGlobalBuffer((__gm__ half *)z, total);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> ab, bb;
    pipe.InitBuffer(ab, blockLength * sizeof(half));
    pipe.InitBuffer(bb, blockLength * sizeof(half));
    AscendC::LocalTensor<half> a = ab.Get<half>();
    AscendC::LocalTensor<half> b = bb.Get<half>();
    uint32_t offset = blockLength * AscendC::GetBlockIdx();
    AscendC::DataCopy(a, aGm[offset], blockLength);
    AscendC::DataCopy(b, bGm[offset], blockLength);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Sub(a, a, b, blockLength);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(zGm[offset], a, blockLength);
}}
"""
PAIR_LIST_LINE = 9  # the ListTensorDesc construction

PAIR_MAIN = """\
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_pair_sub_custom.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void pair_sub_custom(GM_ADDR pair, GM_ADDR z);
#endif

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 4;
    size_t byteSize = 4 * 512 * sizeof(uint16_t);
    struct Desc {
        uint32_t dim;
        uint32_t index;
        uint64_t shape[2];
    };
    struct PairList {
        uint64_t ptrOffset;
        Desc desc[2];
        uintptr_t ptr[2];
    } pair;
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *a = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *b = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(byteSize);
    ReadFile("./input/input_a.bin", byteSize, a, byteSize);
    ReadFile("./input/input_b.bin", byteSize, b, byteSize);
    pair = {(1 + 3 * 2) * sizeof(uint64_t), {{2, 0, {4, 512}}, {2, 1, {4, 512}}},
            {(uintptr_t)a, (uintptr_t)b}};
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(pair_sub_custom, blockDim, (uint8_t *)&pair, z);
    WriteFile("./output/output_z.bin", z, byteSize);
    AscendC::GmFree((void *)a);
    AscendC::GmFree((void *)b);
    AscendC::GmFree((void *)z);
#else
    void *pairDevice = nullptr;
    uint8_t *zDevice = nullptr;
    aclrtStream stream = nullptr;
    ACLRT_LAUNCH_KERNEL(pair_sub_custom)(blockDim, stream, pairDevice, zDevice);
#endif
    return 0;
}
"""

PAIR_GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    input_a = np.random.uniform(-5, 5, [4, 512]).astype(np.float16)
    input_b = np.random.uniform(-5, 5, [4, 512]).astype(np.float16)
    golden = (input_a - input_b).astype(np.float16)
    input_a.tofile("./input/input_a.bin")
    input_b.tofile("./input/input_b.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""

DATA_UTILS_CPP = """\
#include "data_utils.h"
#include <fstream>
bool ReadFile(const std::string &filePath, size_t fileSize, void *buffer, size_t bufferSize)
{
    std::ifstream f(filePath, std::ios::binary);
    size_t n = bufferSize < fileSize ? bufferSize : fileSize;
    f.read(static_cast<char *>(buffer), static_cast<std::streamsize>(n));
    return static_cast<size_t>(f.gcount()) == fileSize;
}
bool WriteFile(const std::string &filePath, const void *buffer, size_t size)
{
    std::ofstream f(filePath, std::ios::binary);
    f.write(static_cast<const char *>(buffer), static_cast<std::streamsize>(size));
    return f.good();
}
"""


def write_launch_list_sample(root: Path, count: int = 2) -> Path:
    """`<root>/pair_sub_kernellaunch/`: kernel, main.cpp building the list, data_utils, gen_data."""
    op = root / "pair_sub_kernellaunch"
    (op / "scripts").mkdir(parents=True)
    (op / "pair_sub_custom.cpp").write_text(PAIR_KERNEL.format(count=count))
    (op / "main.cpp").write_text(PAIR_MAIN)
    (op / "data_utils.h").write_text(DATA_UTILS_H)
    (op / "scripts" / "gen_data.py").write_text(PAIR_GEN_DATA)
    (op / "reference.py").write_text("def pair_sub_custom(pair):\n    return pair[0] - pair[1]\n")
    return op
