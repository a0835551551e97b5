from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.episode import Episode
from ascendopt.agent.kernel_rewrite import KernelRewriter
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.llm import LLMClient, LLMSettings
from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies.ours import Ours
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.agent.scripted_llm import ScriptedLLMServer

pytestmark = pytest.mark.slow

KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"
SECRET = "sk-test-do-not-log-0123456789"


def _single_buffered(root: Path) -> None:
    """Start from a slower kernel: single buffering on both sides."""
    for rel, old, new in (
        (KERNEL, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;"),
        (HOST, "constexpr uint32_t BUFFER_NUM = 2;", "constexpr uint32_t BUFFER_NUM = 1;"),
    ):
        p = root / rel
        p.write_text(p.read_text().replace(old, new))


def _block(file: str, search: str, replace: str) -> str:
    return f"FILE: {file}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


ADD = "            AscendC::Add(zLocal, xLocal, yLocal, count);"
REWRITES = [
    ("does not occur", _block(KERNEL, "    this line is not in the kernel;", "    nothing;")),
    ("not the operator's kernel", _block("reference.py", "import numpy as np", "import numpy as np  # x")),
    ("does not compile", _block(KERNEL, ADD, ADD.rstrip(";"))),
    ("wrong on case", _block(KERNEL, ADD, ADD.replace("Add(", "Sub("))),
    (
        "not faster",
        _block(
            KERNEL,
            "        inQueueY.EnQue(yLocal);",
            "        inQueueY.EnQue(yLocal);\n        AscendC::PipeBarrier<PIPE_ALL>();",
        ),
    ),
    (
        "accepted",
        _block(KERNEL, "constexpr int32_t BUFFER_NUM = 1;", "constexpr int32_t BUFFER_NUM = 2;")
        + _block(HOST, "constexpr uint32_t BUFFER_NUM = 1;", "constexpr uint32_t BUFFER_NUM = 2;"),
    ),
]


def _scripted() -> ScriptedLLMServer:
    rewrites = iter(r for _, r in REWRITES)

    def reply(messages: list[dict[str, str]]) -> str:
        if "Answer with JSON only" in messages[-1]["content"]:
            return '{"bottleneck": "MTE2 copy-in does not overlap compute", "change": "double buffer"}'
        if messages[-1]["content"].startswith("Your edits were not applied"):
            return "no more edits"  # the first rewrite, sent back: no second try
        return next(rewrites, "no more edits")

    return ScriptedLLMServer(reply)


async def _episode(
    root: Path, llm: LLMSettings, offline: bool = False, journal: EpisodeJournal | None = None
):
    project = load_operator(root)
    settings = EpisodeSettings(budget=12, seed=0, kernel_steps=6, tiling_steps=1, top_k=0)
    journal = journal or EpisodeJournal.create(root.parent, "ep1")
    ledger = Ledger(CpuTwinEvaluator(), journal, settings.budget, offline=offline)
    client = LLMClient(llm, journal, offline=offline)
    episode = Episode(
        project, settings, ledger, journal, strategy=Ours(KernelRewriter(client, None, 0), note="on")
    )
    return await episode.run(), journal, client


async def test_only_the_good_rewrite_is_accepted_and_rejections_are_journaled(add_op: Path) -> None:
    _single_buffered(add_op)
    with _scripted() as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr(SECRET))
        outcome, journal, client = await _episode(add_op, llm)
    rejected = [e.data.reason for e in journal.events("kernel.rejected")]
    accepted = journal.events("kernel.accepted")
    assert len(accepted) == 1
    for (expected, _), reason in zip(REWRITES[:5], rejected[:5], strict=True):
        assert expected in reason, (expected, reason)
    # later rounds got no edits from the script: rejected for that, and nothing evaluated
    assert all("no SEARCH/REPLACE block" in r for r in rejected[5:])
    assert outcome.suggestion is not None, outcome.message
    changed = {c.path for c in outcome.suggestion.changes}
    assert changed == {KERNEL, HOST}  # a paired edit
    assert outcome.suggestion.geomean_speedup > 1.02  # the tail case is launch-bound
    calls = len(journal.events("llm"))
    assert calls >= 12 and client.usage.calls == calls and client.usage.prompt_tokens == 100 * calls
    # the key went to the server, never to the journal
    assert all(h == f"Bearer {SECRET}" for h in server.auth_headers)
    assert SECRET not in (journal.folder / "events.jsonl").read_text()


async def test_replay_reproduces_the_episode_offline(add_op: Path, tmp_path: Path) -> None:
    _single_buffered(add_op)
    with _scripted() as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr(SECRET))
        first, journal, _ = await _episode(add_op, llm)
    copy = EpisodeJournal.create(add_op.parent, "ep1-replay")
    shutil.copy(journal.folder / "events.jsonl", copy.folder / "events.jsonl")
    copy = EpisodeJournal(copy.folder)
    # no server now: every LLM answer and every evaluation must come from the journal
    offline_llm = LLMSettings(base_url="http://127.0.0.1:9/v1", model="scripted")
    second, _, _ = await _episode(add_op, offline_llm, offline=True, journal=copy)
    assert first.suggestion is not None and second.suggestion is not None
    assert second.suggestion.candidate_id == first.suggestion.candidate_id
    assert second.evaluations == first.evaluations


async def test_no_llm_says_so_and_still_tunes(add_op: Path) -> None:
    outcome = await Optimizer(add_op.parent, llm=LLMSettings()).optimize(
        load_operator(add_op), EpisodeSettings(budget=6)
    )
    assert outcome.kernel_note.startswith("skipped: no LLM configured") and outcome.llm_missing


async def test_an_unreachable_llm_stops_being_asked_and_the_episode_still_tunes(add_op: Path) -> None:
    down = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", api_key=SecretStr(SECRET), max_retries=0)
    outcome, journal, _ = await _episode(add_op, down)
    assert len(journal.events("kernel.skipped")) == 3 and len(journal.events("kernel.disabled")) == 1
    assert outcome.kernel_note.startswith("stopped after 3 failed LLM calls")
    assert outcome.evaluations == 12  # the budget went to the tiling search instead
    assert SECRET not in (journal.folder / "events.jsonl").read_text()
