"""An integer division by zero in a kernel's scalar code (issue 28): x86 traps, the NPU does not stop
and leaves the result undefined, and answers validated on the NPU do it where the result is unused.
The twin carries on with 0 as the result (a warning), runs the case again with all ones, and fails it
when any output changed: a division by zero passes only where its result does not matter. Run through
the real evaluator (g++, the twin, bubblewrap) on the add_custom template."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.sandbox import local_sandbox
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.discovery import load_operator

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_sandbox() is None, reason="bubblewrap (bwrap) is not usable here"),
]

KERNEL = "op_kernel/add_custom.cpp"
COUNT = "        uint32_t tileCount = (length + tileLength - 1) / tileLength;\n"
COPY_IN = "            CopyIn(i, count);\n"
# 0 on every block, which the compiler cannot know
ZERO = "        const uint32_t zero = AscendC::GetBlockNum() / (AscendC::GetBlockNum() + 1);\n"
UNUSED = {
    "32-bit modulo": "        volatile uint32_t unused = length % zero;\n        (void)unused;\n",
    "64-bit signed division": (
        "        volatile int64_t unused = static_cast<int64_t>(length) / static_cast<int64_t>(zero);\n"
        "        (void)unused;\n"
    ),
}


async def _evaluate(op: Path, old: str, new: str) -> Evaluation:
    project = load_operator(op)
    files = dict(baseline(project).files)
    assert old in files[KERNEL]
    files[KERNEL] = files[KERNEL].replace(old, new, 1)
    candidate = Candidate(operator=project.name, files=files, origin="kernel_rewrite", llm_written=True)
    assert project.spec is not None
    return await CpuTwinEvaluator(parallel=1).evaluate(project, candidate, project.spec.resolve_cases())


def _kinds(ev: Evaluation) -> set[str]:
    return {f.kind for c in ev.cases for f in c.findings}


@pytest.mark.parametrize("how", sorted(UNUSED))
async def test_an_unused_division_by_zero_passes_with_a_warning(add_op: Path, how: str) -> None:
    ev = await _evaluate(add_op, COPY_IN, COPY_IN + ZERO.replace("    ", "      ") + UNUSED[how])
    assert ev.correct, [c.message for c in ev.cases]
    found = [f for c in ev.cases for f in c.findings if f.kind == "divide_by_zero"]
    assert found and all(f.severity == "warning" for f in found)
    # named after the twin call that ran last (the copy-in's EnQue), the nearest place the twin knows
    assert found[0].file == KERNEL and "after EnQue" in found[0].message
    assert "divide_by_zero_used" not in _kinds(ev)


async def test_a_result_right_only_when_it_is_zero_fails(add_op: Path) -> None:
    """The hostile candidate: correct exactly when x / 0 gives 0, as the twin's first run has it."""
    used = ZERO + "        tileCount += length / zero;\n"
    ev = await _evaluate(add_op, COUNT, COUNT + used)
    assert not ev.correct
    assert "divide_by_zero_used" in _kinds(ev), [c.message for c in ev.cases]


async def test_a_division_by_zero_in_the_tiling_program_still_stops_it(add_op: Path) -> None:
    """Only the kernel's scalar code is carried on: a host program dividing by zero crashes as before."""
    project = load_operator(add_op)
    host = "op_host/add_custom.cpp"
    files = dict(baseline(project).files)
    entry = "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n{\n"
    assert entry in files[host]
    trap = "    volatile uint32_t zero = 0;\n    volatile uint32_t trapped = 7u / zero;\n    (void)trapped;\n"
    files[host] = files[host].replace(entry, entry + trap, 1)
    candidate = Candidate(operator=project.name, files=files, origin="kernel_rewrite", llm_written=True)
    assert project.spec is not None
    ev = await CpuTwinEvaluator(parallel=1).evaluate(project, candidate, project.spec.resolve_cases())
    assert not ev.correct
    assert "divide_by_zero" not in _kinds(ev)
