"""A look-alike, written here, of a benchmark task whose operator takes and returns lists of tensors
(OpDef `ParamType(DYNAMIC)` input and output, as NPUKernelBench's Foreach tasks have): `ScaleList`
multiplies every tensor of a list by a factor given as a one-element tensor. Its OpDef gives dtypes
through vector variables (one made with a switch function, one sized from the other), its tiling
program walks the list with `GetDynamicInputTensor`, and its kernel reads each tensor's address out
of the list block by hand (word 0: the byte offset of the data pointers) and takes its vector
instruction (`Muls`) as a template argument. Variants of the kernel get
the list wrong on purpose (`OUT` and `POINTERS` below)."""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#ifndef SCALE_LIST_TILING_H
#define SCALE_LIST_TILING_H
#include "register/tilingdata_base.h"
namespace optiling {
constexpr uint32_t MAX_LIST = 16;
BEGIN_TILING_DATA_DEF(ScaleListTilingData)
TILING_DATA_FIELD_DEF(uint32_t, listNum);
TILING_DATA_FIELD_DEF_ARR(int64_t, 16, counts);
TILING_DATA_FIELD_DEF_ARR(int64_t, 16, starts);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleList, ScaleListTilingData)
}  // namespace optiling
#endif
"""

HOST = """\
#include <algorithm>
#include "scale_list_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ScaleListTilingData tiling;
    int64_t counts[MAX_LIST] = {0};
    int64_t starts[MAX_LIST] = {0};
    uint32_t n = 0;
    int64_t total = 0;
    for (; n < MAX_LIST; n++) {
        const gert::Tensor *t = context->GetDynamicInputTensor(0, n);
        if (t == nullptr) {
            break;
        }
        counts[n] = t->GetStorageShape().GetShapeSize();
        starts[n] = total;
        total += counts[n];
    }
    if (n == 0) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_listNum(n);
    tiling.set_counts(counts);
    tiling.set_starts(starts);
    context->SetTilingKey(context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16 ? 1 : 2);
    context->SetBlockDim(n);  // one block per tensor
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
inline ge::DataType FactorType(ge::DataType listType)
{
    switch (listType) {
        case ge::DT_FLOAT16:
            return ge::DT_FLOAT;
        case ge::DT_FLOAT:
            return ge::DT_FLOAT;
        default:
            return ge::DT_FLOAT;
    }
}

class ScaleList : public OpDef {
public:
    explicit ScaleList(const char *name) : OpDef(name)
    {
        std::vector<ge::DataType> list_types = {ge::DT_FLOAT16, ge::DT_FLOAT};
        std::vector<ge::Format> formats(list_types.size(), ge::FORMAT_ND);
        std::vector<ge::DataType> factor_types;
        std::for_each(list_types.cbegin(), list_types.cend(),
                      [&factor_types](ge::DataType d) { factor_types.push_back(FactorType(d)); });
        this->Input("tensors").ParamType(DYNAMIC).DataType(list_types).Format(formats);
        this->Input("factor").ParamType(REQUIRED).DataType(factor_types).Format(formats);
        this->Output("out").ParamType(DYNAMIC).DataType(list_types).Format(formats);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ScaleList);
}  // namespace ops
"""

# Where block i writes its tensor: its own output tensor (right), or where it would lie if the list's
# tensors followed one another in GM (wrong: each is a buffer of its own).
OUT = "ListItem<T>(out, i)"
OUT_CONTIGUOUS = "ListItem<T>(out, 0) + tiling.starts[i]"
# Where the data pointers are: at the byte offset word 0 gives (right), or right after word 0 (wrong:
# the per-tensor shape words come first).
POINTERS = "words + (words[0] >> 3)"
POINTERS_AFTER_HEADER = "words + 1"

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline __gm__ T *ListItem(GM_ADDR list, uint32_t i)
{{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(list);
    __gm__ uint64_t *pointers = {pointers};
    return reinterpret_cast<__gm__ T *>(pointers[i]);
}}

// The vector instruction comes in as a function pointer, as the benchmark's Foreach kernels take theirs.
template <typename T>
using ScalarOp = void(const LocalTensor<T> &, const LocalTensor<T> &, const T &, const int32_t &);

template <typename T, ScalarOp<T> *op>
__aicore__ inline void Scale(GM_ADDR tensors, GM_ADDR factor, GM_ADDR out, const ScaleListTilingData &tiling)
{{
    uint32_t i = GetBlockIdx();
    uint32_t n = static_cast<uint32_t>(tiling.counts[i]);
    GlobalTensor<float> factorGm;
    factorGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(factor), 1);
    float f = factorGm.GetValue(0);
    GlobalTensor<T> inGm, outGm;
    inGm.SetGlobalBuffer(ListItem<T>(tensors, i), n);
    outGm.SetGlobalBuffer({out}, n);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, (n * sizeof(T) + 31) / 32 * 32);
    LocalTensor<T> local = buf.Get<T>();
    DataCopyExtParams copy{{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0}};
    DataCopyPadExtParams<T> pad{{false, 0, 0, 0}};
    DataCopyPad(local, inGm, copy, pad);
    PipeBarrier<PIPE_ALL>();
    op(local, local, static_cast<T>(f), static_cast<int32_t>(n));
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(outGm, local, copy);
}}

extern "C" __global__ __aicore__ void scale_list(GM_ADDR tensors, GM_ADDR factor, GM_ADDR out,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {{
        Scale<half, Muls>(tensors, factor, out, tilingData);
    }} else if (TILING_KEY_IS(2)) {{
        Scale<float, Muls>(tensors, factor, out, tilingData);
    }}
}}
"""

