"""In-place outputs, kernels with no output, optional inputs passed as None, and outputs the Model
gives no value for: derived from benchmark-task look-alikes (tests/operators/benchmark_task_style.py)
and run end to end on the twin (the slow ones)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.compare import expect, untouched_passes
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import Tolerance, parse_spec
from ascendopt.operators.spec_init import starting_spec
from ascendopt.operators.spec_schema import spec_json_schema
from ascendopt.operators.task import TaskSpecError
from tests.operators.benchmark_task_style import (
    ACCUM_ZERO_CASES,
    ACCUM_ZERO_PREPARE,
    SCALE_INPLACE_PYBIND,
    SCALE_MUTATING_MODULE,
    SCALE_WIDE_MODULE,
    accum_task,
    optional_task,
    scale_inplace_task,
    unchecked_output_task,
)
from tests.operators.cann_open_style import write_repo

runner = CliRunner()
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)

SPEC_HEAD = """\
schema_version = 1
name = "op"
[[inputs]]
name = "x"
dtypes = ["float32"]
[[inputs]]
name = "bias"
dtypes = ["float32"]
param_type = "optional"
"""


def _verify(answer: Path) -> dict[str, object]:
    done = runner.invoke(app, ["verify", str(answer), "--json"])
    assert done.stdout.count("{"), done.output
    return json.loads(done.stdout[done.stdout.index("{") :])  # type: ignore[no-any-return]


def test_the_spec_says_an_output_aliases_an_input(tmp_path: Path) -> None:
    text = SPEC_HEAD + (
        '[[outputs]]\nname = "x"\ndtypes = ["float32"]\nalias = "x"\n'
        '[[cases]]\nname = "a"\nshapes = { x = [8] }\nabsent = ["bias"]\n'
    )
    spec = parse_spec(text, tmp_path / "s.toml")
    case = spec.resolve_cases()[0]
    assert spec.outputs[0].alias == "x" and case.absent == ["bias"] and case.instances("bias") == []
    # an output named like an input that does not alias it, an alias of no input, a no-argument
    # output with no alias, a required input left out: refused, on their lines
    bad = {
        '[[outputs]]\nname = "x"\ndtypes = ["float32"]\n': "repeated: x",
        '[[outputs]]\nname = "y"\ndtypes = ["float32"]\nalias = "z"\n': "alias 'z' is no input",
        '[[outputs]]\nname = "y"\ndtypes = ["float32"]\nkernel_argument = false\n': "needs an alias",
    }
    for outputs, why in bad.items():
        with pytest.raises(SpecError, match=why):
            case = '[[cases]]\nname = "a"\nshapes = { x = [8], bias = [8] }\n'
            parse_spec(SPEC_HEAD + outputs + case, tmp_path / "s.toml")
    with pytest.raises(SpecError, match="only optional inputs") as err:
        parse_spec(
            SPEC_HEAD + '[[outputs]]\nname = "y"\ndtypes = ["float32"]\n'
            '[[cases]]\nname = "a"\nshapes = { bias = [8] }\nabsent = ["x"]\n',
            tmp_path / "s.toml",
        )
    assert err.value.issues[0].line == 16  # the `absent` line


@needs_torch
def test_an_output_named_like_its_input_is_derived_as_an_alias(tmp_path: Path) -> None:
    op, draft = asyncio.run(with_task_spec(load_operator(accum_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert [(t.name, t.alias, t.kernel_argument) for t in op.spec.outputs] == [("x", "x", True)]
    assert 'alias = "x"' in draft.text


@needs_torch
def test_no_output_maps_the_result_to_the_input_the_binding_returns(tmp_path: Path) -> None:
    op, draft = asyncio.run(with_task_spec(load_operator(scale_inplace_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert [(t.name, t.alias, t.kernel_argument) for t in op.spec.outputs] == [("x", "x", False)]
    assert any("writes into input x (the binding returns it" in n for n in draft.notes)


@needs_torch
def test_a_model_computing_wider_than_the_written_input_is_compared_widened(tmp_path: Path) -> None:
    """The Model returns float32 for the float16 buffer the binding returns: that input is still the
    output (its own dtype per case), said in the notes."""
    op, draft = asyncio.run(
        with_task_spec(load_operator(scale_inplace_task(tmp_path, SCALE_WIDE_MODULE) / "answer" / "0"))
    )
    assert op.spec is not None
    assert [(t.name, t.alias, t.kernel_argument) for t in op.spec.outputs] == [("x", "x", False)]
    assert [c.dtypes for c in op.spec.cases] == [{"x": "float32"}, {"x": "float16"}]
    assert any("x: the Model returns another float dtype; compared widened" in n for n in draft.notes)


@needs_torch
def test_another_dtype_alone_picks_no_input_the_binding_does_not_name(tmp_path: Path) -> None:
    """Hostile to the relaxation: with no `return x;` in pybind.cpp only an input of the result's shape
    AND dtype is taken; a wider result of some input's shape does not name it."""
    quiet = SCALE_INPLACE_PYBIND.replace("    return x;\n", "    return at::Tensor();\n")
    task = scale_inplace_task(tmp_path, SCALE_WIDE_MODULE, quiet)
    with pytest.raises(TaskSpecError, match=r"result for input x .* has not its shape and dtype"):
        asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))  # its float16 case
    # and a result of another shape stays refused for the input the binding names
    reshaped = SCALE_WIDE_MODULE.replace("* factor\n", "* factor).reshape(-1)\n")
    reshaped = reshaped.replace("return x.to(", "return (x.to(")
    with pytest.raises(TaskSpecError, match="has not its shape and dtype"):
        task = scale_inplace_task(tmp_path / "b", reshaped)
        asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))


