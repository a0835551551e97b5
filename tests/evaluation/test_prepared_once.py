"""Work done once per episode (issue 27, point 2): the inputs, the reference's outputs and the
rounded expected values are computed once per (reference, spec, case, seed) and reused; the
comparison from them is the comparison from scratch, and an evaluation is the same either way."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from ascendopt.evaluation import toolchain_evaluator
from ascendopt.evaluation.compare import compare, compare_expected, expect
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.manifest import manifest_files
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.reference import load_reference
from ascendopt.evaluation.tensors import make_inputs, write_raw
from ascendopt.evaluation.toolchain import CaseJob
from ascendopt.operators.candidate import apply_knobs, baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.soc import resolve_soc
from ascendopt.operators.spec import Tolerance

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"


def _reference_compare(
    dtype: str, actual: np.ndarray, expected: np.ndarray, tol: Tolerance
) -> tuple[float, float, int]:
    """The comparison as it was before the expected values were prepared once (a copy)."""
    from ascendopt.evaluation.tensors import round_to

    exp = round_to(expected, dtype)
    act = np.asarray(actual, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(act - exp)
        both_nan = np.isnan(act) & np.isnan(exp)
        same_inf = np.isinf(act) & np.isinf(exp) & (np.sign(act) == np.sign(exp))
        diff = np.where(both_nan | same_inf, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(exp), np.finfo(np.float64).tiny)
        bad = diff > tol.atol + tol.rtol * np.abs(np.where(np.isfinite(exp), exp, 0.0))
    return float(diff.max()), float(rel.max()), int(bad.sum())


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16", "int32"])
def test_prepared_comparison_is_the_comparison(dtype: str) -> None:
    rng = np.random.default_rng(3)
    tol = Tolerance(rtol=1e-3, atol=1e-3, mismatch_fraction=0.01)
    specials = [np.nan, np.inf, -np.inf, 0.0, 1e30]
    for trial in range(40):
        exp = rng.normal(size=(7, 33)) * 10
        act = exp + rng.normal(size=exp.shape) * (1e-4 if trial % 2 else 1e-2)
        if trial % 3 == 0:  # NaN and infinities on either side, sometimes both
            for arr in (exp, act) if trial % 6 == 0 else (act,):
                idx = rng.integers(0, arr.size, size=5)
                arr.flat[idx] = rng.choice(specials, size=5)
        ready = expect(exp, dtype, tol)
        once = compare_expected("z", dtype, act, ready)
        again = compare_expected("z", dtype, act, ready)  # the prepared values are not changed by use
        scratch = compare("z", dtype, act, exp, tol)
        assert once.model_dump_json() == again.model_dump_json() == scratch.model_dump_json()  # NaN != NaN
        got = (once.max_abs_error, once.max_rel_error, once.mismatches)
        np.testing.assert_equal(got, _reference_compare(dtype, act, exp, tol))  # NaN equal to NaN


def _same(a: Evaluation, b: Evaluation) -> None:
    skip = {"wall_seconds", "run_seconds", "created"}

    def strip(e: Evaluation) -> dict:  # type: ignore[type-arg]
        d = e.model_dump(mode="json", exclude={k for k in skip if k in Evaluation.model_fields})
        for case in d.get("cases", []):
            for k in skip:
                case.pop(k, None)
        return d

    assert strip(a) == strip(b)


@pytest.mark.slow
async def test_an_evaluation_is_the_same_prepared_once_or_afresh() -> None:
    op = load_operator(TEMPLATES / "softmax_custom")
    assert op.spec is not None
    cases = op.spec.resolve_cases()
    base = baseline(op)
    knob = next(k for k in op.knobs if len(k.values) > 1)
    other = apply_knobs(op, base, {knob.name: next(v for v in knob.values if v != knob.current)})
    shared = CpuTwinEvaluator()
    calls = 0
    original = toolchain_evaluator._prepare_case

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    toolchain_evaluator._prepare_case = counting  # type: ignore[assignment]
    try:
        first = await shared.evaluate(op, base, cases, seed=5, profile=True)
        assert calls == len(cases)
        second = await shared.evaluate(op, other, cases, seed=5, profile=True)
        again = await shared.evaluate(op, base, cases, seed=5, profile=True)
        assert calls == len(cases)  # every case prepared once, for both candidates and the repeat
        await shared.evaluate(op, base, cases, seed=6)
        assert calls == 2 * len(cases)  # another seed: other inputs
    finally:
        toolchain_evaluator._prepare_case = original  # type: ignore[assignment]
    fresh = await CpuTwinEvaluator().evaluate(op, base, cases, seed=5, profile=True)
    fresh_other = await CpuTwinEvaluator().evaluate(op, other, cases, seed=5, profile=True)
    assert first.status == "ok" and first.correct, first.message
    assert all(c.profile is not None for c in first.cases)
    _same(first, fresh)
    _same(again, fresh)
    _same(second, fresh_other)


def test_inputs_are_encoded_once_as_their_files_would_hold_them(tmp_path: Path) -> None:
    op = load_operator(TEMPLATES / "layer_norm_custom")  # fp32, fp16 and bf16 cases
    assert op.spec is not None
    soc = resolve_soc(None, None, op.spec)
    reference = load_reference(op.spec_root, op.spec)
    dtypes = set()
    for case in op.spec.resolve_cases():
        prepared = toolchain_evaluator._prepare_case(reference, op.spec, case, 5)
        inputs = make_inputs(op.spec, case, 5)
        assert prepared.raw_inputs is not None and set(prepared.raw_inputs) == set(inputs)
        job = CaseJob(op, case, prepared.inputs, {}, "/w", "/s", False, soc, prepared.raw_inputs)
        files = manifest_files(job)
        assert files == manifest_files(dataclasses.replace(job, raw_inputs=None))  # encoded afresh: the same
        for name, values in inputs.items():
            write_raw(tmp_path / name, values, case.dtype_of(name))
            assert files[f"in_{name}.bin"] == (tmp_path / name).read_bytes()
            dtypes.add(case.dtype_of(name))
    assert {"float16", "float32", "bfloat16"} <= dtypes