MODULE = """\
from typing import List

import torch
import torch.nn as nn
import torch_npu
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, tensors: List[torch.Tensor], factor: torch.Tensor) -> List[torch.Tensor]:
        # a one-element float32 factor promotes a float16 tensor: the Model's results are float32
        return [t * factor for t in tensors]


class ModelNew(nn.Module):
    def forward(self, tensors: List[torch.Tensor], factor: torch.Tensor) -> List[torch.Tensor]:
        return kernel_gen_ops.scale_list(tuple(tensors), factor)
"""

PREPARE = """\
import torch


def get_inputs(param, device=None):
    shapes = eval(param["input_shape"])
    dtype = getattr(torch, param["dtype"])
    return [torch.randn(s, dtype=dtype) for s in shapes], torch.tensor([float(param["factor"])])


def get_init_inputs(param, device=None):
    return []


from framework.utils import check_precision


def custom_check_precision(param, outputs, outputs_new):
    if param["dtype"] == "float16":
        return check_precision(outputs, outputs_new, max_abs_error=0.005, max_rel_error=0.002)
    return check_precision(outputs, outputs_new, 0.0001, 0.0001)
"""

CASES = (
    "case_id;input_shape;dtype;factor\n"
    "0;[[3, 40], [17], [2, 8, 16]];float16;0.5\n"
    "1;[[64]];float;-2.0\n"
    "2;[[5], [1, 33]];float;3.0\n"
)


def scale_list_task(root: Path, out: str = OUT, pointers: str = POINTERS) -> Path:
    """`root/level2/Lists/ScaleList/` with `answer/0/` (msOpGen layout) and `validation/`."""
    task = root / "level2" / "Lists" / "ScaleList"
    answer = task / "answer" / "0"
    (answer / "op_host").mkdir(parents=True)
    (answer / "op_kernel").mkdir()
    (answer / "op_host" / "scale_list.cpp").write_text(HOST, encoding="utf-8")
    (answer / "op_host" / "scale_list_tiling.h").write_text(TILING_H, encoding="utf-8")
    (answer / "op_kernel" / "scale_list.cpp").write_text(
        KERNEL.format(out=out, pointers=pointers), encoding="utf-8"
    )
    v = task / "validation"
    v.mkdir(parents=True)
    (v / "module.py").write_text(MODULE, encoding="utf-8")
    (v / "prepare_inputs.py").write_text(PREPARE, encoding="utf-8")
    (v / "test_cases.csv").write_text(CASES, encoding="utf-8")
    return task


