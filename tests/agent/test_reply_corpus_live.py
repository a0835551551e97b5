"""Corpus replies through the real `openai` client, against loopback servers that imitate a local
server's quirks, in the real episode on add_custom (the CPU twin, g++): what the journal says."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.episode import Episode
from ascendopt.agent.kernel_rewrite import KernelRewriter
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.llm import LLMClient, LLMSettings
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies.ours import Ours
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.agent.reply_corpus import BY_NAME
from tests.agent.scripted_llm import RawReply, ScriptedLLMServer, too_many_requests
from tests.agent.test_kernel_rewrite import _single_buffered

pytestmark = pytest.mark.slow
DIAGNOSIS = '{"bottleneck": "MTE2 copy-in does not overlap compute", "change": "double buffer"}'


async def _episode(root: Path, server: ScriptedLLMServer, kernel_steps: int) -> EpisodeJournal:
    project = load_operator(root)
    settings = EpisodeSettings(budget=8, seed=0, kernel_steps=kernel_steps, tiling_steps=1, top_k=0)
    journal = EpisodeJournal.create(root.parent, "corpus")
    llm = LLMSettings(base_url=server.base_url, model="local", api_key=SecretStr("sk-local"), max_retries=2)
    ledger = Ledger(CpuTwinEvaluator(), journal, settings.budget)
    strategy = Ours(KernelRewriter(LLMClient(llm, journal), None, 0), note="on")
    episode = Episode(project, settings, ledger, journal, strategy=strategy)
    await episode.run()
    return journal


def _steps(journal: EpisodeJournal) -> list[tuple[str, str]]:
    kinds = ("kernel.rejected", "kernel.skipped", "kernel.accepted")
    return [(e.type, getattr(e.data, "reason", "")) for e in journal.events() if e.type in kinds]


async def test_corpus_replies_through_a_local_server_without_usage_and_a_429(add_op: Path) -> None:
    _single_buffered(add_op)
    script = iter(["cut-mid-block", "429", "whole-file-cstdio", "prose-fenced-diff"])

    def reply(messages: list[dict[str, str]]) -> str | RawReply:
        if "Answer with JSON only" in messages[-1]["content"]:
            return DIAGNOSIS
        name = next(script, "")
        return too_many_requests() if name == "429" else BY_NAME[name].text if name else "no more edits"

    with ScriptedLLMServer(reply, usage=False, finish_reason="eos", streaming=False) as server:
        journal = await _episode(add_op, server, kernel_steps=3)
    steps = _steps(journal)
    assert [t for t, _ in steps[:3]] == ["kernel.rejected", "kernel.rejected", "kernel.accepted"], steps
    assert "truncated" in steps[0][1]
    assert steps[1][1].startswith("audit: include"), steps[1][1]  # parsed, then refused by the audit
    rewrites = [r for r in server.requests if "Answer with JSON only" not in r["messages"][-1]["content"]]
    assert len(rewrites) >= 4 and all(not r.get("stream") for r in server.requests)  # the 429 was asked again
    events = journal.events("llm")
    assert all(e.data.error is None for e in events) and len(events) == len(server.requests) - 1


async def test_an_edit_that_does_not_apply_is_sent_back_and_the_fixed_reply_accepted(add_op: Path) -> None:
    _single_buffered(add_op)

    def reply(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "Answer with JSON only" in text:
            return DIAGNOSIS
        if text.startswith("Your edits were not applied"):
            return BY_NAME["two-files-aider-style"].text
        return BY_NAME["search-not-in-file"].text

    with ScriptedLLMServer(reply, usage=False, finish_reason=None) as server:
        journal = await _episode(add_op, server, kernel_steps=1)
    steps = _steps(journal)
    assert steps and steps[0][0] == "kernel.accepted", steps
    second = server.requests[2]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == BY_NAME["search-not-in-file"].text
    error = second[3]["content"]
    assert "block 1: this text does not occur in op_kernel/add_custom.cpp" in error
    assert "the closest lines are" in error and "CopyIn(i, count);" in error
    purposes = [e.data.purpose for e in journal.events("llm")]
    assert purposes[:3] == ["diagnose", "rewrite", "rewrite (edits sent back)"], purposes
