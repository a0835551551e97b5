"""Optimize finds what a CANN developer tunes in open-repo-style operators and proposes only candidates
the CPU twin verified: real g++ builds of look-alikes (tests/operators/cann_knobs_style.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.operators.cann_knobs_style import write_sq_like, write_sub_like

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]


async def test_coupled_buffer_count_and_threshold_candidates_verify(tmp_path: Path) -> None:
    op = load_operator(write_sub_like(tmp_path))
    # kernel depth 3 with the host's UB split 9; the double-buffer path taken for every size
    for assignment in ({"BUFFER_NUM": 3, "MIN_SPLIT_THRESHOLD": 0}, {"BUFFER_NUM": 1}):
        ev = await verify(CpuTwinEvaluator(), op, assignment=assignment)
        assert ev.status == "ok" and all(c.status == "passed" for c in ev.cases), (assignment, ev.message)
        assert all(c.ub_bytes_per_block <= 192 * 1024 for c in ev.cases)


async def test_optimize_moves_the_header_tile_and_the_host_split_together(tmp_path: Path) -> None:
    op_dir = write_sq_like(tmp_path)
    before = {p: (op_dir / p).read_text() for p in ("op_kernel/sq_like.h", "op_host/sq_like_tiling.cpp")}
    outcome = await Optimizer(tmp_path).optimize(load_operator(op_dir), EpisodeSettings(budget=8, seed=0))
    s = outcome.suggestion
    assert s is not None, outcome.message
    assert s.geomean_speedup > 1.01
    assert {c.path for c in s.changes} == {"op_kernel/sq_like.h", "op_host/sq_like_tiling.cpp"}
    kernel = next(c.proposed_text for c in s.changes if c.path == "op_kernel/sq_like.h")
    host = next(c.proposed_text for c in s.changes if c.path == "op_host/sq_like_tiling.cpp")
    tile = int(kernel.split("#else\nconstexpr int32_t PP_ELEMENT_NUM = ")[1].split(";")[0])
    assert tile < 12 * 1024 and f"MAX_ELEMENT_NUM_EACH_CORE = {tile};" in host
    evals = [e.data.model_dump() for e in EpisodeJournal.open(tmp_path, outcome.episode).events("evaluation")]
    # the tile's domain stops at what fits the UB at the largest case (operators/domains.py): no
    # evaluation is spent on a tile past it, every one tried builds and passes
    tried = {e["candidate"]: e["evaluation"] for e in evals}
    assert len(tried) > 3
    assert all(
        ev["status"] == "ok" and all(c["status"] == "passed" for c in ev["cases"]) for ev in tried.values()
    )
    recheck = [e for e in evals if e["purpose"].startswith("recheck")]
    assert recheck and all(c["status"] == "passed" for e in recheck for c in e["evaluation"]["cases"])
    assert before == {p: (op_dir / p).read_text() for p in before}  # nothing changes until accepted
