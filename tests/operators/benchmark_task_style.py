"""Look-alikes of a KernelBench-style benchmark task (NPUKernelBench's layout), written here: an
answer in msOpGen layout (our own templates under other folder names), `validation/module.py` with a
PyTorch `Model` and a `ModelNew` calling the NPU binding, `prepare_inputs.py`, a `;`-separated
`test_cases.csv`, and the skeleton folder `question/`."""

from __future__ import annotations

import shutil
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"

ADD_MODULE = """\
import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        return {expr}


class ModelNew(nn.Module):
    def forward(self, left, right):
        import kernel_gen_ops
        return kernel_gen_ops.add_custom(left, right)
"""

ADD_PREPARE = """\
import torch


def get_inputs(param, device=None):
    size = eval(param.get("size", "[1]"))
    dtype = getattr(torch, param.get("dtype", "float16"))
    if dtype == torch.complex64:
        return torch.randn(size, dtype=dtype), torch.randn(size, dtype=dtype)
    return torch.randn(size, dtype=dtype), torch.randn(size, dtype=dtype)


def get_init_inputs(param, device=None):
    return []
"""

ADD_CASES = "case_id;size;dtype\n3;[4, 512];float16\n7;[2, 8, 96];float32\n9;[4, 64];complex64\n"

SCALE_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x: torch.Tensor, factor: float) -> torch.Tensor:
        return x * factor


class ModelNew(nn.Module):
    def forward(self, x, factor):
        return kernel_gen_ops.muls_custom(x, factor)
"""

SCALE_PREPARE = """\
import torch


def get_inputs(param, device=None):
    shape = eval(param["input_shape"])
    return torch.randn(shape, dtype=getattr(torch, param["dtype"])), float(param["factor"])
