"""The openevolve baseline: the real OpenEvolve package drives the search (its prompts, its
database, its worker process) against the scripted loopback LLM server (the test double for a
hosted LLM); every program it scores is evaluated through the episode's ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.agent.scripted_llm import ScriptedLLMServer
from tests.agent.test_kernel_rewrite import ADD, SECRET

pytestmark = pytest.mark.slow


def _diff(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


async def test_openevolve_proposes_and_our_ledger_judges_within_the_budget(add_op: Path) -> None:
    replies = iter([_diff(ADD, ADD.replace("Add(", "Sub(")), _diff(ADD, ADD + "  // unchanged math")])
    prompts: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        return next(replies, "no change")

    with ScriptedLLMServer(reply) as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr(SECRET))
        outcome = await Optimizer(add_op.parent, llm=llm).optimize(
            load_operator(add_op), EpisodeSettings(budget=6, strategy="openevolve")
        )
    assert prompts, "OpenEvolve never asked the LLM"
    assert any("AscendC::Add(zLocal" in p for p in prompts)  # it showed the kernel we gave it
    journal = EpisodeJournal.open(add_op.parent, outcome.episode)
    purposes = [e.data.purpose for e in journal.events("evaluation")]
    assert "tiling" not in purposes
    # the search's share of the budget: 6 minus the baseline, its noise run and the re-check
    assert 1 <= purposes.count("kernel rewrite") <= 2
    assert outcome.evaluations <= 6
    rejected = [e.data.reason for e in journal.events("kernel.rejected")]
    assert any("wrong on case" in r for r in rejected)  # the Sub() program was scored as wrong
    assert outcome.suggestion is None  # nothing faster was proposed
    assert outcome.kernel_note.startswith("openevolve baseline")
    assert SECRET not in (journal.folder / "events.jsonl").read_text()
