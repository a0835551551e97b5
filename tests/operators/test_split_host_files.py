"""Host programs split over more files than the layouts expected (issue 28, NPUKernelBench GeluQuant and
FeedsRepeat; look-alike trees written here): an `<op>_tiling.h` holding only the host's tiling class while
`<op>_tiling_def.h` defines the struct; an OpDef file that also registers the InferShape; an msOpGen
operator whose tiling function sits in a `.cc` file beside the OpDef's `.cpp`."""

from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.operators.discovery import discover

REPO = Path(__file__).resolve().parents[2]

KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void blur_quant(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    (void)t; (void)x; (void)y; (void)workspace;
}
"""
DEF = """\
#include "register/op_def_registry.h"
namespace ops {
static ge::graphStatus InferShapeForBlurQuant(gert::InferShapeContext *context) { return ge::GRAPH_SUCCESS; }
IMPL_OP_INFERSHAPE(BlurQuant).InferShape(InferShapeForBlurQuant);
class BlurQuant : public OpDef {
public:
    explicit BlurQuant(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BlurQuant);
}
"""
TILING_DEF = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(BlurQuantTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rows);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(BlurQuant, BlurQuantTilingData)
}
"""
TILING_CLASS = """\
#include "blur_quant_tiling_def.h"
namespace optiling {
class BlurQuantTiling {
public:
    explicit BlurQuantTiling(gert::TilingContext *context) : context_(context) {}
private:
    gert::TilingContext *context_;
};
}
"""
TILING = """\
#include "blur_quant_tiling.h"
namespace optiling {
static ge::graphStatus Tiling4BlurQuant(gert::TilingContext *context) { return ge::GRAPH_SUCCESS; }
IMPL_OP_OPTILING(BlurQuant).Tiling(Tiling4BlurQuant);
}
"""


def _cann_open(tmp_path: Path, *, with_def_header: bool = True, infer_in_def: bool = True) -> Path:
    op = tmp_path / "blur_quant"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir()
    (op / "op_kernel" / "blur_quant.cpp").write_text(KERNEL)
    (op / "op_host" / "blur_quant_def.cpp").write_text(
        DEF if infer_in_def else DEF.replace("IMPL_OP_INFERSHAPE", "// ")
    )
    (op / "op_host" / "blur_quant.cpp").write_text(TILING)
    if with_def_header:
        (op / "op_host" / "blur_quant_tiling_def.h").write_text(TILING_DEF)
        (op / "op_host" / "blur_quant_tiling.h").write_text(TILING_CLASS)
    else:
        (op / "op_host" / "blur_quant_tiling.h").write_text(TILING_DEF)
    return op


def _only(tmp_path: Path):
    found = discover(tmp_path)
    assert len(found.operators) == 1, found
    return found.operators[0]


def test_the_struct_comes_from_the_def_header_when_the_tiling_header_holds_a_class(tmp_path: Path) -> None:
    _cann_open(tmp_path)
    op = _only(tmp_path)
    assert op.layout == "cann_open"
    assert op.files.tiling_data == "op_host/blur_quant_tiling_def.h"
    assert [f.name for f in op.tiling_fields] == ["rows"]


def test_a_tiling_header_defining_the_struct_is_still_the_one_read(tmp_path: Path) -> None:
    _cann_open(tmp_path, with_def_header=False)
    assert _only(tmp_path).files.tiling_data == "op_host/blur_quant_tiling.h"


def test_an_opdef_file_registering_the_infershape_is_linked_with_the_tiling_program(tmp_path: Path) -> None:
    _cann_open(tmp_path)
    op = _only(tmp_path)
    assert op.files.host == "op_host/blur_quant.cpp"
    assert "op_host/blur_quant_def.cpp" in op.files.host_sources


def test_an_opdef_file_without_one_is_not(tmp_path: Path) -> None:
    _cann_open(tmp_path, infer_in_def=False)
    assert "op_host/blur_quant_def.cpp" not in _only(tmp_path).files.host_sources


def test_msopgen_tiling_registered_in_a_cc_file_beside_the_opdef_is_linked(tmp_path: Path) -> None:
    op = tmp_path / "add_custom"
    shutil.copytree(REPO / "templates" / "operators" / "add_custom", op)
    host = op / "op_host"
    (host / "add_custom_tiling.cc").write_text(
        '#include "add_custom_tiling.h"\nIMPL_OP_OPTILING(AddCustom);\n'
    )
    (host / "add_custom_proto.cc").write_text("IMPL_OP_INFERSHAPE(AddCustom);\n")
    (host / "add_custom_notes.cc").write_text("// no registration here\n")
    (host / "add_custom_inl.cc").write_text("IMPL_OP_OPTILING(AddCustom);\n")
    main = host / "add_custom.cpp"
    main.write_text('#include "add_custom_inl.cc"\n' + main.read_text())  # included: compiled with it already
    found = _only(tmp_path)
    assert found.layout == "msopgen"
    # the InferShape-only source and the one the host program includes are not
    assert found.files.host_sources == ["op_host/add_custom_tiling.cc"]
