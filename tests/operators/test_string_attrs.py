"""String and list attrs (issue 28): an OpDef `.Attr("reduction").String("mean")` is a spec attr of type
"str" (`.ListInt({1, 2})`: "list_int"), a benchmark task's Python string (list of ints) argument becomes
the case's value, and the host tiling program reads it with GetAttrPointer<char> / GetStr (GetListInt).
Look-alikes: benchmark_task_style.mode_task, list_task."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.extract import opdef_info
from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import reference_signature
from tests.operators.benchmark_task_style import list_task, mode_task

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)

OPDEF = """\
namespace ops {
class LossLike : public OpDef {
public:
    explicit LossLike(const char *name) : OpDef(name)
    {
        this->Input("x").DataType({ge::DT_FLOAT});
        this->Output("y").DataType({ge::DT_FLOAT});
        this->Attr("reduction").AttrType(OPTIONAL).String("sum over rows");
        this->Attr("layout").AttrType(OPTIONAL).String(DEFAULT_LAYOUT);
        this->Attr("empty").AttrType(OPTIONAL).String("");
        this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2});
    }
};
OP_ADD(LossLike);
}
"""

SPEC = """\
schema_version = 1
name = "loss_like"
reference = "reference.py:reference"

[[inputs]]
name = "x"
dtypes = ["float32"]

[[outputs]]
name = "y"
dtypes = ["float32"]

[[attrs]]
name = "reduction"
type = "str"
default = "mean"

[[cases]]
name = "c0"
shapes = { x = [8] }
attrs = { reduction = %s }
"""


def test_the_opdef_string_attr_and_its_default() -> None:
    info = opdef_info(CppSource.parse("op_host/loss_like.cpp", OPDEF, whole=True))
    assert info is not None
    got = [(a.name, a.type, a.default) for a in info.attrs]
    # A macro is not a literal: the type is known, the default is not guessed.
    assert got == [
        ("reduction", "str", "sum over rows"),
        ("layout", "str", None),
        ("empty", "str", ""),
        ("dims", "list_int", [1, 2]),
    ]


def test_a_spec_string_attr_resolves_and_a_wrong_type_is_refused_at_its_line(tmp_path: Path) -> None:
    spec = parse_spec(SPEC % '"none"', tmp_path / "ascendopt.toml")
    assert spec.resolve_cases()[0].attrs == {"reduction": "none"}
    assert "reduction: str = 'mean'" in reference_signature(spec)
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC % "1.5", tmp_path / "ascendopt.toml").resolve_cases()
    assert "a str attr cannot take 1.5" in str(e.value)
    with pytest.raises(SpecError) as e:
        parse_spec((SPEC % '"none"').replace('default = "mean"', "default = 0"), tmp_path / "ascendopt.toml")
    assert "a str attr cannot take 0" in str(e.value)
    # The case manifest gives each attr one line: a line break is refused, not smuggled into a directive.
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC % '"x\\nblock_dim 9"', tmp_path / "ascendopt.toml").resolve_cases()
    assert "a string attr is one line" in str(e.value)


@needs_torch
def test_a_python_string_argument_becomes_the_case_attr(tmp_path: Path) -> None:
    op, _ = asyncio.run(with_task_spec(load_operator(mode_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert [(a.name, a.type, a.default) for a in op.spec.attrs] == [("mode", "str", "half")]
    assert [c.attrs for c in op.spec.cases] == [{"mode": "double"}, {"mode": "half"}]


@pytest.mark.slow
@needs_torch
def test_verify_hands_the_string_to_the_tiling_program(tmp_path: Path) -> None:
    # "double" and "half" scale differently, and the tiling fails on a string it does not know: both
    # cases pass only if each case's own string reaches GetAttrPointer<char> and GetStr.
    done = CliRunner().invoke(app, ["verify", str(mode_task(tmp_path) / "answer" / "0"), "--json"])
    assert done.exit_code == 0, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"]


def test_a_list_attr_resolves_and_refuses_a_non_list(tmp_path: Path) -> None:
    text = (SPEC % "[4, 5]").replace('type = "str"\ndefault = "mean"', 'type = "list_int"\ndefault = [1]')
    assert parse_spec(text, tmp_path / "ascendopt.toml").resolve_cases()[0].attrs == {"reduction": [4, 5]}
    with pytest.raises(SpecError) as e:
        parse_spec(text.replace("[4, 5]", '"4"'), tmp_path / "ascendopt.toml").resolve_cases()
    assert "a list_int attr cannot take '4'" in str(e.value)


@pytest.mark.slow
@needs_torch
def test_verify_hands_the_list_to_the_tiling_program(tmp_path: Path) -> None:
    # The kernel scales by the product of the list, read with GetListInt: 6 and -4 pass only if each
    # case's own list arrives whole.
    op, _ = asyncio.run(with_task_spec(load_operator(list_task(tmp_path / "t") / "answer" / "0")))
    assert op.spec is not None and [c.attrs for c in op.spec.cases] == [
        {"factors": [2, 3]},
        {"factors": [-1, 2, 2]},
    ]
    done = CliRunner().invoke(app, ["verify", str(list_task(tmp_path / "v") / "answer" / "0"), "--json"])
    assert done.exit_code == 0, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"]
