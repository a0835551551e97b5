"""Host API gaps NPUKernelBench answers hit (issue 28, round 10): gert::ExtendedKernelContext, the
common base an InferShape function casts its context to (ScatterList reads GetComputeNodeOutputNum
through it), and the graph operator view a check-support function takes (ge::Operator, TensorDesc,
AscendString, GRAPH_NOT_CHANGED; ReverseSequence registers one with SetCheckSupport). Real g++ builds
of look-alikes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.evaluation.cpu_twin.test_host_gaps import RUNTIME, _run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]

# An InferShape that copies input i to output i for as many outputs as the node has, through the base class.
COPY_THROUGH_BASE = """\
#include <cstdio>
#include "register/op_impl_registry.h"
#include "exe_graph/runtime/extended_kernel_context.h"
static ge::graphStatus CopyShapes(gert::InferShapeContext *context)
{
    auto base = reinterpret_cast<gert::ExtendedKernelContext *>(context);
    for (size_t i = 0; i < base->GetComputeNodeOutputNum(); ++i) {
        const gert::Shape *in = context->GetInputShape(i);
        gert::Shape *out = context->GetOutputShape(i);
        if (in == nullptr || out == nullptr) return ge::GRAPH_FAILED;
        *out = *in;
    }
    return ge::GRAPH_SUCCESS;
}
int main()
{
    gert::InferShapeContext ctx;
    ctx.in_ = {gert::Shape({2, 3}), gert::Shape({4}), gert::Shape({5, 6, 7})};
    ctx.out_.resize(%OUTS%);
    ge::graphStatus r = CopyShapes(&ctx);
    std::printf("%u", r == ge::GRAPH_SUCCESS ? 1u : 0u);
    for (const gert::Shape &s : ctx.out_) std::printf(" %lld", (long long)s.GetShapeSize());
    gert::TilingContext tctx;
    tctx.inShapes_.resize(3);
    tctx.outShapes_.resize(2);
    const gert::ExtendedKernelContext *tbase = reinterpret_cast<const gert::ExtendedKernelContext *>(&tctx);
    std::printf(" %zu %zu\\n", tbase->GetComputeNodeInputNum(), tbase->GetComputeNodeOutputNum());
}
"""


@pytest.mark.parametrize(("outs", "sizes"), [(2, ["6", "4"]), (3, ["6", "4", "210"])])
def test_an_infer_shape_through_the_base_context_sees_the_nodes_outputs(
    tmp_path: Path, outs: int, sizes: list[str]
) -> None:
    # the contexts' members are defined in the runtime, as every runner links it
    source = COPY_THROUGH_BASE.replace("%OUTS%", str(outs))
    out = _run(tmp_path, source, str(RUNTIME / "host_api.cpp")).split()
    assert out == ["1", *sizes, "3", "2"]


# A check-support function in the answer's shape, registered on an OpDef and called on an Operator built here.
CHECK_SUPPORT = """\
#include <cstdio>
#include <string>
#include "register/op_def_registry.h"
namespace ops {
static ge::graphStatus Check(const ge::Operator &op, ge::AscendString &result)
{
    ge::TensorDesc x = op.GetInputDescByName("x");
    std::vector<int64_t> dims = x.GetShape().GetDims();
    int64_t axis = 0;
    if (op.GetAttr("axis", axis) != ge::GRAPH_SUCCESS) return ge::GRAPH_NOT_CHANGED;
    if (op.GetOutputDescByName("y").GetShape().GetDims() != dims) return ge::GRAPH_FAILED;
    std::string s = std::to_string(ge::GetSizeByDataType(x.GetDataType())) + ",";
    s += std::to_string(dims.size()) + "," +
                    std::to_string(axis);
    result = ge::AscendString(s.c_str());
    return ge::GRAPH_SUCCESS;
}
class LookAlike : public OpDef {
public:
    explicit LookAlike(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetCheckSupport(Check);
    }
};
OP_ADD(LookAlike);
}  // namespace ops
int main()
{
    ge::Operator op("n", "LookAlike");
    op.UpdateInputDesc("x", ge::TensorDesc(ge::Shape({2, 3, 4}), ge::FORMAT_ND, ge::DT_FLOAT16));
    op.UpdateOutputDesc("y", ge::TensorDesc(ge::Shape({2, 3, 4}), ge::FORMAT_ND, ge::DT_FLOAT16));
    ge::AscendString r;
    bool unknown = ops::Check(op, r) == ge::GRAPH_NOT_CHANGED;
    op.SetAttr("axis", static_cast<int64_t>(-1));
    bool ok = ops::Check(op, r) == ge::GRAPH_SUCCESS;
    op.UpdateOutputDesc("y", ge::TensorDesc(ge::Shape({2, 3}), ge::FORMAT_ND, ge::DT_FLOAT16));
    bool refused = ops::Check(op, r) == ge::GRAPH_FAILED;
    std::printf("%d %d %d %s %s\\n", unknown, ok, refused, r.GetString(),
                op.GetInputDescByName("absent").GetShape().GetDims().empty() ? "empty" : "?");
}
"""


def test_a_check_support_function_reads_the_operator_it_is_given(tmp_path: Path) -> None:
    out = _run(tmp_path, CHECK_SUPPORT, str(RUNTIME / "host_api.cpp")).split()
    assert out == ["1", "1", "1", "2,3,-1", "empty"]
