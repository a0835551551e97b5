"""Issue 29 point 7: a file given where an operator is expected walks up to the operator holding it;
a spec whose tensor names differ from the OpDef (or from the kernel's DTYPE_<NAME> macros) is refused
before any build, naming the spec's file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.operators.discovery import discover, load_operator
from ascendopt.operators.issues import blocking
from tests.operators.synthetic import write_kernel_launch

runner = CliRunner()


@pytest.fixture
def add_op(tmp_path: Path, templates: Path) -> Path:
    root = tmp_path / "ws" / "add_custom"
    shutil.copytree(templates / "add_custom", root)
    return root


@pytest.mark.parametrize(
    "inside", ["op_kernel/add_custom.cpp", "op_host/add_custom.cpp", "op_host", "ascendopt.toml"]
)
def test_a_file_or_folder_inside_an_operator_walks_up_to_it(add_op: Path, inside: str) -> None:
    result = runner.invoke(app, ["knobs", str(add_op / inside)])
    assert result.exit_code == 0, result.output
    assert "knobs of add_custom" in result.output and "TILE_LENGTH" in result.output
    # the advice about "the kernel is op_kernel/<op>.cpp" given about exactly that file is gone
    assert "was not read as an operator" not in result.output
    if inside != "ascendopt.toml":  # that one is in the operator's own folder: nothing to say
        assert f"is inside operator add_custom: using {add_op}" in result.output


def test_a_missing_path_inside_an_operator_does_not_walk_up(add_op: Path) -> None:
    result = runner.invoke(app, ["knobs", str(add_op / "op_kernel" / "typo.cpp")])
    assert result.exit_code == 2 and "no AscendC operator" in result.output


def test_a_folder_above_several_operators_does_not_walk_up(tmp_path: Path, templates: Path) -> None:
    for name in ("add_custom", "mul_custom"):
        shutil.copytree(templates / name, tmp_path / name)
    result = runner.invoke(app, ["knobs", str(tmp_path)])
    assert result.exit_code == 2 and "holds several operators" in result.output


def _rename_input(spec: Path, old: str, new: str) -> None:
    text = spec.read_text()
    spec.write_text(text.replace(f'name = "{old}"', f'name = "{new}"').replace(f"{old} = [", f"{new} = ["))


def test_a_spec_tensor_the_opdef_does_not_declare_is_refused_at_its_line(add_op: Path) -> None:
    spec = add_op / "ascendopt.toml"
    _rename_input(spec, "x", "a")
    line = spec.read_text().splitlines().index('name = "a"') + 1
    op = load_operator(add_op)
    [issue] = [i for i in op.issues if i.code == "spec"]
    assert (issue.file, issue.line) == ("ascendopt.toml", line)
    assert (
        "'a'" in issue.message and "inputs: x, y" in issue.message and "add_custom(x, y, z" in issue.message
    )
    assert blocking(op.issues) == [issue]
    # verify refuses it before any build (no g++ error about DTYPE_X in the untouched kernel)
    result = runner.invoke(app, ["verify", str(add_op)])
    assert result.exit_code == 2
    assert f"{spec}:{line}:1: error: input 'a'" in result.output and "DTYPE_X" not in result.output


def test_an_output_named_as_an_opdef_input_says_so(add_op: Path) -> None:
    spec = add_op / "ascendopt.toml"
    spec.write_text(spec.read_text().replace('name = "z"', 'name = "y2"'))
    op = load_operator(add_op)
    [issue] = [i for i in op.issues if i.code == "spec"]
    assert "output 'y2'" in issue.message and "its outputs: z" in issue.message


def test_the_template_specs_agree_with_their_opdefs(templates: Path) -> None:
    found = discover(templates)
    assert found.operators
    assert [str(i) for o in found.operators for i in o.issues if i.code == "spec"] == []


LAUNCH_SPEC = """\
schema_version = 1
name = "sub_custom"
reference = "reference.py:sub_custom"

[[inputs]]
name = "{first}"
dtypes = ["float16"]

[[inputs]]
name = "y"
dtypes = ["float16"]

[[outputs]]
name = "z"
dtypes = ["float16"]

[[cases]]
name = "one"
shapes = {{ {first} = [8, 2048], y = [8, 2048] }}
"""


@pytest.mark.parametrize(("first", "refused"), [("x", False), ("a", True)])
def test_without_an_opdef_the_kernels_dtype_macros_name_the_tensors(
    tmp_path: Path, first: str, refused: bool
) -> None:
    op_dir = write_kernel_launch(tmp_path)
    kernel = op_dir / "sub_custom.cpp"
    kernel.write_text(kernel.read_text().replace("GlobalTensor<half>", "GlobalTensor<DTYPE_X>"))
    (op_dir / "ascendopt.toml").write_text(LAUNCH_SPEC.format(first=first))
    (op_dir / "reference.py").write_text("def sub_custom(x, y):\n    return x - y\n")
    op = load_operator(op_dir)
    found = [i for i in op.issues if i.code == "spec"]
    if not refused:
        assert found == []
        return
    [issue] = found
    assert issue.line == 6 and "sub_custom.cpp:10 uses DTYPE_X" in issue.message
    assert "its tensors: a, y, z" in issue.message
