from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.operators.discovery import discover, load_operator
from tests.operators.synthetic import write_cann_open, write_kernel_launch


def test_every_template_is_discovered_with_entry_fields_and_knobs(templates: Path) -> None:
    found = discover(templates)
    names = {o.name for o in found.operators}
    expected = {p.name for p in templates.iterdir() if (p / "ascendopt.toml").exists()}
    assert names == expected
    assert len(names) >= 1
    for op in found.operators:
        assert op.layout == "msopgen"
        assert op.issues == [], [str(i) for i in op.issues]
        assert op.spec is not None and op.spec.name == op.name
        assert op.kernel.params[-1].role == "tiling" and op.kernel.params[-2].role == "workspace"
        assert op.kernel.names("input") == [t.name for t in op.spec.inputs]
        assert op.kernel.names("output") == [t.name for t in op.spec.outputs]
        assert op.tiling is not None and op.tiling.sets_block_dim
        assert op.tiling_fields, op.name
        assert op.knobs, op.name


def test_add_custom_details(templates: Path) -> None:
    op = load_operator(templates / "add_custom")
    assert op.op_type == "AddCustom"
    assert [p.name for p in op.kernel.params] == ["x", "y", "z", "workspace", "tiling"]
    assert [f.name for f in op.tiling_fields] == ["totalLength", "blockLength", "tileLength"]
    assert op.opdef is not None and op.opdef.inputs[0].dtypes == ["DT_FLOAT16", "DT_FLOAT", "DT_BF16"]
    buffer_num = op.knob("BUFFER_NUM")
    # mirrored on the host and in the kernel: one knob, two places
    assert {buffer_num.range.file, *(r.file for r in buffer_num.links)} == {
        "op_host/add_custom.cpp",
        "op_kernel/add_custom.cpp",
    }
    text = (templates / "add_custom" / op.knob("TILE_LENGTH").range.file).read_bytes()
    rng = op.knob("TILE_LENGTH").range
    assert text[rng.start_byte : rng.end_byte] == b"4096"


def test_cann_open_layout(tmp_path: Path) -> None:
    root = write_cann_open(tmp_path)
    op = load_operator(root)
    assert op.layout == "cann_open"
    assert op.name == "scale"
    assert op.files.host == "op_host/scale_tiling.cpp"
    assert op.files.tiling_data == "op_kernel/scale_tiling_data.h"
    assert op.tiling is not None and op.tiling.function == "ScaleTilingFunc"
    assert op.tiling.sets_tiling_key
    assert op.tiling_struct == "ScaleTilingData"
    assert [(f.name, f.type, f.array_length) for f in op.tiling_fields] == [
        ("totalNum", "int64_t", None),
        ("blockFactor", "int64_t", None),
        ("ubFactor", "int64_t", None),
        ("scales", "float", "4"),
    ]
    ub = op.knob("UB_FACTOR")
    assert ub.source == "annotation" and ub.values == [1024, 2048, 4096, 8192, 16384]
    region = op.knob("evolve_region")
    assert "blockFactor" in str(region.current) and "evolve_tiling" not in str(region.current)
    assert [p.role for p in op.kernel.params] == ["input", "output", "workspace", "tiling"]


def test_kernel_launch_layout(tmp_path: Path) -> None:
    root = write_kernel_launch(tmp_path)
    op = load_operator(root)
    assert op.layout == "kernel_launch"
    assert op.name == "sub_custom"
    assert op.tiling is not None and op.tiling.block_dim_expr == "blockDim"
    assert [p.role for p in op.kernel.params] == ["input", "input", "output"]
    kinds = {k.name: k.kind for k in op.knobs}
    assert kinds["TILE_NUM"] == "tile_num" and kinds["BUFFER_NUM"] == "buffer_num"


def test_missing_kernel_or_tiling_file_is_reported_and_rest_still_found(
    tmp_path: Path, templates: Path
) -> None:
    shutil.copytree(templates / "add_custom", tmp_path / "good")
    shutil.copytree(templates / "add_custom", tmp_path / "no_tiling")
    (tmp_path / "no_tiling" / "op_host" / "add_custom.cpp").unlink()
    (tmp_path / "no_tiling" / "ascendopt.toml").unlink()
    shutil.copytree(templates / "add_custom", tmp_path / "no_kernel")
    (tmp_path / "no_kernel" / "op_kernel" / "add_custom.cpp").unlink()
    found = discover(tmp_path)
    roots = {o.root.name: o for o in found.operators}
    assert "good" in roots and "no_tiling" in roots
    assert any("no tiling program" in i.message for i in roots["no_tiling"].issues)
    assert any("without a kernel" in i.message and "no_kernel" in i.file for i in found.issues)


def test_two_kernels_claiming_one_name(tmp_path: Path, templates: Path) -> None:
    shutil.copytree(templates / "add_custom", tmp_path / "a")
    shutil.copytree(templates / "add_custom", tmp_path / "b")
    found = discover(tmp_path)
    assert len(found.operators) == 2
    for op in found.operators:
        dup = [i for i in op.issues if i.code == "duplicate"]
        assert dup and dup[0].line == op.kernel.range.start_line
        assert dup[0].severity == "warning"  # separate projects: each still usable from its folder


def test_unparseable_cpp_names_file_and_line(tmp_path: Path, templates: Path) -> None:
    shutil.copytree(templates / "add_custom", tmp_path / "op")
    kernel = tmp_path / "op" / "op_kernel" / "add_custom.cpp"
    lines = kernel.read_text().splitlines()
    lines.insert(20, "        int broken = (3 + ;")
    kernel.write_text("\n".join(lines) + "\n")
    op = load_operator(tmp_path / "op")
    parse = [i for i in op.issues if i.code == "parse"]
    assert parse and parse[0].file == "op_kernel/add_custom.cpp" and parse[0].line == 21


def test_reference_problems_are_reported_at_the_reference_key(tmp_path: Path, templates: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from ascendopt.cli import app

    root = tmp_path / "add_custom"
    shutil.copytree(templates / "add_custom", root)
    spec = (root / "ascendopt.toml").read_text()
    key_line = next(n for n, line in enumerate(spec.splitlines(), 1) if line.startswith("reference ="))
    assert key_line > 1
    (root / "reference.py").write_text("import numpy as np\n\ndef other(x, y):\n    return x + y\n")
    [issue] = [i for i in load_operator(root).issues if "reference" in i.message]
    assert issue.file == "ascendopt.toml" and issue.line == key_line
    assert "no function 'add_custom'" in issue.message
    shown = CliRunner().invoke(app, ["discover", str(root)])
    flat = "".join(shown.output.split())  # the console may wrap anywhere
    assert "nofunction'add_custom'" in flat and f"ascendopt.toml:{key_line}:1" in flat
    (root / "reference.py").unlink()
    [issue] = [i for i in load_operator(root).issues if "reference" in i.message]
    assert issue.line == key_line and "does not exist" in issue.message
