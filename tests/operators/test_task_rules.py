"""Derivation rules for benchmark tasks whose answer has no spec (issue 28, round 9), each with a
look-alike written here (foreach_style.py, benchmark_task_style.py) and the candidate that would
defeat it: in-place lists (no OpDef output, the Model's tensors flattened and concatenated), several
inputs written in place, a bool tensor for a uint8 column, a one-element tensor for a number attr,
CANN's own aclnn front ends, outputs the binding returns only under a flag, and when an in-place case
that an untouched buffer passes is judged."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.compare import compare_expected, expect
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.evaluation.toolchain_evaluator import Prepared, _judged
from ascendopt.operators import aclnn_front_ends
from ascendopt.operators.aclnn_front_ends import FrontEnd
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import Tolerance, parse_spec
from ascendopt.operators.task import TaskSpecError, map_arguments, read_test_cases, task_of, task_spec_text
from tests.operators import foreach_style as lists
from tests.operators.benchmark_task_style import add_task, scale_task, unchecked_output_task

runner = CliRunner()
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)


def _verify(answer: Path) -> dict[str, object]:
    done = runner.invoke(app, ["verify", str(answer), "--json"])
    assert done.stdout.count("{"), done.output
    return json.loads(done.stdout[done.stdout.index("{") :])  # type: ignore[no-any-return]


def _tensor(shape: list[int], dtype: str = "float32", **more: object) -> dict[str, object]:
    return {"kind": "tensor", "dtype": dtype, "shape": shape, **more}


@needs_torch
def test_an_in_place_list_and_a_second_written_input_are_derived(tmp_path: Path) -> None:
    """No OpDef output: pybind.cpp's return is made of the list (pushed back in a range-for) and
    `seen`, so both are written in place; the Model returns the list flattened and concatenated (told
    from a case with several tensors: the first case's one 1-D tensor fits both ways)."""
    answer = lists.scale_list_inplace_task(tmp_path) / "answer" / "0"
    op, draft = asyncio.run(with_task_spec(load_operator(answer)))
    spec = op.spec
    assert spec is not None and spec.oracle is not None
    got = [(t.name, t.param_type, t.alias, t.kernel_argument) for t in spec.outputs]
    assert got == [("tensors", "dynamic", "tensors", False), ("seen", "required", "seen", False)]
    assert spec.oracle.outputs == ["tensors", "seen"] and spec.oracle.flattened == ["tensors"]
    assert any("flattened, concatenated" in n for n in draft.notes)


def test_flattened_names_a_list_output_in_place_of_a_list_input(tmp_path: Path) -> None:
    head = (
        'schema_version = 1\nname = "op"\n[oracle]\nmodule = "m.py"\nflattened = ["{flat}"]\n'
        '[[inputs]]\nname = "xs"\ndtypes = ["float32"]\nparam_type = "dynamic"\n'
        '[[inputs]]\nname = "s"\ndtypes = ["float32"]\n'
        '[[outputs]]\nname = "xs"\ndtypes = ["float32"]\nparam_type = "dynamic"\nalias = "xs"\n'
        "kernel_argument = false\n"
        '[[outputs]]\nname = "s"\ndtypes = ["float32"]\nalias = "{s_alias}"\nkernel_argument = false\n'
        '[[cases]]\nname = "c"\nshapes = {{ xs = [[4], [2, 3]], s = [1] }}\n'
    )
    spec = parse_spec(head.format(flat="xs", s_alias="s"), tmp_path / "a.toml")
    assert spec.outputs[0].alias == "xs"
    with pytest.raises(SpecError, match="no list output aliasing a list input"):
        parse_spec(head.format(flat="s", s_alias="s"), tmp_path / "b.toml")
    with pytest.raises(SpecError, match="a list output aliases a list input, a tensor a tensor"):
        one = head.format(flat="xs", s_alias="xs").replace(
            '[[outputs]]\nname = "s"', '[[outputs]]\nname = "t"'
        )
        parse_spec(one, tmp_path / "c.toml")  # a tensor output in place of a list input


@pytest.mark.slow
@needs_torch
def test_an_in_place_list_verifies_and_one_left_alone_fails(tmp_path: Path) -> None:
    """Each tensor of the list is its own buffer, compared after the run: the kernel that scales them
    where they lie verifies (the factor-1 case, whose tensors keep their values, runs and passes: the
    other cases tell); the one that leaves tensor 1 alone fails on tensor 1 wherever there is one."""
    ev = _verify(lists.scale_list_inplace_task(tmp_path / "a") / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed", "passed"], ev  # type: ignore[index]
    bad = _verify(lists.scale_list_inplace_task(tmp_path / "b", lists.SKIP) / "answer" / "0")
    cases = bad["cases"]
    assert [c["status"] for c in cases] == ["passed", "failed", "failed"], bad  # type: ignore[index]
    assert all(c["message"] == "wrong output(s): tensors.1" for c in cases[1:])  # type: ignore[index]


def _prepared(expected: float, untouched: dict[str, str]) -> Prepared:
    x = np.zeros(4)
    tol = Tolerance(rtol=1e-3, atol=1e-3)
    return Prepared(
        {"x": x}, {"x": x + expected}, "", {"x": expect(x + expected, "float32", tol)}, {}, untouched
    )


def test_a_case_an_untouched_buffer_passes_is_judged_when_another_case_tells() -> None:
    """A case whose in-place output keeps its input's values runs (it checks the kernel leaves it so)
    when another case of the evaluation tells an untouched buffer from a right kernel; when none does,
    every case is an error saying so (a kernel that does nothing would pass them all)."""
    parse = parse_spec(
        'schema_version = 1\nname = "op"\n[[inputs]]\nname = "x"\ndtypes = ["float32"]\n'
        '[[outputs]]\nname = "x"\ndtypes = ["float32"]\nalias = "x"\n'
        '[[cases]]\nname = "a"\nshapes = { x = [4] }\n[[cases]]\nname = "b"\nshapes = { x = [4] }\n',
        Path("op.toml"),
    )
    cases = parse.resolve_cases()
    why = {"x": "output(s) x expected equal to the input values they alias"}
    mixed = _judged({0: _prepared(0.0, why), 1: _prepared(1.0, {})}, cases)
    assert [p.error for p in mixed.values()] == ["", ""]
    alone = _judged({0: _prepared(0.0, why), 1: _prepared(0.0, why)}, cases)
    assert [p.expected is None for p in alone.values()] == [True, True]
    assert alone[0].error == "case a: " + why["x"]


def test_a_bool_tensor_takes_a_uint8_column_and_a_one_element_tensor_a_number_attr(tmp_path: Path) -> None:
    """The binding hands a bool tensor's bytes (0 or 1) to a uint8 input; pybind turns a one-element
    tensor into the double a number attr takes (its value, recorded per case). A tensor of two
    elements for the attr is still refused, as is a bool for an int8 column."""
    task = scale_task(tmp_path)
    host = task / "answer" / "0" / "op_host" / "muls_custom.cpp"
    host.write_text(
        host.read_text(encoding="utf-8").replace(
            "ge::DT_FLOAT16, ge::DT_FLOAT", "ge::DT_UINT8, ge::DT_FLOAT"
        ),
        encoding="utf-8",
    )
    op = load_operator(task / "answer" / "0")
    assert [t.dtypes for t in op.opdef.inputs] == [["DT_UINT8", "DT_FLOAT", "DT_BF16"]]  # type: ignore[union-attr]
    files = task_of(op.root)
    assert files is not None
    rows = [(line, {k: v for k, v in row.items()}) for line, row in read_test_cases(files.cases)]
    record = {
        "args": [_tensor([3, 256], "bool"), _tensor([1], value=0.25)],
        "outputs": [_tensor([3, 256], "uint8")],
    }
    draft = task_spec_text(op, files, rows, {"0": record, "1": "skipped"})  # type: ignore[arg-type]
    assert 'dtypes = { x = "uint8", y = "uint8" }' in draft.text
    assert "attrs = { scale = 0.25 }" in draft.text
    with pytest.raises(TaskSpecError, match="attr scale: the binding passes a tensor value"):
        map_arguments(op, {"args": [_tensor([3]), _tensor([2])], "outputs": [_tensor([3])]})
    host.write_text(host.read_text(encoding="utf-8").replace("DT_UINT8", "DT_INT8"), encoding="utf-8")
    op = load_operator(task / "answer" / "0")
    with pytest.raises(TaskSpecError, match="no OpDef dtype column takes x=bool"):
        task_spec_text(op, files, rows, {"0": record, "1": "skipped"})  # type: ignore[arg-type]


SWAPPED_PYBIND = """\
#include "pytorch_npu_helper.hpp"

at::Tensor add_api(at::Tensor first, at::Tensor second)
{
    at::Tensor out = torch::empty_like(first);
    EXEC_NPU_CMD(aclnnAddSwapped, first, second, out);
    return out;
}
"""


def test_a_cann_front_end_maps_its_parameters_to_the_op(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A binding calling CANN's own aclnn (not aclnn<Op>) hands its arguments on in that front end's
    order: a front end known to launch this op with (y, x) maps the binding's (first, second) so; one
    the table does not know keeps the aclnn order of the OpDef."""
    task = add_task(tmp_path)
    (task / "validation" / "pybind.cpp").write_text(SWAPPED_PYBIND, encoding="utf-8")
    op = load_operator(task / "answer" / "0")
    record = {"args": [_tensor([8]), _tensor([8])], "outputs": [_tensor([8])]}
    assert map_arguments(op, record).args == ["x", "y"]
    monkeypatch.setitem(aclnn_front_ends.FRONT_ENDS, "aclnnAddSwapped", FrontEnd("AddCustom", ("y", "x")))
    mapping = map_arguments(op, record)
    assert mapping.args == ["y", "x"]
    assert any("CANN's aclnnAddSwapped" in n for n in mapping.notes)
    # a front end of another op is not this one's
    monkeypatch.setitem(aclnn_front_ends.FRONT_ENDS, "aclnnAddSwapped", FrontEnd("OtherOp", ("y", "x")))
    assert map_arguments(op, record).args == ["x", "y"]


FLAG_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x, y, with_w):
        return [{expr}, torch.full_like(x, 7.0)]


class ModelNew(nn.Module):
    def forward(self, x, y, with_w):
        return kernel_gen_ops.add_api(x, y, with_w)
"""
FLAG_PREPARE = """\
import torch


def get_inputs(param, device=None):
    size = eval(param["size"])
    dtype = getattr(torch, param["dtype"])
    return torch.randn(size, dtype=dtype), torch.randn(size, dtype=dtype), False
"""
FLAG_PYBIND = """\
#include "pytorch_npu_helper.hpp"

std::vector<at::Tensor> add_api(at::Tensor x, at::Tensor y, bool with_w)
{
    at::Tensor z = torch::empty_like(x);
    at::Tensor w = torch::empty_like(x);
    EXEC_NPU_CMD(aclnnAddCustom, x, y, z, w);
    std::vector<at::Tensor> result = {z};
    if (with_w) {
        result.push_back(w);
    }
    return result;
}
"""


def _flag_task(root: Path, expr: str = "x + y") -> Path:
    task = unchecked_output_task(root)
    v = task / "validation"
    (v / "module.py").write_text(FLAG_MODULE.format(expr=expr), encoding="utf-8")
    (v / "prepare_inputs.py").write_text(FLAG_PREPARE, encoding="utf-8")
    (v / "pybind.cpp").write_text(FLAG_PYBIND, encoding="utf-8")
    (v / "test_cases.csv").write_text("case_id;size;dtype\n0;[4, 512];float16\n1;[2, 8, 96];float32\n")
    return task


@needs_torch
def test_an_output_returned_only_under_a_false_flag_is_left_unchecked(tmp_path: Path) -> None:
    """The Model returns z and w; the binding returns w only `if (with_w)`, false in every case: the
    benchmark never compares w, so neither does the spec (said in the notes)."""
    op, draft = asyncio.run(with_task_spec(load_operator(_flag_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None and op.spec.unchecked_outputs == ["w"]
    assert [t.name for t in op.spec.checked_outputs] == ["z"]
    assert any("only when its argument with_w is true" in n for n in draft.notes)


@pytest.mark.slow
@needs_torch
def test_an_unchecked_output_hides_no_wrong_checked_one(tmp_path: Path) -> None:
    """w is left unchecked (and unwritten: a warning at most); z is still compared: a Model whose z
    the kernel does not compute fails on z."""
    ev = _verify(_flag_task(tmp_path / "a") / "answer" / "0")
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"], ev  # type: ignore[index]
    assert ev["unchecked_outputs"] == ["w"]
    bad = _verify(_flag_task(tmp_path / "b", "x - y") / "answer" / "0")
    assert [c["message"] for c in bad["cases"]] == ["wrong output(s): z"] * 2, bad  # type: ignore[index]


PICK_MODULE = """\
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def forward(self, x, y, with_w):
        z = {expr}
        return [torch.full_like(x, 7.0), z] if with_w else [z]


class ModelNew(nn.Module):
    def forward(self, x, y, with_w):
        return kernel_gen_ops.add_api(x, y, with_w)
"""
PICK_PYBIND = FLAG_PYBIND.replace(
    "    std::vector<at::Tensor> result = {z};\n    if (with_w) {\n        result.push_back(w);\n    }\n",
    "    std::vector<at::Tensor> result;\n    if (with_w) {\n        result = {w, z};\n    } else {\n"
    "        result = {z};\n    }\n",
)


def _pick_task(root: Path, expr: str = "x + y") -> Path:
    """The binding returns `{w, z}` when its flag is true, else `{z}` (AddLayerNorm's additional_out
    style); the flag is the case's `with_w` column. The kernel writes z only."""
    task = _flag_task(root, expr)
    v = task / "validation"
    (v / "module.py").write_text(PICK_MODULE.format(expr=expr), encoding="utf-8")
    (v / "pybind.cpp").write_text(PICK_PYBIND, encoding="utf-8")
    prepare = FLAG_PREPARE.replace(", False\n", ', str(param["with_w"]) == "1"\n')
    (v / "prepare_inputs.py").write_text(prepare, encoding="utf-8")
    rows = "case_id;size;dtype;with_w\n0;[4, 512];float16;0\n1;[2, 8, 96];float32;1\n"
    (v / "test_cases.csv").write_text(rows, encoding="utf-8")
    return task


@needs_torch
def test_outputs_picked_by_a_flag_are_mapped_per_case(tmp_path: Path) -> None:
    """Case 1's Model values are w then z (the binding's `{w, z}`), case 0's z alone: each case says
    its own; taking the first value as z in every case (the old rule) compares z with w's 7s."""
    op, draft = asyncio.run(with_task_spec(load_operator(_pick_task(tmp_path) / "answer" / "0")))
    spec = op.spec
    assert spec is not None and spec.oracle is not None
    assert [c.outputs for c in spec.cases] == [["z"], ["w", "z"]]
    # case 0 does not return w, which the kernel writes all the same: sized by case 1's rule (x's shape)
    assert [c.output_shapes for c in spec.cases] == [{"w": [4, 512]}, {}]
    assert spec.unchecked_outputs == []
    cases = spec.resolve_cases()
    assert [[t.name for t in spec.checked_in(c)] for c in cases] == [["z"], ["z", "w"]]
    assert any("returns w, z when its argument with_w is true, else z" in n for n in draft.notes)


def test_a_case_names_only_outputs_of_the_spec(tmp_path: Path) -> None:
    text = (
        'schema_version = 1\nname = "op"\n[oracle]\nmodule = "m.py"\noutputs = ["z"]\n'
        '[[inputs]]\nname = "x"\ndtypes = ["float32"]\n[[outputs]]\nname = "z"\ndtypes = ["float32"]\n'
        '[[cases]]\nname = "c"\nshapes = {{ x = [4] }}\noutputs = ["{name}"]\n'
    )
    assert parse_spec(text.format(name="z"), tmp_path / "a.toml").cases[0].outputs == ["z"]
    with pytest.raises(SpecError, match="unknown output"):
        parse_spec(text.format(name="w"), tmp_path / "b.toml")
    with pytest.raises(SpecError, match="a dim <= 0: q"):
        parse_spec(text.format(name="z") + "output_shapes = { q = [2] }\n", tmp_path / "c.toml")


@pytest.mark.slow
@needs_torch
def test_a_flag_picked_output_is_compared_where_returned(tmp_path: Path) -> None:
    """Case 0 compares z alone and passes; case 1 compares w too, which the kernel leaves unwritten:
    it fails on w. A kernel with a wrong z fails both on z."""
    ev = _verify(_pick_task(tmp_path / "a") / "answer" / "0")
    got = [(c["status"], c.get("message")) for c in ev["cases"]]  # type: ignore[attr-defined]
    assert got[0][0] == "passed", ev
    assert got[1][0] == "failed" and str(got[1][1]).startswith("wrong output(s): w;"), ev
    bad = _verify(_pick_task(tmp_path / "b", "x - y") / "answer" / "0")
    assert [c["status"] for c in bad["cases"]] == ["failed", "failed"], bad  # type: ignore[index]
    assert all(str(c["message"]).startswith("wrong output(s): z") for c in bad["cases"]), bad  # type: ignore[index]


def test_a_benchmark_value_at_a_bf16_rounding_boundary_is_held_unrounded() -> None:
    """The Model's fp32 2.3828 lies between bf16 2.375 and 2.390625: the benchmark subtracts the kernel's
    bf16 from the fp32 value, so 2.390625 passes at 4e-3; two steps off (2.40625) still fails, and a
    spec's own reference (rounded) still holds the kernel to 2.375."""
    tol = Tolerance(rtol=4e-3, atol=4e-3)
    value = np.array([2.3828], dtype=np.float64)
    unrounded = expect(value, "bfloat16", tol, rounded=False)
    assert compare_expected("y", "bfloat16", np.array([2.390625]), unrounded).passed
    assert not compare_expected("y", "bfloat16", np.array([2.40625]), unrounded).passed
    assert not compare_expected("y", "bfloat16", np.array([2.390625]), expect(value, "bfloat16", tol)).passed


# The binding returns its second output alone and allocates the first with torch::empty (FlashAttention's
# binding: `return attention_out;`, softmax_max sized {batch, head_num, seq_len, 8}).
SECOND_RETURNED_PYBIND = """\
#include "pytorch_npu_helper.hpp"
at::Tensor custom_pybind_api(at::Tensor &left, at::Tensor &right)
{
    const int64_t rows = left.size(0);
    at::Tensor z = torch::empty({rows, 4}, left.options());
    at::Tensor w = torch::empty_like(left);
    EXEC_NPU_CMD(aclnnAddCustom, left, right, z, w);
    return w;
}
"""


@needs_torch
def test_the_output_the_binding_returns_is_compared_and_the_other_sized_as_allocated(tmp_path: Path) -> None:
    """Two OpDef outputs (z, w), a Model returning one value: the binding's `return w;` says which one
    is compared (not the first), and z, never compared, gets the shape the binding allocates for it."""
    task = unchecked_output_task(tmp_path)
    (task / "validation" / "pybind.cpp").write_text(SECOND_RETURNED_PYBIND, encoding="utf-8")
    op, draft = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    assert op.spec is not None
    assert [t.name for t in op.spec.checked_outputs] == ["w"] and op.spec.unchecked_outputs == ["z"]
    assert any("the binding returns the OpDef's output w" in n for n in draft.notes), draft.notes
    # case 3: left is [4, 512]; case 7: [2, 8, 96]
    sized = {c.name: c.output_shapes for c in op.spec.cases}
    assert sized["case3"] == {"z": [4, 4]} and sized["case7"] == {"z": [2, 4]}, sized
