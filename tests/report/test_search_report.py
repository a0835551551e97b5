"""The episode and campaign reports from a journal written here, evaluation by evaluation (no build):
the search (one point per evaluation by verdict, under the best so far, the y axis from 1.0 with the
noise band and the timing model's stated error), the speedup against each knob, the baseline's and
the winner's profiles side by side with a roofline verdict, the findings of the candidates that did
not count at their file:line, every text escaped, and a page that follows VS Code's theme."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ascendopt.campaign.records import CampaignRecord, CampaignSettings, TaskEntry, TaskResult
from ascendopt.evaluation.records import CaseResult, Evaluation, Finding, PipeTime, Profile
from ascendopt.evaluation.timing.calibration import soc_calibration
from ascendopt.evaluation.timing.model import STATED_ERROR
from ascendopt.journal.events import DecisionEvent, EvaluationEvent, NoiseEvent, RewriteRejected, StartEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.issues import Issue
from ascendopt.report import episode as episode_report
from ascendopt.report.campaign import write_reports

SOC = soc_calibration("Ascend910B4").soc
KERNEL = "op_kernel/toy.cpp"
MB = 1_000_000
SVG = "{http://www.w3.org/2000/svg}"


def _case(
    us: float, mte2: float, hot: str, status: str = "passed", findings: list[Finding] | None = None
) -> CaseResult:
    profile = Profile(
        duration_us=us,
        kind="estimate",
        source="estimate, Ascend910B4 model",
        pipes=[
            PipeTime(pipe="aiv_mte2_time(us)", time_us=us * mte2, ratio=mte2),
            PipeTime(pipe="aiv_vec_time(us)", time_us=us * 0.2, ratio=0.2),
        ],
        bound="memory",
        hot_lines=[hot],
    )
    return CaseResult(
        index=0,
        name="big",
        dtypes={"x": "float16"},
        status=status,  # type: ignore[arg-type]
        message="1 block(s) stopped on a fatal finding (see findings)" if status == "error" else "",
        findings=findings or [],
        block_dim=8,
        gm_bytes=3 * MB,
        profile=profile if status == "passed" else None,
    )


def _evaluation(cid: str, case: CaseResult | None, compile_error: Issue | None = None) -> Evaluation:
    return Evaluation(
        candidate_id=cid,
        operator="toy",
        backend="cpu-twin",
        hardware="the CPU twin",
        seed=0,
        soc=SOC,
        status="compile_error" if compile_error else "ok",
        compile_errors=[compile_error] if compile_error else [],
        cases=[case] if case else [],
    )


def _candidate(tile: int, mode: str) -> Candidate:
    return Candidate(
        operator="toy",
        files={KERNEL: f"// tile {tile} {mode}\n"},
        knobs={"TILE": tile, "MODE": mode},
        origin="baseline" if (tile, mode) == (4096, "plain") else "host_search",
    )


@pytest.fixture
def journal(tmp_path: Path) -> EpisodeJournal:
    """Baseline 10 µs; a 0.4 % step (not faster); the winner at 8 µs; one wrong on a fatal finding; one
    faster but refused for a finding the baseline lacks; one that does not compile; the re-check."""
    j = EpisodeJournal.create(tmp_path, "e1-toy")
    base, tiny, win, bad, cheat, broken = (
        _candidate(4096, "plain"),
        _candidate(8192, "plain"),
        _candidate(2048, "plain"),
        _candidate(1024, "plain"),
        _candidate(4096, "a<b>"),
        _candidate(512, "plain"),
    )
    for c in (base, tiny, win, bad, cheat, broken):
        j.save_candidate(c)
    j.append(StartEvent(operator="toy", root=str(tmp_path), settings={"budget": 10}, baseline=base.id))

    def evaluated(c: Candidate, purpose: str, ev: Evaluation) -> None:
        j.append(
            EvaluationEvent(
                key=c.id + purpose,
                candidate=c.id,
                purpose=purpose,
                seed=0,
                evaluation=ev.model_dump(mode="json"),
            )
        )

    base_ev = _evaluation(base.id, _case(10.0, 0.9, f"{KERNEL}:40 (60%)"))
    evaluated(base, "baseline", base_ev)
    evaluated(base, "noise", base_ev)
    j.append(NoiseEvent(band=0.002, threshold=0.01))
    evaluated(tiny, "tiling search", _evaluation(tiny.id, _case(10.0 / 1.004, 0.9, f"{KERNEL}:40 (59%)")))
    j.append(
        DecisionEvent(
            candidate=tiny.id, origin="tiling search", score=1 / 1.004, best_score=1.0, accepted=False
        )
    )
    evaluated(win, "tiling search", _evaluation(win.id, _case(8.0, 0.95, f"{KERNEL}:41 (70%)")))
    j.append(
        DecisionEvent(candidate=win.id, origin="tiling search", score=0.8, best_score=1.0, accepted=True)
    )
    fatal = Finding(
        kind="ub_overflow",
        message="write past the UB end <buf> [with T = half]",
        file=KERNEL,
        line=42,
        block=3,
    )
    evaluated(
        bad, "tiling search", _evaluation(bad.id, _case(0.0, 0.0, "", status="error", findings=[fatal]))
    )
    j.append(
        DecisionEvent(candidate=bad.id, origin="tiling search", score=None, best_score=0.8, accepted=False)
    )
    hazard = Finding(
        kind="pipe_hazard", severity="warning", message="V reads what MTE2 writes", file=KERNEL, line=57
    )
    cheat_case = _case(7.0, 0.9, f"{KERNEL}:57 (50%)", findings=[hazard])
    evaluated(cheat, "kernel rewrite", _evaluation(cheat.id, cheat_case))
    reason = (
        f"introduces pipe_hazard at {KERNEL}:57 that the baseline does not have: V reads what MTE2 writes"
    )
    j.append(RewriteRejected(type="kernel.rejected", candidate=cheat.id, stage="evaluate", reason=reason))
    issue = Issue(file=KERNEL, line=9, message="expected ';' [with T = half]")
    evaluated(broken, "tiling search", _evaluation(broken.id, None, compile_error=issue))
    evaluated(win, "recheck-winner", _evaluation(win.id, _case(8.0, 0.95, f"{KERNEL}:41 (70%)")))
    evaluated(base, "recheck-baseline", base_ev)
    j.write_json("suggestion.json", {"candidate_id": win.id, "operator": "toy"})
    return j


def _svg(page: str, label: str) -> ET.Element:
    """The inline <svg> whose aria-label starts with `label`, parsed (so it is well-formed XML)."""
    for m in re.finditer(r"<svg class=\"ao-chart[^\"]*\".*?</svg>", page, re.S):
        root = ET.fromstring(m.group(0))
        if root.get("aria-label", "").startswith(label):
            return root
    raise AssertionError(f"no chart {label!r}")


def _points(chart: ET.Element) -> list[tuple[str, str, float]]:
    """(class, hover text, y pixel) of every evaluation's mark."""
    out = []
    for el in chart.iter():
        cls = el.get("class", "")
        if cls.startswith("ao-pt "):
            title = el.find(f"{SVG}title")
            y = float(el.get("cy") or el.get("y") or re.findall(r"[\d.]+", el.get("d", "0,0"))[1])
            out.append((cls.split()[1], title.text if title is not None else "", y))
    return out


