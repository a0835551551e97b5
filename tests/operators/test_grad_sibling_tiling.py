"""A grad operator registering its sibling's tiling struct from the sibling's header
(`REGISTER_TILING_DATA_CLASS(<Op>Grad, <Op>TilingData)` in `op_host/<op>_tiling.h`) reads that
header, not a missing `op_host/<op>_grad_tiling.h` (issue 28; look-alike files built here from the
project's own add_custom template)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.operators.discovery import discover

REPO = Path(__file__).resolve().parents[2]


def _with_grad(tmp_path: Path, second_struct: bool = False) -> Path:
    op = tmp_path / "add_custom"
    shutil.copytree(REPO / "templates" / "operators" / "add_custom", op)
    kernel = (op / "op_kernel" / "add_custom.cpp").read_text()
    (op / "op_kernel" / "add_custom_grad.cpp").write_text(
        kernel.replace("void add_custom(", "void add_custom_grad(")
    )
    host = (op / "op_host" / "add_custom.cpp").read_text()
    host = host.replace("class AddCustom ", "class AddCustomGrad ").replace(
        "explicit AddCustom(", "explicit AddCustomGrad("
    )
    (op / "op_host" / "add_custom_grad.cpp").write_text(
        host.replace("OP_ADD(AddCustom)", "OP_ADD(AddCustomGrad)")
    )
    header = op / "op_host" / "add_custom_tiling.h"
    text = header.read_text()
    extra = "REGISTER_TILING_DATA_CLASS(AddCustomGrad, AddCustomTilingData)\n"
    if second_struct:  # a second struct in the same header, registered for nobody here
        extra += (
            "BEGIN_TILING_DATA_DEF(OtherTilingData)\n  TILING_DATA_FIELD_DEF(uint32_t, unrelated);\n"
            "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(Other, OtherTilingData)\n"
        )
    header.write_text(text.replace("}  // namespace optiling", extra + "}  // namespace optiling"))
    return op


def test_grad_reads_the_sibling_header_it_registers_in(tmp_path: Path) -> None:
    _with_grad(tmp_path)
    found = discover(tmp_path)
    ops = {o.name: o for o in found.operators}
    assert set(ops) == {"add_custom", "add_custom_grad"}
    grad = ops["add_custom_grad"]
    errors = [i for i in [*found.issues, *grad.issues] if i.severity == "error"]
    assert errors == [], errors
    assert grad.files.tiling_data == "op_host/add_custom_tiling.h"
    assert [f.name for f in grad.tiling_fields] == ["totalLength", "blockLength", "tileLength"]


def test_the_registered_struct_is_the_one_read(tmp_path: Path) -> None:
    _with_grad(tmp_path, second_struct=True)
    ops = {o.name: o for o in discover(tmp_path).operators}
    grad = ops["add_custom_grad"]
    assert grad.tiling_struct == "AddCustomTilingData"
    assert "unrelated" not in [f.name for f in grad.tiling_fields]


def test_no_registration_anywhere_is_still_named(tmp_path: Path) -> None:
    op = _with_grad(tmp_path)
    header = op / "op_host" / "add_custom_tiling.h"
    header.write_text(
        header.read_text().replace("REGISTER_TILING_DATA_CLASS(AddCustomGrad, AddCustomTilingData)\n", "")
    )
    grad = {o.name: o for o in discover(tmp_path).operators}["add_custom_grad"]
    [err] = [i for i in grad.issues if i.severity == "error"]
    assert "op_host/add_custom_grad_tiling.h" in err.message and "AddCustomGrad" in err.message