@needs_torch
def test_a_model_that_writes_into_its_argument_and_returns_nothing_gives_that_argument(
    tmp_path: Path,
) -> None:
    task = scale_inplace_task(tmp_path, SCALE_MUTATING_MODULE)
    op, draft = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    assert op.spec is not None
    assert [(t.name, t.alias, t.kernel_argument) for t in op.spec.outputs] == [("x", "x", False)]
    assert any("returns nothing and writes into its argument(s) 0" in n for n in draft.notes)
    # hostile: a Model that returns nothing and writes nothing has no result to compare
    idle = scale_inplace_task(tmp_path / "b", SCALE_MUTATING_MODULE.replace("x.mul_(", "x.mul("))
    with pytest.raises(TaskSpecError, match="the Model returns 0 value"):
        asyncio.run(with_task_spec(load_operator(idle / "answer" / "0")))


@needs_torch
def test_none_for_an_optional_input_is_an_absent_input(tmp_path: Path) -> None:
    op, _ = asyncio.run(with_task_spec(load_operator(optional_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert op.spec.inputs[1].param_type == "optional"
    assert [c.absent for c in op.spec.cases] == [[], ["y"]]
    assert op.spec.cases[1].shapes == {"x": [2, 512]}


@needs_torch
def test_the_binding_order_is_read_from_pybind_exec_npu_cmd(tmp_path: Path) -> None:
    """ModelNew passes (other, x); pybind.cpp hands them to aclnn as (x, other): the OpDef's order."""
    op, _ = asyncio.run(
        with_task_spec(load_operator(optional_task(tmp_path, reordered=True) / "answer" / "0"))
    )
    assert op.spec is not None and op.spec.oracle is not None
    assert op.spec.oracle.args == ["y", "x"]
    assert [c.absent for c in op.spec.cases] == [[], ["y"]]


@needs_torch
def test_outputs_the_model_does_not_return_are_left_unchecked_and_said(tmp_path: Path) -> None:
    op, draft = asyncio.run(with_task_spec(load_operator(unchecked_output_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert op.spec.unchecked_outputs == ["w"] and op.spec.oracle is not None
    assert op.spec.oracle.outputs == ["z"]
    assert "check = false  # the task's Model returns no value for it: not compared" in draft.text


@pytest.mark.slow
@needs_torch
def test_an_in_place_output_verifies_on_one_buffer(tmp_path: Path) -> None:
    ev = _verify(accum_task(tmp_path) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev
    assert not [f for c in ev["cases"] for f in c["findings"] if f["kind"] == "input_written"]


@pytest.mark.slow
@needs_torch
def test_the_aliased_buffer_holds_the_input_when_the_kernel_starts(tmp_path: Path) -> None:
    """The kernel reads x through x_ref's address only: right only if both are one buffer holding x."""
    body = (
        "    GET_TILING_DATA(tilingData, tiling);\n"
        "    KernelAdd<DTYPE_X> op;\n"
        "    op.Init(x_ref, y, x_ref, tilingData.totalLength, tilingData.blockLength,\n"
        "            tilingData.tileLength);\n"
        "    op.Process();\n"
    )
    ev = _verify(accum_task(tmp_path, body) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev


@pytest.mark.slow
@needs_torch
def test_a_kernel_that_leaves_the_aliased_buffer_untouched_fails(tmp_path: Path) -> None:
    """Hostile: the result goes to a buffer of the kernel's own (the workspace) and x_ref keeps the
    input's values. The case's delta is random (never all zero), so untouched is wrong."""
    body = (
        "    GET_TILING_DATA(tilingData, tiling);\n"
        "    KernelAdd<DTYPE_X> op;\n"
        "    op.Init(x, y, AscendC::GetUserWorkspace(workspace), tilingData.totalLength,\n"
        "            tilingData.blockLength, tilingData.tileLength);\n"
        "    op.Process();\n"
    )
    ev = _verify(accum_task(tmp_path, body) / "answer" / "0")
    assert {c["status"] for c in ev["cases"]} == {"failed"}, ev
    assert all("wrong output(s): x" in c["message"] for c in ev["cases"])  # type: ignore[union-attr]
    untouched = "    (void)x; (void)y; (void)x_ref; (void)workspace; (void)tiling;\n"
    ev = _verify(accum_task(tmp_path / "b", untouched) / "answer" / "0")
    assert {c["status"] for c in ev["cases"]} == {"failed"}, ev


@pytest.mark.slow
@needs_torch
def test_a_kernel_with_no_output_is_checked_on_its_input(tmp_path: Path) -> None:
    ev = _verify(scale_inplace_task(tmp_path) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev


@pytest.mark.slow
@needs_torch
def test_a_widened_in_place_result_verifies_and_an_untouched_buffer_fails(tmp_path: Path) -> None:
    ev = _verify(scale_inplace_task(tmp_path, SCALE_WIDE_MODULE) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev
    # hostile: the kernel leaves x as it was; the comparison against the widened result catches it
    ev = _verify(scale_inplace_task(tmp_path / "b", SCALE_WIDE_MODULE, untouched=True) / "answer" / "0")
    assert {c["status"] for c in ev["cases"]} == {"failed"}, ev


@pytest.mark.slow
@needs_torch
def test_a_model_returning_nothing_is_compared_on_what_it_wrote(tmp_path: Path) -> None:
    ev = _verify(scale_inplace_task(tmp_path, SCALE_MUTATING_MODULE) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev
    # hostile: the kernel leaves x as it was; the Model's x after forward differs, so the case fails
    ev = _verify(scale_inplace_task(tmp_path / "b", SCALE_MUTATING_MODULE, untouched=True) / "answer" / "0")
    assert {c["status"] for c in ev["cases"]} == {"failed"}, ev


@pytest.mark.slow
@needs_torch
def test_an_absent_optional_input_is_a_null_address(tmp_path: Path) -> None:
    """Case 1 passes None: the kernel gets a null address (else it would add the wrong tensor) and
    the tiling's GetOptionalInput* agree (else it fails)."""
    ev = _verify(optional_task(tmp_path) / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev


@pytest.mark.slow
@needs_torch
@pytest.mark.parametrize("impl_op", [False, True], ids=["opdef", "impl_op_infershape"])
def test_an_unchecked_output_is_sized_by_infer_shape_and_said(tmp_path: Path, impl_op: bool) -> None:
    answer = unchecked_output_task(tmp_path, impl_op) / "answer" / "0"
    ev = _verify(answer)
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev
    assert ev["unchecked_outputs"] == ["w"]
    done = runner.invoke(app, ["verify", str(answer)])
    assert "not checked: w" in done.output


def test_init_spec_writes_the_alias_of_an_open_repo_ref_output(tmp_path: Path) -> None:
    """An open-repo OpDef whose output is named like its input (CANN's `Output("var")` of
    `Input("var")`): init-spec's draft says the alias, and the schema takes it (it refused the
    repeated name before)."""
    op_root = write_repo(tmp_path)
    opdef = op_root / "op_host" / "scale_norm_def.cpp"
    opdef.write_text(
        opdef.read_text(encoding="utf-8").replace('Output("y")', 'Output("x")'), encoding="utf-8"
    )
    draft = starting_spec(load_operator(op_root))
    spec = parse_spec(draft.text, tmp_path / "scale_norm.ascendopt.toml")
    assert [(t.name, t.alias) for t in spec.outputs] == [("x", "x"), ("inv", None)]
    assert spec_json_schema()["$defs"]["TensorSpec"]["properties"]["alias"]


def test_a_case_whose_expected_in_place_output_is_its_input_cannot_judge() -> None:
    """Expected x equal to x's own values: an untouched buffer would pass, so the case says it cannot
    judge (the comparison, not the kernel, is at fault); one element off and it judges again."""
    x = np.linspace(-1.0, 1.0, 64)
    tol = Tolerance(rtol=1e-3, atol=1e-3)
    checks = {"x": expect(x.copy(), "float32", tol)}
    assert "untouched would pass" in untouched_passes([("x", "x", "float32")], {"x": x}, checks)
    moved = x.copy()
    moved[5] += 0.5
    assert untouched_passes([("x", "x", "float32")], {"x": x}, {"x": expect(moved, "float32", tol)}) == ""


@pytest.mark.slow
@needs_torch
def test_verify_refuses_to_judge_a_case_an_untouched_buffer_passes(tmp_path: Path) -> None:
    """The hostile candidate leaves x_ref untouched; it would pass the case whose delta is zero. Beside
    a case that tells (random delta) that case is judged (and passes: x keeps its values, as it must)
    while the evaluation fails on the other; when every case is one an untouched buffer passes, each is
    an error for every kernel, and the evaluation is not correct."""
    untouched = "    (void)x; (void)y; (void)x_ref; (void)workspace; (void)tiling;\n"
    answer = accum_task(tmp_path / "a", untouched, ACCUM_ZERO_PREPARE, ACCUM_ZERO_CASES) / "answer" / "0"
    ev = _verify(answer)
    assert [c["status"] for c in ev["cases"]] == ["failed", "passed"], ev
    zero_only = ACCUM_ZERO_CASES.replace(";1.0\n", ";0.0\n")
    answer = accum_task(tmp_path / "b", untouched, ACCUM_ZERO_PREPARE, zero_only) / "answer" / "0"
    ev = _verify(answer)
    assert [c["status"] for c in ev["cases"]] == ["error", "error"], ev
    assert "a kernel that leaves the buffer untouched would pass" in ev["cases"][1]["message"]  # type: ignore[index]