def test_the_search_chart_has_every_evaluation_by_verdict_from_one(journal: EpisodeJournal) -> None:
    report = episode_report.build(journal.folder.parents[2], journal.id)
    page = episode_report.render_html(report)
    chart = _svg(page, "toy, episode e1-toy")
    points = _points(chart)
    evaluations = len(journal.events("evaluation"))
    assert len(points) == evaluations == 9  # one point per evaluation, the re-check's included
    classes = [c for c, _, _ in points]
    for cls, n in (
        ("ao-better", 1),
        ("ao-not-faster", 1),
        ("ao-wrong", 2),
        ("ao-refused", 1),
        ("ao-measure", 4),
    ):
        assert classes.count(cls) == n, (cls, classes)
    # the y axis starts at 1.0 and reaches above the model's stated error: a 0.4 % step is a sliver
    ticks = [
        t.text or ""
        for t in chart.iter(f"{SVG}text")
        if t.get("class") == "ao-tick" and "×" in (t.text or "")
    ]
    assert ticks[0] == "1.00×" and float(ticks[-1].rstrip("×")) >= 1 + STATED_ERROR
    axis = next(float(el.get("y1", 0)) for el in chart.iter(f"{SVG}line") if el.get("class") == "ao-axis")
    top = next(float(el.get("y", 0)) for el in chart.iter(f"{SVG}rect") if el.get("class") == "ao-plot")
    (tiny_y,) = [y for c, tip, y in points if c == "ao-not-faster"]
    assert 0 < axis - tiny_y < 0.03 * (axis - top)
    titles = [t.text or "" for t in chart.iter(f"{SVG}title")]
    assert any("stated error: ±20%" in t for t in titles) and any(
        "noise band" in t and "1.0%" in t for t in titles
    )
    assert any(el.get("class") == "ao-best" for el in chart.iter(f"{SVG}path"))
    assert "better (a new best): 1" in page and "wrong: 2" in page and "refused: 1" in page


def test_a_slice_plot_per_knob_with_its_values(journal: EpisodeJournal) -> None:
    page = episode_report.render_html(episode_report.build(journal.folder.parents[2], journal.id))
    tile = _svg(page, "speedup against TILE")
    labels = [
        t.text for t in tile.iter(f"{SVG}text") if t.get("class") == "ao-tick" and "×" not in (t.text or "")
    ]
    assert [x for x in labels if x and x[0].isdigit()] == ["512", "1024", "2048", "4096", "8192"]
    assert {el.get("class") for el in tile.iter(f"{SVG}line")} >= {"ao-mark-baseline", "ao-mark-winner"}
    mode = _svg(page, "speedup against MODE")
    assert "a<b>" in [t.text for t in mode.iter(f"{SVG}text")]  # parsed back: it was escaped in the page
    assert "a<b>" not in page and "MODE=a&lt;b&gt;" in page


