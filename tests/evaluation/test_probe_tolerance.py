"""A benchmark task whose `custom_check_precision` computes its own mask (37 of NPUKernelBench's do,
rtol·max(1, |expected|) per dtype) never calls the harness's `check_precision`, so it asked the oracle
for nothing and the spec fell back to 1e-3: looser than such a check on float32, stricter on float16.
The oracle now asks the check itself which errors it lets pass, and the spec compares as it does."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ascendopt.evaluation.compare import compare_expected, expect
from ascendopt.operators.spec import Tolerance

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

# A look-alike of the benchmark's own masks: a relative bound per dtype, floored at 1 in magnitude.
MASK_CHECK = """
import torch

def custom_check_precision(param, outputs, outputs_new):
    rtol = {"float16": 1 / 200, "bfloat16": 1 / 100}.get(param.get("dtype"), 1 / 4000)
    a, b = outputs.to(torch.float32), outputs_new.to(torch.float32)
    diff = torch.abs(a - b)
    bad = diff > rtol * torch.maximum(torch.tensor(1.0), torch.abs(a))
    return (0 if torch.any(bad) else 1), diff, diff / (torch.abs(a) + 1e-7)
"""


def _check(source: str) -> object:
    space: dict[str, object] = {}
    exec(source, space)
    return space["custom_check_precision"]


@needs_torch
@pytest.mark.parametrize(
    ("dtype", "rtol"), [("float16", 1 / 200), ("bfloat16", 1 / 100), ("float32", 1 / 4000)]
)
def test_a_mask_check_is_measured_as_the_larger_of_its_two_terms(dtype: str, rtol: float) -> None:
    import torch

    from ascendopt.evaluation.oracle_driver import probe_tolerance

    got = probe_tolerance(_check(MASK_CHECK), {"dtype": dtype}, torch.zeros(8, dtype=getattr(torch, dtype)))
    assert got is not None and got["combine"] == "max"
    assert got["atol"] == pytest.approx(rtol, rel=2e-3) and got["rtol"] == pytest.approx(rtol, rel=2e-3)


@needs_torch
def test_an_allclose_check_is_measured_as_a_sum() -> None:
    import torch

    from ascendopt.evaluation.oracle_driver import probe_tolerance

    allclose = (
        "import torch\ndef custom_check_precision(p, a, b):\n"
        "    return torch.allclose(b, a, rtol=1e-2, atol=1e-3)\n"
    )
    got = probe_tolerance(_check(allclose), {}, torch.zeros(4))
    assert got is not None and got["combine"] == "sum"
    assert got["atol"] == pytest.approx(1e-3, rel=1e-3) and got["rtol"] == pytest.approx(1e-2, rel=1e-3)


@needs_torch
@pytest.mark.parametrize(
    "body",
    [
        "return True",  # refuses no error: no tolerance from it (the spec's own stands)
        "return False",  # refuses an exact result
        "raise RuntimeError('wants NPU tensors')",
        "return float(b.sum()) / 0.0 > 1",  # raises on the probe's tensors
    ],
)
def test_a_check_that_cannot_be_measured_gives_no_tolerance(body: str) -> None:
    import torch

    from ascendopt.evaluation.oracle_driver import probe_tolerance

    check = _check(f"def custom_check_precision(p, a, b):\n    {body}\n")
    assert probe_tolerance(check, {}, torch.zeros(4)) is None
    assert probe_tolerance(_check(MASK_CHECK), {}, torch.zeros(4, dtype=torch.int32)) is None  # not a float


def test_the_larger_term_allows_less_than_the_sum() -> None:
    """Hostile: an error the benchmark's mask refuses (over rtol·max(1, |x|)) but atol + rtol·|x| would
    let through fails under `max`; one inside the mask passes."""
    tol = Tolerance(rtol=0.01, atol=0.01, combine="max")
    expected = np.array([0.5, 4.0])
    inside = expected + np.array([0.0099, 0.0399])
    between = expected + np.array([0.0140, 0.0])  # under 0.01 + 0.01·0.5, over max(0.01, 0.005)
    check = expect(expected, "float32", tol, rounded=False)
    assert compare_expected("z", "float32", inside, check).passed
    assert not compare_expected("z", "float32", between, check).passed
    summed = expect(expected, "float32", tol.model_copy(update={"combine": "sum"}), rounded=False)
    assert compare_expected("z", "float32", between, summed).passed


@needs_torch
def test_a_task_with_a_mask_check_derives_its_tolerances(tmp_path: Path) -> None:
    from ascendopt.evaluation.task_spec import with_task_spec
    from ascendopt.operators.discovery import load_operator
    from tests.operators.benchmark_task_style import ADD_CASES, ADD_MODULE, ADD_PREPARE, make_task

    prepare = ADD_PREPARE + MASK_CHECK
    task = make_task(tmp_path, "add_custom", ADD_MODULE.format(expr="left + right"), prepare, ADD_CASES)
    op, draft = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    assert op.spec is not None
    f16, f32 = op.spec.tolerance("float16"), op.spec.tolerance("float32")
    assert (f16.combine, f32.combine) == ("max", "max")
    assert f16.rtol == pytest.approx(1 / 200, rel=2e-3) and f32.atol == pytest.approx(1 / 4000, rel=2e-3)
    assert "tolerances from prepare_inputs.py's custom_check_precision" in " ".join(draft.notes)


def test_a_large_result_is_probed_on_a_tensor_of_its_rank_cut_down() -> None:
    from ascendopt.evaluation.oracle_driver import PROBE_ELEMENTS, probe_shape

    assert probe_shape([8, 16]) == [8, 16]  # a small result: its own shape
    big = probe_shape([64, 1152, 1433])  # GroupedMatmulSliceKPerTokenDequant's case 5, 105.6 M elements
    assert len(big) == 3 and 0 < np.prod(big) <= PROBE_ELEMENTS
    assert all(0 < b <= s for b, s in zip(big, [64, 1152, 1433], strict=True))


@needs_torch
def test_a_mask_check_on_a_huge_result_is_asked_on_small_tensors_and_gives_the_same_tolerance() -> None:
    import torch

    from ascendopt.evaluation.oracle_driver import PROBE_ELEMENTS, probe_tolerance

    seen: list[tuple[int, ...]] = []
    mask = _check(MASK_CHECK)

    def check(param: object, expected: object, got: object) -> object:
        seen.append(tuple(expected.shape))  # type: ignore[attr-defined]
        return mask(param, expected, got)  # type: ignore[operator]

    huge = torch.empty((64, 1152, 1433), device="meta")  # its shape only: no 420 MB allocated
    got = probe_tolerance(check, {"dtype": "float16"}, huge)
    small = probe_tolerance(mask, {"dtype": "float16"}, torch.zeros(8))
    assert got == small and got is not None and got["combine"] == "max"
    assert seen and all(len(s) == 3 and np.prod(s) <= PROBE_ELEMENTS for s in seen)
