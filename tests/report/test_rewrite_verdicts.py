"""The episode report of an episode with kernel rewriting (a scripted LLM on loopback, the real
OpenAI client, the CPU twin): every rewrite is listed with its verdict and the reason."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.llm import LLMSettings
from ascendopt.report import episode as episode_report
from tests.agent.test_kernel_rewrite import SECRET, _episode, _scripted, _single_buffered

pytestmark = pytest.mark.slow


async def test_each_rewrite_has_its_verdict_and_reason(add_op: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCENDOPT_LLM_PRICE_IN", "2")
    monkeypatch.setenv("ASCENDOPT_LLM_PRICE_OUT", "8")
    _single_buffered(add_op)
    with _scripted() as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr(SECRET))
        outcome, journal, _ = await _episode(add_op, llm)
    assert outcome.kernel_rewriting == "ran"
    report = episode_report.build(add_op.parent, journal.id)
    rewrites = [c for c in report.candidates if c.origin == "kernel rewrite"]
    verdicts = [(c.verdict, c.reason) for c in rewrites]
    # the scripted order (tests/agent/test_kernel_rewrite.py REWRITES): two edits that never apply,
    # one that does not compile, one wrong on a case, one slower (a barrier), one accepted (the
    # tiling search then tunes it further: the winner is a later candidate on its lineage)
    assert [v for v, _ in verdicts[:6]] == [
        "not applicable",
        "not applicable",
        "compile error",
        "wrong",
        "slower",
        "accepted",
    ], verdicts
    assert outcome.suggestion is not None
    (winner,) = [c for c in report.candidates if c.verdict == "winner"]
    assert winner.candidate == outcome.suggestion.candidate_id
    assert "does not occur" in verdicts[0][1] and "does not compile" in verdicts[2][1]
    assert verdicts[3][1].startswith("wrong on case ")
    page = episode_report.render_html(report)
    for verdict, reason in verdicts:
        assert f"<td>{verdict}</td>" in page and html.escape(reason) in page
    assert SECRET not in page
    # the compile error's findings are in the page, at their file:line, and its reason links to them
    broken = next(c for c in report.candidates if c.verdict == "compile error")
    row = report.candidates.index(broken)
    assert broken.findings and broken.findings[0].file and broken.findings[0].line
    section = page.split(f'id="findings-{row}"')[1].split("<h3")[0]
    assert f"<td>{broken.findings[0].file}:{broken.findings[0].line}</td>" in section
    assert f'href="#findings-{row}"' in page
    assert "kernel rewriting: on" in page
    # the episode's tokens (the scripted server reports 100 in, 50 out a call) and their cost
    calls = len(journal.events("llm"))
    expected = (
        f"LLM: {calls} calls, {100 * calls:,} tokens in, {50 * calls:,} out, cost {calls * 600 / 1e6:.4f}"
    )
    assert report.llm.startswith(expected), report.llm
    assert html.escape(report.llm) in page and report.llm in episode_report.render_markdown(report)
