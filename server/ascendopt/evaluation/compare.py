"""Compare an output with the reference under the spec's tolerance.

What depends on the expected values alone (rounded to the output dtype, the bound each element is
held to, the divisor of the relative error) is computed once (`expect`) and reused by every
candidate's comparison of that case (`compare_expected`); `compare` does both, with the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ascendopt.evaluation.records import OutputCheck
from ascendopt.evaluation.tensors import real_parts, round_to
from ascendopt.operators.spec import Tolerance


@dataclass(frozen=True)
class Expected:
    """One output's expected values as every comparison of them needs them (read only)."""

    values: np.ndarray  # rounded to the output dtype, float64 (complex: real_parts, a last axis of 2)
    tol: Tolerance
    finite: bool  # every expected value is finite: the comparison's fast path may apply
    limit: np.ndarray  # atol + rtol·|expected| (non-finite expected values count as 0)
    divisor: np.ndarray  # max(|expected|, tiny): the relative error's denominator


# Float dtypes a benchmark task's check compares in the Model's own precision (below).
_FLOATS = ("float16", "bfloat16", "float32")


def expect(expected: np.ndarray, dtype: str, tol: Tolerance, rounded: bool = True) -> Expected:
    """`rounded = False`: a float output is held to the expected values as given, not rounded to its
    dtype first: a benchmark task's check subtracts the kernel's fp16/bf16 result from the Model's
    fp32 one (torch promotes), so a result one step off beside a rounding boundary passes there."""
    exp = round_to(expected, dtype) if rounded or dtype not in _FLOATS else real_parts(expected)
    exp.setflags(write=False)
    absolute = np.abs(exp)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = tol.rtol * np.abs(np.where(np.isfinite(exp), exp, 0.0))
        limit = np.maximum(tol.atol, scaled) if tol.combine == "max" else tol.atol + scaled
    divisor = np.maximum(absolute, np.finfo(np.float64).tiny)
    for a in (limit, divisor):
        a.setflags(write=False)
    return Expected(exp, tol, bool(np.isfinite(exp).all()), limit, divisor)


def untouched_passes(
    outputs: Sequence[tuple[str, str, str]], inputs: dict[str, np.ndarray], checks: dict[str, Expected]
) -> str:
    """Why a case cannot judge in-place outputs, or "": each one's input values already pass as its
    expected values, so a kernel that leaves the buffers untouched would pass. `outputs`: (output,
    the input it aliases, dtype), e.g. a list output's tensors."""
    same = [
        out
        for out, source, dtype in outputs
        if source in inputs and compare_expected(out, dtype, inputs[source], checks[out]).passed
    ]
    if not same or len(same) < len(outputs):
        return ""
    return (
        f"output(s) {', '.join(same)} expected equal to the input values they alias: a kernel that leaves "
        "the buffer untouched would pass, so this case cannot judge it (give the case other values)"
    )


def compare(name: str, dtype: str, actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> OutputCheck:
    """|actual − expected| ≤ atol + rtol·|expected| elementwise, expected rounded to the output dtype once;
    a complex output's real and imaginary parts each so."""
    return compare_expected(name, dtype, actual, expect(expected, dtype, tol))


def compare_expected(name: str, dtype: str, actual: np.ndarray, expected: Expected) -> OutputCheck:
    exp, tol = expected.values, expected.tol
    act = real_parts(actual)
    if act.shape != exp.shape:
        return OutputCheck(
            name=name,
            dtype=dtype,
            shape=list(act.shape),
            passed=False,
            max_abs_error=float("inf"),
            max_rel_error=float("inf"),
            mismatches=int(exp.size),
            mismatch_fraction=1.0,
            rtol=tol.rtol,
            atol=tol.atol,
        )
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(act - exp)
        if not (expected.finite and np.isfinite(diff).all()):
            # NaN or infinities somewhere: both NaN, or the same infinity, is a match; NaN elsewhere
            # is an infinite error. (All finite, none of this changes a value: skipped.)
            both_nan = np.isnan(act) & np.isnan(exp)
            same_inf = np.isinf(act) & np.isinf(exp) & (np.sign(act) == np.sign(exp))
            diff = np.where(both_nan | same_inf, 0.0, diff)
            diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / expected.divisor
        bad = diff > expected.limit
    mismatches = int(np.count_nonzero(bad))
    fraction = mismatches / exp.size if exp.size else 0.0
    first = None
    e_at = a_at = None
    if mismatches:
        flat = int(np.flatnonzero(bad)[0])
        first = [int(i) for i in np.unravel_index(flat, exp.shape)]
        e_at, a_at = float(exp.flat[flat]), float(act.flat[flat])
    return OutputCheck(
        name=name,
        dtype=dtype,
        shape=list(exp.shape),
        passed=fraction <= tol.mismatch_fraction if mismatches else True,
        max_abs_error=float(diff.max()) if diff.size else 0.0,
        max_rel_error=float(rel.max()) if rel.size else 0.0,
        mismatches=mismatches,
        mismatch_fraction=fraction,
        first_bad_index=first,
        expected_at_first_bad=e_at,
        actual_at_first_bad=a_at,
        rtol=tol.rtol,
        atol=tol.atol,
    )
