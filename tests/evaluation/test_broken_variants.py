"""Deliberately broken variants of the templates: each must be caught, with the right diagnostic on
the right line. The correct templates must produce no finding (test_templates_verify.py)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator

pytestmark = pytest.mark.slow

KERNEL = "op_kernel/add_custom.cpp"


@dataclass
class Variant:
    id: str
    old: str  # text in the template, replaced once
    new: str  # the broken text; `marker` names the line the diagnostic must point at
    kind: str | None  # expected finding kind, or None when only a wrong output is expected
    marker: str | None = None
    case: str = "small-tail"
    # A V->S hazard is a warning: CANN's default --cce-auto-sync inserts S<->V syncs (runtime/README.md).
    severity: str = "error"
    template: str = "add_custom"
    file: str = KERNEL


VARIANTS = [
    Variant(
        "tail-off-by-one",
        "? length - i * tileLength : tileLength;",
        "? length - i * tileLength - 1 : tileLength;",
        None,
    ),
    Variant(
        "last-tile-ignored",
        "for (uint32_t i = 0; i < tileCount; i++) {",
        "for (uint32_t i = 0; i + 1 < tileCount; i++) {",
        None,
        case="large",
    ),
    Variant(
        "reduction-ignores-last-chunk",
        "for (uint32_t c = 0; c < chunks; c++) {",
        "for (uint32_t c = 0; c + 1 < chunks; c++) {",
        None,
        case="split-row-fp32",
        template="reduce_sum_custom",
        file="op_kernel/reduce_sum_custom.cpp",
    ),
    Variant(
        "missing-enque",
        "        inQueueX.EnQue(xLocal);\n",
        "",
        "deque_empty",
        marker="AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();",
    ),
    Variant(
        "ub-overflow",
        "pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));",
        "pipe.InitBuffer(outQueueZ, BUFFER_NUM, 64 * tileLength * sizeof(T));  // BUG",
        "ub_overflow",
        marker="// BUG",
        # The second slot lies past the UB's end; only a case of several tiles touches it (on the NPU a buffer
        # nobody touches there does no harm: InitBuffer checks the size only in CANN's CPU-debug build).
        case="large",
    ),
    Variant(
        "misaligned-copy",
        "AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);",
        "AscendC::DataCopy(xLocal, xGm[progress * tileLength], count);  // BUG",
        "misaligned_copy",
        marker="// BUG",
    ),
    Variant(
        "misaligned-ub-address",
        "AscendC::DataCopyPad(yLocal, yGm[progress * tileLength], params, pad);",
        "AscendC::DataCopy(yLocal[3], yGm[progress * tileLength], 16);  // BUG",
        "misaligned_copy",
        marker="// BUG",
    ),
    Variant(
        "gm-write-out-of-bounds",
        "AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, params);",
        "AscendC::DataCopyPad(zGm[progress * tileLength + 16], zLocal, params);  // BUG",
        "gm_out_of_bounds",
        marker="// BUG",
    ),
    Variant(
        "local-out-of-range",
        "AscendC::Add(zLocal, xLocal, yLocal, count);",
        "AscendC::Add(zLocal, xLocal, yLocal, tileLength + 64);  // BUG",
        "local_out_of_bounds",
        marker="// BUG",
    ),
    Variant(
        "wrong-cast-rounding",
        "AscendC::Cast(zLocal, zf, AscendC::RoundMode::CAST_RINT, count);",
        "AscendC::Cast(zLocal, zf, AscendC::RoundMode::CAST_TRUNC, count);",
        None,
        case="bf16",
    ),
    # Odd blocks write their results 16 elements on, over the next block's first 16, with other values.
    # (Writing 16 elements past the block's range with the values the neighbour computes there too would
    # store identical bytes: no race on the NPU, and the twin says none.)
    Variant(
        "race-between-blocks",
        "zGm.SetGlobalBuffer((__gm__ T *)z + offset, this->length);",
        "zGm.SetGlobalBuffer((__gm__ T *)z + offset + 16 * (AscendC::GetBlockIdx() % 2), this->length);",
        "cross_block_write_race",
        marker="AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, params);",
        case="large",
    ),
    Variant(
        "scalar-read-without-v-s-sync",
        "            AscendC::Add(zLocal, xLocal, yLocal, count);\n",
        "            AscendC::Add(zLocal, xLocal, yLocal, count);\n"
        "            T first = zLocal.GetValue(0);  // BUG\n"
        "            zLocal.SetValue(0, first);\n",
        "pipe_hazard",
        marker="// BUG",
        severity="warning",
    ),
    Variant(
        "double-free",
        "        inQueueY.FreeTensor(yLocal);\n",
        "        inQueueY.FreeTensor(yLocal);\n        inQueueY.FreeTensor(yLocal);  // BUG\n",
        "double_free",
        marker="// BUG",
    ),
    Variant(
        "alloc-beyond-depth",
        "        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();\n",
        "        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();\n"
        "        AscendC::LocalTensor<T> leak = inQueueY.AllocTensor<T>();  // BUG\n",
        "alloc_beyond_depth",
        marker="// BUG",
        case="large",  # needs more tiles than the queue depth
    ),
]


def _line_of(text: str, marker: str) -> int:
    for n, line in enumerate(text.splitlines(), start=1):
        if marker in line:
            return n
    raise AssertionError(f"marker {marker!r} not in file")


async def _run_variant(tmp_path: Path, templates: Path, v: Variant) -> tuple[Evaluation, str]:
    root = tmp_path / v.template
    shutil.copytree(templates / v.template, root)
    path = root / v.file
    text = path.read_text()
    assert text.count(v.old) == 1, f"{v.id}: the template changed; {v.old!r} not found once"
    broken = text.replace(v.old, v.new)
    path.write_text(broken)
    op = load_operator(root)
    return await verify(CpuTwinEvaluator(), op, case=v.case), broken


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
async def test_broken_variant_is_caught(tmp_path: Path, templates: Path, variant: Variant) -> None:
    evaluation, broken = await _run_variant(tmp_path, templates, variant)
    assert evaluation.status == "ok", evaluation.compile_errors or evaluation.message
    if variant.severity == "error":
        assert not evaluation.correct, f"{variant.id} was not caught"
    if variant.kind is None:
        [case] = evaluation.cases
        assert any(not o.passed for o in case.outputs), case
        return
    kinds = {(f.kind, f.severity, f.file, f.line) for f in evaluation.findings()}
    expected_line = _line_of(broken, variant.marker or variant.new.strip().splitlines()[0])
    assert (variant.kind, variant.severity, variant.file, expected_line) in kinds, sorted(kinds, key=str)


async def test_a_reference_of_the_wrong_shape_is_named_against_infer_shape(
    tmp_path: Path, templates: Path
) -> None:
    # The twin sizes outputs by what the reference returns; a kernel then writing the InferShape size
    # runs out of bounds. The warning must say which shape came from where, or the user chases the kernel.
    root = tmp_path / "add_custom"
    shutil.copytree(templates / "add_custom", root)
    (root / "reference.py").write_text("def add_custom(x, y):\n    return x[:3] + y[:3]\n")
    evaluation = await verify(CpuTwinEvaluator(), load_operator(root), case="bf16")
    [mismatch] = {f.message for f in evaluation.findings() if f.kind == "infer_shape_mismatch"}
    assert "gives output z the shape [8, 2048], the reference returned [3, 2048]" in mismatch
