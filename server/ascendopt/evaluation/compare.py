"""Compare an output with the reference under the spec's tolerance."""

from __future__ import annotations

import numpy as np

from ascendopt.evaluation.records import OutputCheck
from ascendopt.evaluation.tensors import round_to
from ascendopt.operators.spec import Tolerance


def compare(name: str, dtype: str, actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> OutputCheck:
    """|actual − expected| ≤ atol + rtol·|expected| elementwise, expected rounded to the output dtype once."""
    exp = round_to(expected, dtype)
    act = np.asarray(actual, dtype=np.float64)
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
        both_nan = np.isnan(act) & np.isnan(exp)
        same_inf = np.isinf(act) & np.isinf(exp) & (np.sign(act) == np.sign(exp))
        diff = np.where(both_nan | same_inf, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(exp), np.finfo(np.float64).tiny)
        bad = diff > tol.atol + tol.rtol * np.abs(np.where(np.isfinite(exp), exp, 0.0))
    mismatches = int(bad.sum())
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
