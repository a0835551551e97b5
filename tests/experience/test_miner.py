from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.agent.lessons import diagnosis_of
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.experience.bank import Bank
from ascendopt.experience.io import import_file
from ascendopt.experience.miner import RewindMiner
from ascendopt.operators.discovery import load_operator
from ascendopt.resources import templates_dir

pytestmark = pytest.mark.slow


async def test_rewinding_add_custom_yields_measured_lessons(add_op: Path) -> None:
    spec = add_op / "ascendopt.toml"  # a big case still under the mining cap (1 Mi elements)
    spec.write_text(spec.read_text().replace("[512, 4096]", "[256, 4096]"))
    report = await RewindMiner(CpuTwinEvaluator(), budget=20).mine(load_operator(add_op))
    assert report.cases == ["tail", "big"]
    kept = {s.deoptimization: s for s in report.steps if s.kept}
    assert {"single_buffer", "barrier_after_copy", "scalar_loop"} <= set(kept)
    assert report.evaluations <= 20
    for lesson in report.lessons:
        assert lesson.provenance == "rewind" and lesson.timing == "estimated"
        assert lesson.slow_us is not None and lesson.fast_us is not None and lesson.slow_us > lesson.fast_us
        assert lesson.evidence_before and lesson.evidence_after
    double = next(lesson for lesson in report.lessons if lesson.family == "kernel.pipeline.double_buffer")
    # the diff is written slow -> fast: the fast side has BUFFER_NUM = 2
    assert "-constexpr int32_t BUFFER_NUM = 1;" in double.code_diff.kernel
    assert "+constexpr int32_t BUFFER_NUM = 2;" in double.code_diff.kernel
    scalar = next(lesson for lesson in report.lessons if lesson.family == "kernel.vectorize.scalar_loop")
    assert "GetValue" in scalar.code_diff.kernel and scalar.bound == "scalar"


async def test_single_buffered_kernel_retrieves_the_double_buffering_lesson_first(add_op: Path) -> None:
    for rel, old, new in (
        ("op_kernel/add_custom.cpp", "BUFFER_NUM = 2;", "BUFFER_NUM = 1;"),
        ("op_host/add_custom.cpp", "BUFFER_NUM = 2;", "BUFFER_NUM = 1;"),
    ):
        p = add_op / rel
        p.write_text(p.read_text().replace(old, new))
    op = load_operator(add_op)
    evaluation = await verify(CpuTwinEvaluator(), op, case="big", profile=True)
    diagnosis = diagnosis_of(
        op,
        evaluation,
        {rel: (add_op / rel).read_text() for rel in op.files.all()},
        "MTE2 copy-in does not overlap vector compute; one buffer per queue",
    )
    with Bank.open(add_op.parent) as bank:
        lessons = bank.retrieve(diagnosis, 3)
    assert lessons and lessons[0].family == "kernel.pipeline.double_buffer"


def test_the_shipped_mined_lessons_import_and_are_labelled(tmp_path: Path) -> None:
    mined = templates_dir().parent / "experience" / "mined.jsonl"
    with Bank.open(tmp_path, seed=False) as bank:
        report = import_file(bank, mined)
        lessons = bank.all()
    assert report.added == len(lessons) >= 20
    assert all(
        x.provenance == "rewind" and x.timing == "estimated" and x.slow_us and x.fast_us for x in lessons
    )
    assert all(x.applies_when and x.avoid_when for x in lessons)