def test_profiles_side_by_side_with_a_roofline_verdict(journal: EpisodeJournal) -> None:
    report = episode_report.build(journal.folder.parents[2], journal.id)
    (base,), (win,) = report.baseline_profile, report.winner_profile
    floor = 3 * MB / soc_calibration(SOC).gm_peak_bytes_per_us
    assert base.memory_floor_us == pytest.approx(floor)
    assert base.roofline.startswith(f"at {floor / 10.0:.0%} of the memory floor")
    assert win.roofline.startswith(f"at {floor / 8.0:.0%} of the memory floor")
    assert "3.0 MB at 1.39 TB/s" in base.roofline and "estimate" in base.roofline
    page = episode_report.render_html(report)
    assert "Where the time goes: baseline and winner" in page
    assert "<th>baseline</th><th>winner</th>" in page
    for text in ("10.00 µs (estimate)", "8.00 µs (estimate), 1.25×", "MTE2 90% · V 20%", "memory-bound"):
        assert text in page, text
    assert "8 of 40 vector cores" in page and f"{KERNEL}:41 (70%)" in page
    md = episode_report.render_markdown(report)
    assert "## Where the time goes: baseline and winner" in md and "8 of 40 vector cores" in md


def test_every_finding_the_table_points_to_is_there_with_its_file_and_line(journal: EpisodeJournal) -> None:
    report = episode_report.build(journal.folder.parents[2], journal.id)
    page = episode_report.render_html(report)
    verdicts = {c.verdict: c for c in report.candidates}
    assert set(verdicts) == {"winner", "not faster", "wrong", "rejected", "compile error"}
    assert "(see findings)" in verdicts["wrong"].reason
    for verdict, where in (
        ("wrong", f"{KERNEL}:42"),
        ("rejected", f"{KERNEL}:57"),
        ("compile error", f"{KERNEL}:9"),
    ):
        row = report.candidates.index(verdicts[verdict])
        assert f'href="#findings-{row}"' in page and f'id="findings-{row}"' in page, verdict
        section = page.split(f'id="findings-{row}"')[1].split("<h3")[0]
        assert f"<td>{where}</td>" in section, (verdict, section)
    # compiler and sanitizer text as it is, escaped once
    assert "write past the UB end &lt;buf&gt; [with T = half]" in page
    assert "expected &#x27;;&#x27; [with T = half]" in page
    assert "block 3" in page
    md = episode_report.render_markdown(report)
    assert "## Findings of the candidates that did not count" in md and f"{KERNEL}:42" in md


def test_the_page_follows_the_editor_theme_and_fetches_nothing(journal: EpisodeJournal) -> None:
    page = episode_report.render_html(episode_report.build(journal.folder.parents[2], journal.id))
    assert "var(--vscode-editor-foreground" in page and "var(--vscode-editor-background" in page
    assert "@media (prefers-color-scheme: dark)" in page and "var(--vscode-charts-green" in page
    assert "<script" not in page and "<img" not in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # nothing from a CDN: opens offline


def test_the_campaign_page_has_each_search_and_links_its_episode_report(journal: EpisodeJournal) -> None:
    ws = journal.folder.parents[2]
    task = TaskEntry(
        operator="toy",
        root=ws,
        strategy="ours",
        episode=journal.id,
        status="done",
        result=TaskResult(
            message="1.25x", evaluations=9, baseline_correct=True, kind="estimate", noise=0.002
        ),
    )
    record = CampaignRecord(id="c1", settings=CampaignSettings(paths=[ws], budget=10), tasks=[task])
    folder = ws / ".ascendopt" / "campaigns" / "c1"
    folder.mkdir(parents=True)
    write_reports(record, folder, ws)
    page = (folder / "report.html").read_text()
    curve = _svg(page, "campaign c1")
    ticks = [
        t.text or ""
        for t in curve.iter(f"{SVG}text")
        if t.get("class") == "ao-tick" and "×" in (t.text or "")
    ]
    assert ticks[0] == "1.00×"
    assert any("stated error" in (t.text or "") for t in curve.iter(f"{SVG}title"))
    assert "Each operator&#x27;s search" in page or "Each operator's search" in page
    assert len(_points(_svg(page, "toy, episode e1-toy"))) == 9
    link = re.search(r'<a href="([^"]+)">episode report</a>', page)
    assert link is not None and (folder / link.group(1)).resolve() == journal.folder / "report.html"
    assert (journal.folder / "report.html").is_file()
    assert "data:image/png" not in page and (folder / "budget_curve.png").is_file()
