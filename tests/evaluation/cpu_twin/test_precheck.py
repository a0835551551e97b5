from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.evaluation.cpu_twin.precheck import TilingPrecheck
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import apply_knobs, baseline
from ascendopt.operators.discovery import load_operator

pytestmark = pytest.mark.slow

CAP = "    usedCores = (totalLength + blockLength - 1) / blockLength;\n"


def _with_core_cap(root: Path) -> None:
    """A knob that can make the tiling program fail (block dim 0). The tile and the core grain are
    pinned (`fixed`): their domains are long (operators/domains.py) and this is about the pre-check,
    not about how soon a search reaches the failing value."""
    host = root / "op_host" / "add_custom.cpp"
    text = host.read_text()
    text = text.replace(
        "constexpr uint32_t BLOCK_BYTES = 32;",
        "constexpr uint32_t MAX_CORES = 40;  // ascendopt: knob values=0,8,40\n"
        "constexpr uint32_t BLOCK_BYTES = 32;",
    )
    for pinned in ("TILE_LENGTH = 4096;", "MIN_BLOCK_BYTES = 8192;"):
        text = text.replace(pinned, pinned + "  // ascendopt: fixed")
    text = text.replace(CAP, CAP + "    usedCores = usedCores < MAX_CORES ? usedCores : MAX_CORES;\n")
    host.write_text(text)


async def test_a_failing_tiling_is_caught_without_compiling_the_kernel(add_op: Path) -> None:
    _with_core_cap(add_op)
    op = load_operator(add_op)
    cases = op.spec.resolve_cases() if op.spec else []
    precheck = TilingPrecheck(op, cases)
    good = await precheck(baseline(op))
    assert good.ok and good.block_dims["big"] > 1
    bad = await precheck(apply_knobs(op, baseline(op), {"MAX_CORES": 0}))
    assert not bad.ok and "block_dim 0" in bad.reason


async def test_the_episode_spends_no_evaluation_on_a_failing_tiling(add_op: Path) -> None:
    _with_core_cap(add_op)
    outcome = await Optimizer(add_op.parent, llm=LLMSettings()).optimize(
        load_operator(add_op), EpisodeSettings(budget=16, seed=0)
    )
    journal = EpisodeJournal.open(add_op.parent, outcome.episode)
    rejected = journal.events("precheck.rejected")
    assert rejected and all(e.data.assignment["MAX_CORES"] == 0 for e in rejected)
    evaluated = {e.data.candidate for e in journal.events("evaluation")}
    assert not evaluated & {e.data.candidate for e in rejected}
