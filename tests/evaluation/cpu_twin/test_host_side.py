"""Host-side choices of the twin's build that need no compiler: which op_host names a kernel build
brings to global scope (tiling_global.h), which InferShape sources the host program links, and the
OpDef flag that gives the kernel a shape-out argument. Look-alike: norm_lookalike.py."""

from __future__ import annotations

from pathlib import Path

from ascendopt.evaluation.cpu_twin.build import tiling_classes_global
from ascendopt.evaluation.cpu_twin.stand_ins import infer_shape_sources
from ascendopt.operators.discovery import load_operator
from tests.evaluation.cpu_twin.norm_lookalike import DEF, SPEC, write_rms_like

IN_OPTILING = """\
#include "register/tilingdata_base.h"
namespace optiling {
constexpr size_t MAX_DIMS = 8;
BEGIN_TILING_DATA_DEF(CopyLikeTilingData)
TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_DIMS, dims);
END_TILING_DATA_DEF;
// BEGIN_TILING_DATA_DEF(RetiredTilingData)
/* BEGIN_TILING_DATA_DEF(OlderTilingData) */
BEGIN_TILING_DATA_DEF(CopyLikeExtra)
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(CopyLike, CopyLikeTilingData)
}
"""


def test_only_the_tiling_classes_reach_the_kernels_scope() -> None:
    # MAX_DIMS stays in optiling (the kernel may define its own); commented-out classes are not declared
    assert tiling_classes_global(IN_OPTILING) == [
        "-DASCENDOPT_TWIN_TILING_USING=using optiling::CopyLikeTilingData; using optiling::CopyLikeExtra;"
    ]


def test_classes_outside_optiling_keep_the_whole_namespace() -> None:
    at_global = IN_OPTILING.replace("namespace optiling {\n", "").removesuffix("}\n")
    assert tiling_classes_global(at_global) == []
    # one class before the namespace: a using-declaration of it would not compile; the directive instead
    before = "BEGIN_TILING_DATA_DEF(Early)\nEND_TILING_DATA_DEF;\n" + IN_OPTILING
    assert tiling_classes_global(before) == []
    assert tiling_classes_global("namespace optiling {\n}\n") == []


PROTO = """\
#include "register/op_impl_registry.h"
namespace ops {
static ge::graphStatus InferShapeRmsLike(gert::InferShapeContext *context) { return ge::GRAPH_SUCCESS; }
IMPL_OP_INFERSHAPE(RmsLike).InferShape(InferShapeRmsLike);
}
"""


def _files(op: Path) -> dict[str, str]:
    return {str(p.relative_to(op)): p.read_text() for p in op.rglob("*") if p.is_file()}


def test_the_infershape_source_is_linked_only_for_an_output_it_sizes(tmp_path: Path) -> None:
    op = write_rms_like(tmp_path)
    (op / "op_host" / "rms_like_proto.cpp").write_text(PROTO)
    (op / "op_host" / "rms_like_infershape_notes.cpp").write_text("// no registration here\n")
    project = load_operator(op)
    assert infer_shape_sources(project, _files(op), ["op_host/rms_like_tiling.cpp"]) == []  # all compared
    (op / "ascendopt.toml").write_text(SPEC.replace('name = "rstd"\n', 'name = "rstd"\ncheck = false\n'))
    project = load_operator(op)
    files = _files(op)
    assert infer_shape_sources(project, files, ["op_host/rms_like_tiling.cpp"]) == [
        "op_host/rms_like_proto.cpp"
    ]
    # already linked (a tiling source that registers InferShape too): not twice
    assert infer_shape_sources(project, files, ["op_host/rms_like_proto.cpp"]) == []


def test_the_opdef_flag_of_a_computed_shape_output(tmp_path: Path) -> None:
    op = write_rms_like(tmp_path)
    (op / "op_host" / "rms_like_def.cpp").write_text(
        DEF.replace('this->Output("rstd")', 'this->Output("rstd").OutputShapeDependOnCompute()')
    )
    opdef = load_operator(op).opdef
    assert opdef is not None
    assert [(t.name, t.shape_depends_on_compute) for t in opdef.outputs] == [("y", False), ("rstd", True)]
    assert [t.param_type for t in opdef.outputs] == ["REQUIRED", "REQUIRED"]
