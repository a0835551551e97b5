"""A real episode on the add_custom template (CPU twin, no LLM), then `ascendopt report` on its id."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.cli import app
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from ascendopt.report import episode as episode_report
from tests.conftest import TEMPLATES

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(operator root = workspace, episode id, the CLI's end text) of one real `optimize` run."""
    root = tmp_path_factory.mktemp("ws") / "add_custom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    # 12: the tile's domain climbs in quarter octaves (operators/domains.py), and at 8 the four
    # search steps stay one rung from the current tile, within the noise band
    result = runner.invoke(app, ["optimize", str(root), "--budget", "12"])
    assert result.exit_code == 0, result.output
    episode = next(p.name for p in (root / ".ascendopt" / "episodes").iterdir())
    return root, episode, result.output


def test_optimize_end_text_is_the_outcome_record(ran: tuple[Path, str, str]) -> None:
    root, episode, text = ran
    end = EpisodeJournal.open(root, episode).events("end")[-1].data
    outcome = end.outcome  # type: ignore[attr-defined]
    assert outcome is not None and outcome["status"] in ("suggestion", "no_gain")
    flat = " ".join(text.split())
    assert " ".join(outcome["headline"].split()) in flat
    assert "kernel rewriting: skipped: no LLM configured" in flat  # no LLM in the test environment
    assert f"ascendopt report {episode}" in flat
    for case in outcome["cases"]:
        assert case["case"] in flat
        if case["regression"]:
            assert "▼ slower" in flat and "slower on" in outcome["headline"]


def test_report_html_has_the_plot_every_case_and_every_candidate(ran: tuple[Path, str, str]) -> None:
    root, episode, _ = ran
    result = runner.invoke(app, ["report", episode, "--workspace", str(root)])
    assert result.exit_code == 0, result.output
    page = (root / ".ascendopt" / "episodes" / episode / "report.html").read_text()
    assert (
        page.startswith("<!doctype html>")
        and "<script" not in page
        and "http://" not in page.split("<svg")[0]
    )
    assert "<svg" in page and "best speedup so far" in page
    report = episode_report.build(root, episode)
    assert [c.case for c in report.cases] == ["small-tail", "llama-hidden-fp32", "bf16", "large"]
    for c in report.cases:
        assert f"<td>{c.case}</td>" in page
    assert report.candidates, "the search tried candidates"
    for row in report.candidates:
        assert f"<td>{row.verdict}</td>" in page and row.reason
    assert {row.verdict for row in report.candidates} <= {
        "winner",
        "accepted",
        "slower",
        "not faster",
        "rejected",
        "compile error",
        "wrong",
        "pre-check",
        "not applicable",
        "failed re-check",
    }
    if report.outcome is not None and report.outcome.status == "suggestion":
        assert [r.verdict for r in report.candidates].count("winner") == 1
        assert "<h2>The paired diff</h2>" in page and "+++ b/op_host/add_custom.cpp" in page
    for row in report.candidates:  # a new best shows on the curve from its own evaluation on
        if row.verdict in ("winner", "accepted") and row.evaluation and row.speedup:
            assert report.curve[row.evaluation - 1].best_speedup >= row.speedup - 1e-9
    for c in report.cases:  # a regression is marked in the table row
        if c.regression:
            assert "▼ slower" in page
    # the search: one point per evaluation; the profiles side by side with a roofline verdict per case
    evaluations = len(EpisodeJournal.open(root, episode).events("evaluation"))
    history = page.split('aria-label="add_custom, episode')[1].split("</svg>")[0]
    assert history.count('class="ao-pt ') == evaluations
    assert 'aria-label="speedup against TILE_LENGTH"' in page
    assert [p.case for p in report.baseline_profile] == [c.case for c in report.cases]
    for p in report.baseline_profile:
        assert p.gm_bytes and p.memory_floor_us and p.cores == 40 and p.blocks
        assert p.roofline.startswith("at ") and "% of the " in p.roofline and "estimate" in p.roofline
        assert p.roofline in page.replace("&#x27;", "'")


def test_report_md_and_json_and_an_unknown_episode(ran: tuple[Path, str, str]) -> None:
    root, episode, _ = ran
    md = runner.invoke(app, ["report", episode, "--workspace", str(root), "--format", "md", "--stdout"])
    assert md.exit_code == 0 and "## Every candidate tried" in md.output and "| case |" in md.output
    out = root / "r.json"
    js = runner.invoke(app, ["report", episode, "--workspace", str(root), "--format", "json", "-o", str(out)])
    assert js.exit_code == 0, js.output
    data = json.loads(out.read_text())
    assert data["episode"] == episode and data["backend"] == "cpu-twin" and data["curve"]
    bad = runner.invoke(app, ["report", "nope", "--workspace", str(root)])
    assert bad.exit_code == 2 and "no episode 'nope'" in bad.output


def test_a_cancelled_episode_says_cancelled(tmp_path: Path) -> None:
    root = tmp_path / "add_custom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    cancel = asyncio.Event()
    cancel.set()  # cancelled before the search starts: the baseline and its noise run only
    outcome = asyncio.run(
        Optimizer(root).optimize(load_operator(root), EpisodeSettings(budget=8), cancel=cancel)
    )
    assert outcome.cancelled
    assert outcome.status == "cancelled" and outcome.message.startswith("cancelled after 2 of 8")
    assert "no candidate beat" not in outcome.message
    # What was known when it stopped, said once (the headline already has the count).
    assert "when cancelled: 0 tried, 0 of them wrong or failed to build; none beat the baseline" in (
        outcome.details
    )
    page = episode_report.render_html(episode_report.build(root, outcome.episode))
    assert page.count("cancelled after") == 1, page
