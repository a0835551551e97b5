"""A CANN aclnn front end that converts before it launches the op (issue 28, round 10: aclnnBatchNorm
before BatchNormV3): the input dtypes it launches with, the cases in which it launches another op, the
ranks it launches low-rank inputs at and its outputs' order. Rules on aclnn_front_ends.py's own table
and on a look-alike task (benchmark_task_style.py's add task) with a front end written here."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ascendopt.evaluation.oracle import OracleError, kernel_values
from ascendopt.operators import aclnn_front_ends
from ascendopt.operators.aclnn_front_ends import FRONT_ENDS, FrontEnd
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.task import read_test_cases, task_of, task_spec_text
from tests.operators.benchmark_task_style import add_task

BN = FRONT_ENDS["aclnnBatchNorm"]


@pytest.mark.parametrize(
    ("seen", "launched"),
    [
        # weight and bias in x's dtype stay so; running statistics go to float32
        (
            {"x": "float16", "weight": "float16", "bias": "float16", "running_mean": "float16"},
            {"x": "float16", "weight": "float16", "bias": "float16", "running_mean": "float32"},
        ),
        # half weights for a float32 x promote to half, not x's dtype: float32
        (
            {"x": "float32", "weight": "float16", "bias": "float16"},
            {"x": "float32", "weight": "float32", "bias": "float32"},
        ),
        # half with bfloat16 promotes to float32, which is not bf16 x's dtype
        (
            {"x": "bfloat16", "weight": "float16", "bias": "bfloat16"},
            {"x": "bfloat16", "weight": "float32", "bias": "float32"},
        ),
    ],
)
def test_batch_norm_launches_with_the_dtypes_it_casts_to(
    seen: dict[str, str], launched: dict[str, str]
) -> None:
    assert BN.launched_dtypes is not None and BN.launched_dtypes(seen) == launched


def test_batch_norm_launches_batch_norm_v3_only_when_training_with_64_channels() -> None:
    assert BN.other_op is not None
    assert BN.other_op({"x": [8, 64, 4, 4]}, {"is_training": True}) == ""
    assert "BNInfer" in BN.other_op({"x": [8, 64, 4, 4]}, {"is_training": False})
    assert "BNTrainingUpdate for 63 channels" in BN.other_op({"x": [8, 63, 4, 4]}, {"is_training": True})


def _draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, front: FrontEnd) -> str:
    task = add_task(tmp_path)
    (task / "validation" / "pybind.cpp").write_text(
        '#include "pytorch_npu_helper.hpp"\n\nat::Tensor add_api(at::Tensor first, at::Tensor second)\n{\n'
        "    at::Tensor out = torch::empty_like(first);\n"
        "    EXEC_NPU_CMD(aclnnAddCast, first, second, out);\n"
        "    return out;\n}\n",
        encoding="utf-8",
    )
    monkeypatch.setitem(aclnn_front_ends.FRONT_ENDS, "aclnnAddCast", front)
    op = load_operator(task / "answer" / "0")
    files = task_of(op.root)
    assert files is not None
    rows = [(line, dict(row)) for line, row in read_test_cases(files.cases)]
    half = {"kind": "tensor", "dtype": "float16", "shape": [4, 512]}
    single = {"kind": "tensor", "dtype": "float32", "shape": [2, 8, 96]}
    got = {
        "3": {"args": [half, half], "outputs": [half]},
        "7": {"args": [single, single], "outputs": [single]},
    }
    return task_spec_text(op, files, rows, got).text  # type: ignore[arg-type]


def test_a_case_is_written_as_the_front_end_launches_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # half y is launched as float32: the add's columns pair x and y in one dtype, so the half case has none
    front = FrontEnd(
        "AddCustom",
        ("x", "y"),
        launched_dtypes=lambda seen: {**seen, "y": "float32"} if seen.get("y") == "float16" else dict(seen),
        min_rank={"x": 4},
    )
    text = _draft(tmp_path, monkeypatch, front)
    assert "# left out: case3" in text and "no OpDef dtype column takes x=float16, y=float32" in text
    # the float32 case keeps its dtypes; x is launched at rank 4, y as it is
    assert 'dtypes = { x = "float32", y = "float32", z = "float32" }' in text
    assert "shapes = { x = [2, 8, 96, 1], y = [2, 8, 96] }" in text


def test_a_case_the_front_end_gives_another_op_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = FrontEnd(
        "AddCustom", ("x", "y"), other_op=lambda shapes, attrs: "OtherAdd" * (shapes["x"][0] == 2)
    )
    text = _draft(tmp_path, monkeypatch, front)
    assert "# left out: case7 (test_cases.csv:3): OtherAdd" in text
    assert 'name = "case3"' in text.replace("# name", "")


def test_the_oracle_takes_a_low_rank_value_for_its_trailing_ones_shape_only() -> None:
    """kernel_values' shape rule: a [2, 3] value fills a [2, 3, 1, 1] input (the same elements in the same
    order); a [3, 2] value does not, nor a [2, 3] one a [2, 1, 3] input."""
    spec = SimpleNamespace(
        oracle=SimpleNamespace(kind="kernelbench", args=["x"]), inputs=[SimpleNamespace(name="x")]
    )
    got = SimpleNamespace(
        record={"args": [{"kind": "tensor", "dtype": "float32", "shape": [2, 3]}], "outputs": None},
        arrays={"args.0": np.arange(6, dtype=np.float32).reshape(2, 3)},
    )
    for shape, fits in (([2, 3, 1, 1], True), ([3, 2], False), ([2, 1, 3], False)):
        case = SimpleNamespace(
            absent=[],
            outputs=None,
            input_shapes={"x": shape},
            dtype_of=lambda name: "float32",
            instances=lambda name: [name],
        )
        # past the inputs (they fit), the Model's missing results stop it
        with pytest.raises(OracleError, match="returned nothing" if fits else "get_inputs gave shape"):
            kernel_values(spec, case, got)  # type: ignore[arg-type]
