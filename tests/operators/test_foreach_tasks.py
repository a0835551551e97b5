"""Lists of tensors in and out (OpDef DYNAMIC outputs, NPUKernelBench's Foreach tasks) with a
look-alike task (foreach_style.py): the OpDef's dtype variables, the spec's list outputs, the
manifest, the oracle's list results, and verify on the twin, where each tensor of a list is a GM
buffer of its own (a kernel that writes past one into where it guesses the next lies, or reads the
list block wrong, fails)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.manifest import manifest_files
from ascendopt.evaluation.reference import ReferenceError, run_reference
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.evaluation.tensors import make_inputs
from ascendopt.evaluation.toolchain import CaseJob
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.extract import opdef_info
from ascendopt.operators.soc import soc
from ascendopt.operators.spec import output_instances, parse_spec
from tests.operators import foreach_style as style

runner = CliRunner()
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)

SPEC = """\
schema_version = 1
name = "scale_list"
reference = "reference.py:scale_list"

[[inputs]]
name = "xs"
dtypes = ["float32"]
param_type = "dynamic"

[[outputs]]
name = "ys"
dtypes = ["float32"]
param_type = "dynamic"

[[cases]]
name = "two"
shapes = { xs = [[4, 8], [3]] }
"""


def test_opdef_dtypes_given_through_variables_are_resolved() -> None:
    """`.DataType(name)`: a braced list, a list sized from another, one mapped through a switch."""
    info = opdef_info(CppSource.parse("op_host/scale_list.cpp", style.HOST))
    assert info is not None
    got = {t.name: (t.param_type, t.dtypes) for t in (*info.inputs, *info.outputs)}
    assert got == {
        "tensors": ("DYNAMIC", ["DT_FLOAT16", "DT_FLOAT"]),
        "factor": ("REQUIRED", ["DT_FLOAT", "DT_FLOAT"]),
        "out": ("DYNAMIC", ["DT_FLOAT16", "DT_FLOAT"]),
    }
    sized = style.HOST.replace(
        "std::vector<ge::DataType> factor_types;",
        "std::vector<ge::DataType> factor_types(list_types.size(), ge::DT_INT32);",
    ).replace("std::for_each(", "(void)(")
    info = opdef_info(CppSource.parse("op_host/scale_list.cpp", sized))
    assert info is not None and info.inputs[1].dtypes == ["DT_INT32", "DT_INT32"]
    # a variable the reader cannot follow stays unknown (empty), never a guess
    unknown = style.HOST.replace(".DataType(factor_types)", ".DataType(MakeTypes())")
    info = opdef_info(CppSource.parse("op_host/scale_list.cpp", unknown))
    assert info is not None and info.inputs[1].dtypes == []


def test_a_list_output_takes_as_many_tensors_as_the_reference_returns() -> None:
    spec = parse_spec(SPEC, Path("ascendopt.toml"))
    case = spec.resolve_cases()[0]
    inputs = make_inputs(spec, case, seed=3)
    out = run_reference(lambda xs: [2 * x for x in xs], spec, case, inputs)
    assert list(out) == ["ys.0", "ys.1"] and out["ys.1"].shape == (3,)
    assert np.array_equal(out["ys.0"], 2 * inputs["xs.0"])
    assert [names for _, names in output_instances(spec.outputs, out)] == [["ys.0", "ys.1"]]
    with pytest.raises(ReferenceError, match="list output"):
        run_reference(lambda xs: xs[0], spec, case, inputs)
    shapes = {n: list(a.shape) for n, a in out.items()}
    project = type(
        "P", (), {"spec": spec, "op_type": "ScaleList", "layout": "msopgen", "tiling": None, "opdef": None}
    )()
    job = CaseJob(project, case, inputs, shapes, "/w", "/s", False, soc("Ascend910B4"))  # type: ignore[arg-type]
    lines = manifest_files(job)["manifest.txt"].decode().splitlines()
    start = lines.index("dynamic_output ys 2")
    assert lines[start + 1].split()[:5] == ["output", "ys.0", "float32", "2", "4"]
    assert lines[start + 2].split()[:4] == ["output", "ys.1", "float32", "1"]


@needs_torch
def test_the_task_s_spec_has_list_input_and_output_and_a_one_element_factor(tmp_path: Path) -> None:
    task = style.scale_list_task(tmp_path)
    op, _ = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    spec = op.spec
    assert spec is not None and spec.oracle is not None
    assert [(t.name, t.param_type) for t in spec.inputs] == [("tensors", "dynamic"), ("factor", "required")]
    assert [(t.name, t.param_type, t.dtypes) for t in spec.outputs] == [
        ("out", "dynamic", ["float16", "float32"])
    ]
    first = spec.cases[0]
    assert first.shapes == {"tensors": [[3, 40], [17], [2, 8, 16]], "factor": [1]}
    assert first.dtypes["factor"] == "float32" and first.dtypes["tensors"] == "float16"
    # the tolerances the task's custom_check_precision asks the benchmark's check for, per dtype the
    # kernel's output has (float16 here, though the Model's float16 results came out float32)
    assert (spec.tolerance("float16").rtol, spec.tolerance("float16").atol) == (0.002, 0.005)
    assert (spec.tolerance("float32").rtol, spec.tolerance("float32").atol) == (0.0001, 0.0001)


@needs_torch
def test_a_binding_passing_the_list_after_the_scalar_is_matched_by_kind(tmp_path: Path) -> None:
    """The binding's Python signature need not follow the OpDef (pybind.cpp reorders for aclnn): a
    list goes to the list input, the one-element tensor to the plain one."""
    task = style.scale_list_task(tmp_path)
    module = task / "validation" / "module.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace(
            "kernel_gen_ops.scale_list(tuple(tensors), factor)",
            "kernel_gen_ops.scale_list(factor, tuple(tensors))",
        ),
        encoding="utf-8",
    )
    op, draft = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    assert op.spec is not None and op.spec.oracle is not None
    assert op.spec.oracle.args == ["factor", "tensors"]
    assert op.spec.cases[0].shapes == {"factor": [1], "tensors": [[3, 40], [17], [2, 8, 16]]}
    assert any("matched by kind" in n for n in draft.notes)


def _verify(task: Path) -> tuple[int, dict[str, object]]:
    done = runner.invoke(app, ["verify", str(task / "answer" / "0"), "--json"])
    return done.exit_code, json.loads(done.stdout[done.stdout.index("{") :])


@pytest.mark.slow
@needs_torch
def test_a_list_in_list_out_task_verifies_as_it_sits(tmp_path: Path) -> None:
    code, ev = _verify(style.scale_list_task(tmp_path))
    assert code == 0, json.dumps(ev)[:3000]
    cases = ev["cases"]
    assert [c["status"] for c in cases] == ["passed"] * 3  # type: ignore[union-attr]
    # every tensor of the list is compared on its own
    assert [o["name"] for o in cases[0]["outputs"]] == ["out.0", "out.1", "out.2"]  # type: ignore[index]


@pytest.mark.slow
@needs_torch
def test_writing_past_one_list_tensor_into_the_next_is_caught(tmp_path: Path) -> None:
    """A kernel that takes the list's tensors for one contiguous buffer writes tensor i at the first
    one's address plus the elements before it: right on a machine that happened to allocate them so,
    out of bounds of `out.0` here, and `out.1` is never written."""
    code, ev = _verify(style.scale_list_task(tmp_path, out=style.OUT_CONTIGUOUS))
    assert code == 1
    first = ev["cases"][0]  # type: ignore[index]
    assert first["status"] == "failed"
    messages = [f["message"] for f in first["findings"] if f["severity"] == "error"]
    spills = [f for f in first["findings"] if f["kind"] == "gm_out_of_bounds" and f["severity"] == "error"]
    assert spills and all("out.0" in f["message"] for f in spills), messages
    wrong = {o["name"] for o in first["outputs"] if not o["passed"]}
    assert {"out.1", "out.2"} <= wrong, first["outputs"]
    # a one-tensor list has nothing to spill into: that case still passes
    assert ev["cases"][1]["status"] == "passed"  # type: ignore[index]


@pytest.mark.slow
@needs_torch
def test_reading_the_list_block_wrong_is_caught(tmp_path: Path) -> None:
    """Data pointers taken right after word 0 are the first tensor's shape words: the kernel's copies
    go to addresses inside no buffer, which the twin refuses and reports."""
    code, ev = _verify(style.scale_list_task(tmp_path, pointers=style.POINTERS_AFTER_HEADER))
    assert code == 1
    for case in ev["cases"]:  # type: ignore[union-attr]
        assert case["status"] == "failed"
        kinds = {f["kind"] for f in case["findings"] if f["severity"] == "error"}
        assert "gm_out_of_bounds" in kinds, case["findings"]
