"""An open-repo operator's op_host/<op>.cpp that registers tiling beside another host file (NPUKernelBench
DequantSwigluQuant keeps IMPL_OP_OPTILING and one tiling class there, the other in <op>_tiling_base.cpp) is
linked into the tiling program; one that registers none (a proto or helper file) is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.operators.discovery import load_operator

REGISTERS = """\
#include "register/op_impl_registry.h"
namespace optiling {
static ge::graphStatus SwapLikeTilingEntry(gert::TilingContext *context) { return ge::GRAPH_SUCCESS; }
}
IMPL_OP_OPTILING(SwapLike).Tiling(optiling::SwapLikeTilingEntry);
"""
REGISTERS_NONE = """\
#include <cstdint>
namespace ops {
static int64_t SwapLikeHelper(int64_t x) { return x < 0 ? -x : x; }
}
"""


KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void swap_like(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
}
"""
TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(SwapLikeTilingData)
TILING_DATA_FIELD_DEF(int64_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SwapLike, SwapLikeTilingData)
}
"""
DEF = """\
#include "register/op_def_registry.h"
namespace ops {
class SwapLike : public OpDef {
public:
    explicit SwapLike(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SwapLike);
}
"""


def _answer(root: Path, named: str) -> Path:
    # as the benchmark's answer: no op_host/<op>_tiling.cpp, a *_tiling_base.cpp and op_host/<op>.cpp
    files = {
        "op_kernel/swap_like.cpp": KERNEL,
        "op_host/swap_like_tiling.h": TILING_H,
        "op_host/swap_like_tiling_base.cpp": '#include "swap_like_tiling.h"\n',
        "op_host/swap_like.cpp": named,
        "op_host/swap_like_def.cpp": DEF,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize(
    ("text", "linked"), [(REGISTERS, True), (REGISTERS_NONE, False)], ids=["tiling", "none"]
)
def test_the_ops_named_source_is_linked_when_it_registers_tiling(
    tmp_path: Path, text: str, linked: bool
) -> None:
    op = load_operator(_answer(tmp_path / "swap_like", text))
    assert op.files.host == "op_host/swap_like_tiling_base.cpp"
    assert ("op_host/swap_like.cpp" in op.files.host_sources) is linked
