"""The best-of-n baseline: independent LLM rewrites of the baseline (the scripted loopback server
stands in for a hosted LLM), the best correct one kept; no tiling search, no lessons."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.experience.bank import Bank
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.agent.scripted_llm import ScriptedLLMServer
from tests.agent.test_kernel_rewrite import ADD, HOST, KERNEL, _block, _single_buffered

pytestmark = pytest.mark.slow

DOUBLE = _block(KERNEL, "constexpr int32_t BUFFER_NUM = 1;", "constexpr int32_t BUFFER_NUM = 2;") + _block(
    HOST, "constexpr uint32_t BUFFER_NUM = 1;", "constexpr uint32_t BUFFER_NUM = 2;"
)
WRONG = _block(KERNEL, ADD, ADD.replace("Add(", "Sub("))
# Applies to the baseline only: after DOUBLE was kept, it still finds BUFFER_NUM = 1 in its parent.
SLOWER = _block(KERNEL, "constexpr int32_t BUFFER_NUM = 1;", "constexpr int32_t BUFFER_NUM = 1; // same")


async def test_every_sample_rewrites_the_baseline_and_the_best_is_kept(add_op: Path) -> None:
    _single_buffered(add_op)
    replies = iter([WRONG, DOUBLE, SLOWER])
    prompts: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        if "Answer with JSON only" in messages[-1]["content"]:
            return '{"bottleneck": "copy-in does not overlap compute", "change": "double buffer"}'
        prompts.append(messages[-1]["content"])
        return next(replies, "no more edits")

    with ScriptedLLMServer(reply) as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr("sk-test-0"))
        outcome = await Optimizer(add_op.parent, llm=llm).optimize(
            load_operator(add_op), EpisodeSettings(budget=10, strategy="best-of-n")
        )
    journal = EpisodeJournal.open(add_op.parent, outcome.episode)
    purposes = [e.data.purpose for e in journal.events("evaluation")]
    assert "tiling" not in purposes  # rewrites alone
    assert purposes.count("kernel rewrite") == 3  # WRONG, DOUBLE, SLOWER; then no edits: it stops
    rejected = [e.data.reason for e in journal.events("kernel.rejected")]
    assert any("wrong on case" in r for r in rejected)
    # the third sample was applied to the baseline, not to the double-buffered best
    assert all("BUFFER_NUM = 1;" in p for p in prompts)
    assert outcome.suggestion is not None, outcome.message
    assert {c.path for c in outcome.suggestion.changes} == {KERNEL, HOST}
    assert outcome.kernel_note.startswith("best-of-n baseline")
    with Bank.open(add_op.parent) as bank:
        assert not [e for e in bank.all() if e.operator == "add_custom"]  # the baseline banks nothing


async def test_without_an_llm_best_of_n_says_it_has_nothing_to_run(add_op: Path) -> None:
    outcome = await Optimizer(add_op.parent, llm=LLMSettings()).optimize(
        load_operator(add_op), EpisodeSettings(budget=6, strategy="best-of-n")
    )
    assert outcome.suggestion is None
    assert "no LLM configured" in outcome.kernel_note and "best-of-n" in outcome.kernel_note
    assert outcome.llm_missing
    assert outcome.evaluations == 2  # the baseline and its noise run
