"""The episode's audit gate: an LLM-written candidate the audit refuses is journaled at stage "audit",
counted as tried and wrong, and costs no evaluation (nothing is built: the evaluator is never asked)."""

from __future__ import annotations

from pathlib import Path

from ascendopt.agent.episode import Episode
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.journal.events import RewriteRejected
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.discovery import load_operator

KERNEL = "op_kernel/add_custom.cpp"


class NoEvaluator:
    """Any call is a failure of the gate: a refused candidate must not reach an evaluation."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the evaluator was asked for {name}")


async def test_a_refused_rewrite_is_journaled_at_the_audit_stage_and_spends_nothing(add_op: Path) -> None:
    project = load_operator(add_op)
    settings = EpisodeSettings(budget=4, seed=0)
    journal = EpisodeJournal.create(add_op.parent, "ep-audit")
    ledger = Ledger(NoEvaluator(), journal, settings.budget)  # type: ignore[arg-type]
    episode = Episode(project, settings, ledger, journal)
    base = episode.base.files
    hostile = (
        base[KERNEL]
        .replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include <cstdlib>', 1)
        .replace("pipe.InitBuffer(", 'if (getenv("X")) { return; }\n        pipe.InitBuffer(', 1)
    )
    candidate = Candidate(
        operator=project.name, files={**base, KERNEL: hostile}, origin="kernel_rewrite", llm_written=True
    )

    assert await episode.judge_rewrite(candidate, "kernel") == (None, False)

    rejected = [e.data for e in journal.events() if isinstance(e.data, RewriteRejected)]
    assert [(r.type, r.stage, r.candidate) for r in rejected] == [("kernel.rejected", "audit", candidate.id)]
    assert rejected[0].reason.startswith(f"audit: include: {KERNEL}:2: ")
    assert rejected[0].reason.endswith("(and 1 more)")
    assert (episode.tried, episode.wrong, ledger.used) == (1, 1, 0)