"""

SCALE_CASES = "case_id;input_shape;dtype;factor\n0;[3, 256];float32;0.5\n1;[16, 128];float16;-1.25\n"


def make_task(
    root: Path, template: str, module: str, prepare: str, cases: str, with_question: bool = True
) -> Path:
    """`root/level1/Cat/<Task>/` holding `answer/0/` (the template's op_host/op_kernel), validation/
    and, with `with_question`, a skeleton `question/` (its kernel without a tiling header)."""
    task = root / "level1" / "Cat" / ("Task" + template.title().replace("_", ""))
    answer = task / "answer" / "0"
    for part in ("op_host", "op_kernel"):
        shutil.copytree(TEMPLATES / template / part, answer / part)
    (answer / "CMakeLists.txt").write_text("# the benchmark's build\n", encoding="utf-8")
    if with_question:
        (task / "question" / "op_host").mkdir(parents=True)
        shutil.copy(TEMPLATES / template / "op_host" / f"{template}.cpp", task / "question" / "op_host")
        shutil.copytree(TEMPLATES / template / "op_kernel", task / "question" / "op_kernel")
    v = task / "validation"
    v.mkdir(parents=True)
    (v / "module.py").write_text(module, encoding="utf-8")
    (v / "prepare_inputs.py").write_text(prepare, encoding="utf-8")
    (v / "test_cases.csv").write_text(cases, encoding="utf-8")
    return task


def add_task(root: Path, expr: str = "left + right") -> Path:
    return make_task(root, "add_custom", ADD_MODULE.format(expr=expr), ADD_PREPARE, ADD_CASES)


def scale_task(root: Path) -> Path:
    return make_task(root, "muls_custom", SCALE_MODULE, SCALE_PREPARE, SCALE_CASES, with_question=False)


MODE_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x: torch.Tensor, mode: str) -> torch.Tensor:
        return x * {"double": 2.0, "half": 0.5}[mode]


class ModelNew(nn.Module):
    def forward(self, x, mode):
        return kernel_gen_ops.muls_custom(x, mode)
"""

MODE_PREPARE = """\
import torch


def get_inputs(param, device=None):
    return torch.randn(eval(param["shape"]), dtype=getattr(torch, param["dtype"])), param["mode"]
"""

MODE_CASES = "case_id;shape;dtype;mode\n0;[3, 256];float32;double\n1;[16, 128];float16;half\n"

# The tiling reads the string attr both ways CANN offers (GetAttrPointer<char>, GetStr) and refuses a
# value it does not know, so a string that does not arrive fails the tiling.
MODE_TILING = """\
    float scale = 0.0f;
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const char *mode = attrs->GetAttrPointer<char>(0);
    const char *same = attrs->GetStr(0);
    if (mode == nullptr || same == nullptr || std::strcmp(mode, same) != 0) {
        return ge::GRAPH_FAILED;
    }
    if (std::strcmp(mode, "double") == 0) {
        scale = 2.0f;
    } else if (std::strcmp(mode, "half") == 0) {
        scale = 0.5f;
    } else {
        return ge::GRAPH_FAILED;
    }
"""


def mode_task(root: Path) -> Path:
    """muls_custom whose factor comes from a string attr `mode` ("double" | "half", OpDef default "half")."""
    task = make_task(root, "muls_custom", MODE_MODULE, MODE_PREPARE, MODE_CASES, with_question=False)
    host = task / "answer" / "0" / "op_host" / "muls_custom.cpp"
    text = host.read_text(encoding="utf-8")
    start = text.index("    float scale = DEFAULT_SCALE;")
    end = text.index("    uint32_t alignElems")
    text = text[:start] + MODE_TILING + text[end:]
    text = text.replace('Attr("scale").AttrType(OPTIONAL).Float(2.0)', 'Attr("mode").String("half")')
    text = "#include <cstring>\n" + text
    host.write_text(text, encoding="utf-8")
    return task


COMPLEX_CASES = "case_id;size;dtype\n0;[4, 64];complex64\n1;[3, 50];complex64\n"


def complex_add_task(root: Path, expr: str = "left + right") -> Path:
    """add_custom taking complex64 only, as the benchmark's BLAS answers do: the kernel adds the
    (real, imaginary) float pairs, twice as many floats as complex elements."""
    task = make_task(root, "add_custom", ADD_MODULE.format(expr=expr), ADD_PREPARE, COMPLEX_CASES, False)
    host = task / "answer" / "0" / "op_host" / "add_custom.cpp"
    text = host.read_text(encoding="utf-8")
    text = text.replace(
        "DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})", "DataType({ge::DT_COMPLEX64})"
    )
    host.write_text(
        text.replace("Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})", "Format({ge::FORMAT_ND})")
    )
    kernel = task / "answer" / "0" / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text(encoding="utf-8").replace("KernelAdd<DTYPE_X> op;", "KernelAdd<float> op;")
    for field in ("totalLength", "blockLength", "tileLength"):
        text = text.replace(f"tilingData.{field}", f"2 * tilingData.{field}")
    kernel.write_text(text, encoding="utf-8")
    return task


LIST_MODULE = """\
import math
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x: torch.Tensor, factors: list[int]) -> torch.Tensor:
        return x * float(math.prod(factors))


class ModelNew(nn.Module):
    def forward(self, x, factors):
        return kernel_gen_ops.muls_custom(x, factors)
"""

LIST_PREPARE = """\
import torch


def get_inputs(param, device=None):
    return torch.randn(eval(param["shape"]), dtype=torch.float32), list(eval(param["factors"]))
"""

LIST_CASES = "case_id;shape;factors\n0;[3, 256];[2, 3]\n1;[16, 128];[-1, 2, 2]\n"

LIST_TILING = """\
    const gert::TypedContinuousVector<int64_t> *factors = context->GetAttrs()->GetListInt(0);
    if (factors == nullptr || factors->GetSize() == 0) {
        return ge::GRAPH_FAILED;
    }
    float scale = 1.0f;
    for (size_t i = 0; i < factors->GetSize(); ++i) {
        scale *= static_cast<float>(factors->GetData()[i]);
    }
"""


def list_task(root: Path) -> Path:
    """muls_custom whose factor is the product of a list attr `factors` (`.ListInt()`, no default)."""
    task = make_task(root, "muls_custom", LIST_MODULE, LIST_PREPARE, LIST_CASES, with_question=False)
    host = task / "answer" / "0" / "op_host" / "muls_custom.cpp"
    text = host.read_text(encoding="utf-8")
    start = text.index("    float scale = DEFAULT_SCALE;")
    end = text.index("    uint32_t alignElems")
    text = text[:start] + LIST_TILING + text[end:]
    host.write_text(text.replace('Attr("scale").AttrType(OPTIONAL).Float(2.0)', 'Attr("factors").ListInt()'))
    return task




# In-place look-alikes (NPUKernelBench's Inplace*/Apply*/Sscal shapes of problem), made from the same
# templates by text edits.


def _edit(path: Path, *pairs: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, (path, old)
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


ACCUM_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, acc: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
        return acc + delta


class ModelNew(nn.Module):
    def forward(self, acc, delta):
        return kernel_gen_ops.accum_custom(acc, delta)
"""


# A case whose delta is all zero: the expected output is the input itself.
ACCUM_ZERO_PREPARE = """\
import torch


def get_inputs(param, device=None):
    size = eval(param["size"])
    dtype = getattr(torch, param["dtype"])
    return torch.randn(size, dtype=dtype), torch.randn(size, dtype=dtype) * param["scale"]
"""

ACCUM_ZERO_CASES = "case_id;size;dtype;scale\n0;[4, 256];float32;1.0\n1;[2, 512];float16;0.0\n"


def accum_task(
    root: Path, kernel_body: str | None = None, prepare: str = ADD_PREPARE, cases: str = ADD_CASES
) -> Path:
    """A "ref" output: the OpDef's output `x` is named like its input `x`, the kernel takes
    `(x, y, x_ref, …)` and writes x + y into x_ref (one buffer with x). `kernel_body` replaces the
    entry's body (a hostile candidate)."""
    task = make_task(root, "add_custom", ACCUM_MODULE, prepare, cases, with_question=False)
    answer = task / "answer" / "0"
    _edit(answer / "op_host" / "add_custom.cpp", ('this->Output("z")', 'this->Output("x")'))
    body = kernel_body or (
        "    GET_TILING_DATA(tilingData, tiling);\n"
        "    KernelAdd<DTYPE_X> op;\n"
        "    op.Init(x, y, x_ref, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);\n"
        "    op.Process();\n"
    )
    kernel = answer / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text(encoding="utf-8")
    head = text[: text.index('extern "C"')]
    kernel.write_text(
        head + 'extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR x_ref, '
        "GM_ADDR workspace, GM_ADDR tiling)\n{\n" + body + "}\n",
        encoding="utf-8",
    )
    return task


SCALE_INPLACE_PYBIND = """\
#include <torch/extension.h>
at::Tensor custom_pybind_api(at::Tensor &x, double factor)
{
    EXEC_NPU_CMD(aclnnCustomOp, x, factor);
    return x;
}
"""


# The Model computes in float32 whatever x's dtype (a group GEMM's `.to(torch.float32)` arithmetic): its
# result is the value of the float16 buffer the kernel writes, widened.
SCALE_WIDE_MODULE = SCALE_MODULE.replace("return x * factor", "return x.to(torch.float32) * factor")
# The Model scales its argument in place and returns nothing, as the kernel does.
SCALE_MUTATING_MODULE = SCALE_MODULE.replace("return x * factor", "x.mul_(factor)")


def scale_inplace_task(
    root: Path, module: str = SCALE_MODULE, pybind: str = SCALE_INPLACE_PYBIND, untouched: bool = False
) -> Path:
    """No OpDef output: the kernel `muls_custom(x, workspace, tiling)` scales x where it lies, and the
    Model returns the scaled tensor (the binding returns its argument, pybind.cpp). `untouched`: the
    kernel writes nothing (a hostile candidate)."""
    task = make_task(root, "muls_custom", module, SCALE_PREPARE, SCALE_CASES, with_question=False)
    answer = task / "answer" / "0"
    host = answer / "op_host" / "muls_custom.cpp"
    text = host.read_text(encoding="utf-8")
    start = text.index('        this->Output("y")')
    end = text.index('        this->Attr("scale")')
    host.write_text(text[:start] + text[end:], encoding="utf-8")
    _edit(host, ("this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);\n", ""))
    _edit(
        answer / "op_kernel" / "muls_custom.cpp",
        (
            "void muls_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace",
            "void muls_custom(GM_ADDR x, GM_ADDR workspace",
        ),
        ("op.Init(x, y, tilingData", "op.Init(x, x, tilingData"),
    )
    if untouched:
        _edit(answer / "op_kernel" / "muls_custom.cpp", ("    op.Process();\n", ""))
    (task / "validation" / "pybind.cpp").write_text(pybind, encoding="utf-8")
    return task


OPTIONAL_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x: torch.Tensor, other=None) -> torch.Tensor:
        return x + (x if other is None else other)


class ModelNew(nn.Module):
    def forward(self, x, other=None):
        return kernel_gen_ops.add_custom(x, other)
"""

OPTIONAL_PREPARE = """\
import torch


def get_inputs(param, device=None):
    size = eval(param["size"])
    dtype = getattr(torch, param["dtype"])
    other = torch.randn(size, dtype=dtype) if param["with_other"] else None
    return torch.randn(size, dtype=dtype), other
"""

OPTIONAL_CASES = "case_id;size;dtype;with_other\n0;[4, 256];float32;True\n1;[2, 512];float16;False\n"


# The binding takes the optional tensor first and hands it on in the aclnn order, through a local.
OPTIONAL_REORDERED_MODULE = OPTIONAL_MODULE.replace(
    "kernel_gen_ops.add_custom(x, other)", "kernel_gen_ops.add_custom(other, x)"
)
OPTIONAL_REORDERED_PYBIND = """\
#include <torch/extension.h>
at::Tensor custom_pybind_api(c10::optional<at::Tensor> other, at::Tensor &x)
{
    at::Tensor otherNpu = other.has_value() ? other.value() : at::Tensor();
    at::Tensor out = torch::empty_like(x);
    EXEC_NPU_CMD(aclnnAddCustom, x, otherNpu, out);
    return out;
}
"""


def optional_task(root: Path, reordered: bool = False) -> Path:
    """An optional input: `Input("y").ParamType(OPTIONAL)`; without it the kernel adds x to itself.
    The tiling refuses to run unless GetOptionalInputShape/Desc/Tensor(1) agree on its presence.
    `reordered`: the binding takes (other, x) and pybind.cpp hands them on as (x, other)."""
    module = OPTIONAL_REORDERED_MODULE if reordered else OPTIONAL_MODULE
    task = make_task(root, "add_custom", module, OPTIONAL_PREPARE, OPTIONAL_CASES, with_question=False)
    if reordered:
        (task / "validation" / "pybind.cpp").write_text(OPTIONAL_REORDERED_PYBIND, encoding="utf-8")
    answer = task / "answer" / "0"
    host = answer / "op_host" / "add_custom.cpp"
    _edit(
        host,
        (
            'this->Input("y")\n            .ParamType(REQUIRED)',
            'this->Input("y")\n            .ParamType(OPTIONAL)',
        ),
        (
            "    if (typeSize == 0 || totalLength == 0) {",
            "    bool hasY = context->GetOptionalInputShape(1) != nullptr;\n"
            "    if (hasY != (context->GetOptionalInputDesc(1) != nullptr) ||\n"
            "        hasY != (context->GetOptionalInputTensor(1) != nullptr)) {\n"
            "        return ge::GRAPH_FAILED;\n"
            "    }\n"
            "    if (typeSize == 0 || totalLength == 0) {",
        ),
    )
    _edit(
        answer / "op_kernel" / "add_custom.cpp",
        ("op.Init(x, y, z,", "op.Init(x, y == nullptr ? x : y, z,"),
    )
    return task


def unchecked_output_task(root: Path, impl_op: bool = False) -> Path:
    """An OpDef with a second output `w` (InferShape sizes it) the Model gives no value for: the kernel
    writes z only. `impl_op`: InferShape registered with IMPL_OP_INFERSHAPE, not on the OpDef."""
    task = add_task(root)
    answer = task / "answer" / "0"
    host = answer / "op_host" / "add_custom.cpp"
    if impl_op:
        _edit(
            host,
            ("this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);\n", ""),
            (
                "}  // namespace ge\n",
                "}  // namespace ge\n"
                "IMPL_OP_INFERSHAPE(AddCustom).InferShape(ge::InferShape).InferDataType(ge::InferDataType);\n",
            ),
        )
    _edit(
        host,
        (
            "    *zShape = *xShape;\n",
            "    *zShape = *xShape;\n    *context->GetOutputShape(1) = *xShape;\n"
            "    if (context->GetComputeNodeOutputNum() != 2) {\n        return GRAPH_FAILED;\n    }\n",
        ),
        (
            "        this->AICore()",
            '        this->Output("w")\n'
            "            .ParamType(REQUIRED)\n"
            "            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})\n"
            "            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});\n"
            "        this->AICore()",
        ),
    )
    _edit(
        answer / "op_kernel" / "add_custom.cpp",
        ("GM_ADDR z, GM_ADDR workspace", "GM_ADDR z, GM_ADDR w, GM_ADDR workspace"),
    )
    return task