# In place (NPUKernelBench's ForeachNonFiniteCheckAndUnscale shape): no OpDef output; the kernel scales
# each tensor of the list where it lies and writes the list's length into `seen`; the binding returns
# what it wrote (its return value made of the list and `seen`), the Model the tensors flattened and
# concatenated, then `seen`. `SKIP` is a kernel that leaves one tensor of the list alone.
INPLACE_HOST = HOST.replace(
    '        this->Output("out").ParamType(DYNAMIC).DataType(list_types).Format(formats);\n',
    '        this->Input("seen").ParamType(REQUIRED).DataType(factor_types).Format(formats);\n',
)
SKIP = "if (i == 1) { return; }"
INPLACE_KERNEL = (
    KERNEL.replace("GM_ADDR out, const ScaleListTilingData", "GM_ADDR seen, const ScaleListTilingData")
    .replace("    uint32_t i = GetBlockIdx();\n", "    uint32_t i = GetBlockIdx();\n    {skip}\n")
    .replace(
        "    DataCopyPad(outGm, local, copy);\n",
        "    DataCopyPad(outGm, local, copy);\n"
        "    if (i == 0) {{\n"
        "        GlobalTensor<float> seenGm;\n"
        "        seenGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(seen), 1);\n"
        "        seenGm.SetValue(0, static_cast<float>(tiling.listNum));\n"
        "    }}\n",
    )
    .replace("GM_ADDR factor, GM_ADDR out,\n", "GM_ADDR factor, GM_ADDR seen,\n")
    .replace("(tensors, factor, out, tilingData)", "(tensors, factor, seen, tilingData)")
)
INPLACE_MODULE = """\
from typing import List

import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, tensors: List[torch.Tensor], factor: torch.Tensor, seen: torch.Tensor):
        for t in tensors:
            t.mul_(factor)
        seen.fill_(float(len(tensors)))
        return [torch.cat([t.flatten() for t in tensors]), seen]


class ModelNew(nn.Module):
    def forward(self, tensors: List[torch.Tensor], factor: torch.Tensor, seen: torch.Tensor):
        back = kernel_gen_ops.scale_list(tensors, factor, seen)
        return [torch.cat([t.flatten() for t in back[:-1]]), back[-1]]
"""
INPLACE_PREPARE = """\
import torch


def get_inputs(param, device=None):
    shapes = eval(param["input_shape"])
    dtype = getattr(torch, param["dtype"])
    tensors = [torch.randn(s, dtype=dtype) for s in shapes]
    return tensors, torch.tensor([float(param["factor"])]), torch.zeros(1)
"""
# case 1: one 1-D tensor (flattened or not, the same) and a factor of 1 (the tensors keep their values)
INPLACE_CASES = (
    "case_id;input_shape;dtype;factor\n"
    "1;[[64]];float;1.0\n"
    "0;[[3, 40], [17], [2, 8, 16]];float16;0.5\n"
    "2;[[5], [1, 33]];float;3.0\n"
)
INPLACE_PYBIND = """\
#include "pytorch_npu_helper.hpp"

std::vector<at::Tensor> scale_list_api(std::vector<at::Tensor> xs, at::Tensor factor, at::Tensor seen)
{
    at::TensorList items = at::TensorList(xs);
    EXEC_NPU_CMD(aclnnScaleList, items, factor, seen);
    std::vector<at::Tensor> back;
    for (const auto &t : items) {
        back.push_back(t);
    }
    back.push_back(seen);  // written in place too
    return back;
}
"""


def scale_list_inplace_task(root: Path, skip: str = "") -> Path:
    """ScaleList in place (no OpDef output): the list and `seen` are written where they lie."""
    task = scale_list_task(root)
    answer = task / "answer" / "0"
    (answer / "op_host" / "scale_list.cpp").write_text(INPLACE_HOST, encoding="utf-8")
    (answer / "op_kernel" / "scale_list.cpp").write_text(
        INPLACE_KERNEL.format(out=OUT.replace("out", "tensors"), pointers=POINTERS, skip=skip),
        encoding="utf-8",
    )
    v = task / "validation"
    (v / "module.py").write_text(INPLACE_MODULE, encoding="utf-8")
    (v / "prepare_inputs.py").write_text(INPLACE_PREPARE, encoding="utf-8")
    (v / "test_cases.csv").write_text(INPLACE_CASES, encoding="utf-8")
    (v / "pybind.cpp").write_text(INPLACE_PYBIND, encoding="utf-8")
    return task
