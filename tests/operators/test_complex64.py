"""complex64 (issue 28): a dtype of the one table, stored as (real, imaginary) float32 pairs, made
seeded in the spec's range per part, and compared part by part under the tolerance: a result whose
real parts are right and imaginary parts wrong fails. Look-alike: benchmark_task_style.complex_add_task."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.compare import compare
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.evaluation.tensors import decode_raw, encode_raw, make_input
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.spec import OperatorSpec, Tolerance
from tests.operators.benchmark_task_style import complex_add_task

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)
TOL = Tolerance(rtol=1e-3, atol=1e-3)


def test_complex_values_travel_as_float_pairs_and_each_part_is_compared() -> None:
    v = np.array([[1 + 2j, -3.5 + 0.25j]], dtype=np.complex64)
    raw = encode_raw(v, "complex64")
    assert np.frombuffer(raw, "<f4").tolist() == [1.0, 2.0, -3.5, 0.25]
    assert np.array_equal(decode_raw(raw, "complex64", [1, 2]), v)
    assert compare("y", "complex64", v, v.astype(np.complex128), TOL).passed
    # Real parts right, one imaginary part off: a failure, and it says which part (last index 1).
    bad = compare("y", "complex64", v.conj(), v.astype(np.complex128), TOL)
    assert not bad.passed and bad.mismatches == 2 and bad.first_bad_index == [0, 0, 1]
    # Within the tolerance on each part passes even where |z| differs by more than atol alone.
    near = v + np.complex64(5e-4 + 5e-4j)
    assert compare("y", "complex64", near, v.astype(np.complex128), TOL).passed


def test_complex_inputs_are_seeded_in_the_range_on_both_parts() -> None:
    spec = OperatorSpec.model_validate(
        {
            "name": "c",
            "reference": "reference.py:reference",
            "inputs": [{"name": "x", "dtypes": ["complex64"], "range": [2.0, 3.0]}],
            "outputs": [{"name": "y", "dtypes": ["complex64"]}],
            "cases": [{"name": "c0", "shapes": {"x": [64]}}],
        }
    )
    case = spec.resolve_cases()[0]
    a, b = make_input(spec.inputs[0], case, 7), make_input(spec.inputs[0], case, 7)
    assert np.array_equal(a, b) and np.iscomplexobj(a)
    assert (a.real >= 2).all() and (a.real <= 3).all() and (a.imag >= 2).all() and (a.imag <= 3).all()
    assert not np.array_equal(a, make_input(spec.inputs[0], case, 8))


@needs_torch
def test_a_complex_task_derives_a_complex_spec(tmp_path: Path) -> None:
    op, _ = asyncio.run(with_task_spec(load_operator(complex_add_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert [c.name for c in op.spec.cases] == ["case0", "case1"]
    assert {t.name: t.dtypes for t in (*op.spec.inputs, *op.spec.outputs)} == {
        "x": ["complex64"],
        "y": ["complex64"],
        "z": ["complex64"],
    }


@pytest.mark.slow
@needs_torch
@pytest.mark.parametrize(
    ("expr", "code", "status"), [("left + right", 0, "passed"), ("left + right.conj()", 1, "failed")]
)
def test_verify_a_complex_task_against_its_model(tmp_path: Path, expr: str, code: int, status: str) -> None:
    # The conjugating Model keeps every real part: only the imaginary parts' comparison can fail it.
    done = CliRunner().invoke(
        app, ["verify", str(complex_add_task(tmp_path, expr) / "answer" / "0"), "--json"]
    )
    assert done.exit_code == code, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert [c["status"] for c in ev["cases"]] == [status, status]
