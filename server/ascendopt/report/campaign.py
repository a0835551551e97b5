"""The campaign report: report.json (the numbers), report.md (with budget_curve.png) and report.html
(self-contained: the budget curve and each operator's search as inline SVG, each linking to its
episode report, written beside its journal), written beside campaign.json."""

from __future__ import annotations

import html
import os
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from ascendopt.campaign.metrics import (
    LevelSummary,
    StrategySummary,
    by_level,
    level_of,
    speedup_of,
    summarize,
    task_label,
)
from ascendopt.campaign.paper import PAPER, PaperFigures
from ascendopt.campaign.records import CampaignRecord, OperatorEntry, TaskEntry
from ascendopt.evaluation.timing.model import STATED_ERROR
from ascendopt.journal import view as journal_view
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.journal.view import LessonRow
from ascendopt.operators.task import skeleton_of
from ascendopt.report import episode as episode_report
from ascendopt.report import svg
from ascendopt.report.blocks import fmt_x as _x
from ascendopt.report.blocks import html_diff, html_page, html_table, md_diff, md_table
from ascendopt.report.plots import CAMPAIGN_AXES, budget_curve_png

CURVE_NOTE = (
    "Budget curves are search-time bests (before each episode's final re-check with fresh "
    "inputs); the speedups in the tables are the re-checked ones."
)


class OperatorRow(BaseModel):
    operator: str
    root: str
    strategy: str
    episode: str = ""
    status: str
    speedup: float | None
    evaluations: int
    kind: str
    outcome: str
    rejected: dict[str, int] = {}  # why candidates did not count, by class
    patch: str = ""  # the winning paired diff (tiling + kernel), when there is one
    noise: float = 0.0  # the baseline's measured noise band
    baseline_from: str = ""  # the episode whose baseline this one took (TaskEntry.baseline_from)


class TaskRow(BaseModel):
    """One operator across the campaign's strategies: does it verify, and the best any found."""

    task: str  # the benchmark task (`level1/Math/Sqrt`), else the operator's folder
    level: str  # "" outside a benchmark
    operator: str
    verified: str  # "yes", or why not
    baseline_us: float | None  # summed over the spec's cases
    kind: str  # estimate / measured
    best: float | None  # the best re-checked speedup of any strategy (1.0: none beat the baseline)
    best_by: str  # the strategy that found it
    change: str  # what its suggestion changed


class PaperSubset(BaseModel):
    """The tasks named among the paper's operators, summarised apart (or why not)."""

    note: str  # the paper's list and where it comes from, or why there is no subset
    tasks: int = 0
    strategies: list[StrategySummary] = []


class LearnedLesson(BaseModel):
    """A lesson the bank took during the campaign, and how often later episodes were offered it."""

    lesson: str
    title: str
    operator: str  # whose accepted rewrite (or rewind, for a mined lesson) produced it
    strategy: str
    provenance: str
    retrieved_after: int


class CampaignReport(BaseModel):
    campaign: str
    budget: int
    backend: str
    wall_s: float
    done: int = 0  # tasks (one operator under one strategy) done, of `total`
    total: int = 0
    failed: int = 0  # tasks whose episode crashed (run again when the campaign resumes)
    strategies: list[StrategySummary]
    operators: list[OperatorRow]
    not_run: list[tuple[str, str, str]]  # (operator, root, why)
    learned: list[LearnedLesson] = []
    tasks: list[TaskRow] = []
    levels: list[LevelSummary] = []  # [] outside a benchmark
    paper: PaperFigures = PAPER
    paper_subset: PaperSubset | None = None  # only for a benchmark campaign
    tiling_only: list[str] = []  # strategies none of whose episodes rewrote a kernel


def build_report(record: CampaignRecord, workspace: Path | None = None) -> CampaignReport:
    """`workspace`: where the episodes' journals are, for what the bank learned (none without it)."""
    levels = by_level(record)
    ran = [(t.strategy, t.result) for t in record.tasks if t.result and not t.settled_unrun]  # episodes
    return CampaignReport(
        campaign=record.id,
        budget=record.settings.budget,
        backend=record.settings.backend,
        wall_s=record.wall_s,
        done=sum(1 for t in record.tasks if t.status == "done"),
        total=len(record.tasks),
        failed=sum(1 for t in record.tasks if t.status == "failed"),
        strategies=summarize(record),
        operators=[_row(t) for t in record.tasks],
        not_run=[(o.name, str(o.root), o.reason) for o in record.operators if not o.usable],
        learned=learned(record, workspace) if workspace is not None else [],
        tasks=task_rows(record),
        levels=levels,
        paper=PAPER,
        paper_subset=paper_subset(record, PAPER) if levels else None,
        tiling_only=[
            s
            for s in record.settings.strategies
            if all(r.kernel_rewriting == "skipped" for by, r in ran if by == s)
            and any(by == s for by, _ in ran)
        ],
    )


def task_rows(record: CampaignRecord) -> list[TaskRow]:
    """Every operator found, once: verified or why not, its baseline, the best speedup and change.
    A benchmark task's skeleton is not a row of its own (it is listed under "Not run")."""
    return [
        _task_row(o, [t for t in record.tasks if (t.root, t.operator) == (o.root, o.name)])
        for o in record.operators
        if skeleton_of(o.root) is None
    ]


def _task_row(o: OperatorEntry, tasks: list[TaskEntry]) -> TaskRow:
    results = [t.result for t in tasks if t.result]
    verified = next((r for r in results if r.baseline_correct), None)
    if not o.usable:
        why = o.reason
    elif verified:
        why = "yes"
    elif results:
        why = f"no: {results[0].message}"
    else:
        why = next((f"task failed: {t.error}" for t in tasks if t.status == "failed"), "not run yet")
    scored = [(s, t) for t in tasks if (s := speedup_of(t)) is not None]
    best, by = max(scored, key=lambda x: x[0]) if scored else (None, None)
    return TaskRow(
        task=task_label(o.root),
        level=level_of(o.root),
        operator=o.name,
        verified=why,
        baseline_us=sum(verified.baseline_us.values()) if verified and verified.baseline_us else None,
        kind=(verified.kind or "estimate") if verified else "",
        best=best,
        best_by=by.strategy if by and by.result and by.result.speedup else "",
        change=by.result.change if by and by.result else "",
    )


def paper_subset(record: CampaignRecord, paper: PaperFigures) -> PaperSubset:
    if paper.operators is None:
        return PaperSubset(note=f"The paper's operator subset: {paper.operators_note}.")
    named = paper.operators

    def keep(t: TaskEntry) -> bool:
        return task_label(t.root).rsplit("/", 1)[-1] in named

    found = {task_label(t.root) for t in record.tasks if keep(t)}
    return PaperSubset(
        note=f"The tasks named among the paper's {len(named)} operators (list: {paper.source}).",
        tasks=len(found),
        strategies=summarize(record, keep),
    )


def learned(record: CampaignRecord, workspace: Path) -> list[LearnedLesson]:
    """Lessons stored by the campaign's episodes, each with the offers made after it was stored."""
    views = []
    for t in record.tasks:
        if (episodes_dir(workspace) / t.episode).is_dir():
            views.append((t, journal_view.read(EpisodeJournal.open(workspace, t.episode))))
    offers = [offer for _, v in views for offer in v.retrievals]
    return [
        LearnedLesson(
            lesson=w.lesson,
            title=w.title,
            operator=w.operator or t.operator,
            strategy=t.strategy,
            provenance=w.provenance,
            retrieved_after=_offers_after(offers, w),
        )
        for t, v in views
        for w in v.written
        if w.stored
    ]


def _offers_after(offers: list[tuple[str, datetime]], w: LessonRow) -> int:
    return sum(1 for lesson, at in offers if lesson == w.lesson and w.time is not None and at > w.time)


LEARNED_HEADER = ["lesson", "title", "from operator", "strategy", "provenance", "retrieved after"]


def learned_rows(report: CampaignReport) -> list[list[str]]:
    return [
        [x.lesson[:12], x.title, x.operator, x.strategy, x.provenance, str(x.retrieved_after)]
        for x in report.learned
    ]


LEARNED_NONE = "No lesson was stored (lessons come from accepted kernel rewrites; no LLM, no rewrites)."


def _row(t: TaskEntry) -> OperatorRow:
    r = t.result
    if r is None:
        outcome = t.error or t.status
    elif t.settled_unrun:
        outcome = f"not run: the baseline does not verify (measured once, by {t.baseline_from}): {r.message}"
    elif not r.baseline_correct:
        outcome = f"baseline does not verify: {r.message}"
    else:
        outcome = r.message
    return OperatorRow(
        operator=t.operator,
        root=str(t.root),
        strategy=t.strategy,
        episode=t.episode,
        status=t.status,
        speedup=speedup_of(t),
        evaluations=r.evaluations if r else 0,
        kind=(r.kind or "estimate") if r else "",
        outcome=outcome,
        rejected=r.rejected if r else {},
        patch=r.patch if r else "",
        noise=r.noise if r else 0.0,
        baseline_from=t.baseline_from,
    )


def summary_rows(report: CampaignReport) -> list[list[str]]:
    """The cross-operator table, as the CLI and both reports show it."""
    return strategy_rows(report.strategies)


def strategy_rows(strategies: list[StrategySummary]) -> list[list[str]]:
    return [
        [
            s.strategy,
            f"{s.correct}/{s.operators}",
            str(s.improved),
            _x(s.geomean),
            *(f"{v:.0%}" for v in s.fast_p.values()),
            str(s.evaluations),
        ]
        for s in strategies
    ]


def level_rows(report: CampaignReport) -> list[list[str]]:
    return [[lv.level, *row] for lv in report.levels for row in strategy_rows(lv.strategies)]


def task_table(report: CampaignReport) -> list[list[str]]:
    return [
        [
            t.task,
            t.verified,
            f"{t.baseline_us:.2f}" if t.baseline_us is not None else "",
            _x(t.best),
            t.best_by,
            t.change,
        ]
        for t in report.tasks
    ]


def paper_header(report: CampaignReport) -> list[str]:
    return ["", "paper (910B2, measured)", *(f"{s.strategy} (twin estimate)" for s in report.strategies)]


def paper_rows(report: CampaignReport) -> list[list[str]]:
    """The paper's figures beside ours: geomean by level, the share faster, the tiling-only ablation."""
    p = report.paper
    rows = [
        [f"geomean {lv.level}", _x(p.geomean.get(lv.level)), *(_x(s.geomean) for s in lv.strategies)]
        for lv in report.levels
    ]
    overall = report.levels[-1].strategies if report.levels else report.strategies
    rows.append(["faster (fast_1.0)", f"{p.fast_1:.0%}", *(f"{s.fast_p['1']:.0%}" for s in overall)])
    rows.append(
        [
            "tiling search only: geomean",
            _x(p.tiling_only),
            *(_x(s.geomean) if s.strategy in report.tiling_only else "-" for s in overall),
        ]
    )
    return rows


def partial_note(report: CampaignReport) -> str:
    """How far a campaign not finished is, and what its figures leave out; "" once every task is done."""
    left = sum(s.unsettled for s in report.strategies)
    if report.done >= report.total and not left:
        return ""
    counted = report.strategies[0].operators if report.strategies else 0
    failed = f", {report.failed} failed (they run again)" if report.failed else ""
    uncounted = f"; {left} episode(s) are not counted yet" if left else ""
    return (
        f"Partial: {report.done} of {report.total} tasks done{failed}. The figures are over the "
        f"{counted} operator(s) every strategy has finished{uncounted} (continue with "
        f"`ascendopt campaign --resume {report.campaign}`)."
    )


SHARED_NOTE = (
    "An operator's baseline is measured once, by its first episode: the other strategies' episodes "
    "take its baseline and noise runs (each still counts them in its budget), and a baseline that "
    "does not verify settles their tasks unrun (0 evaluations)."
)


def shared_note(report: CampaignReport) -> str:
    return SHARED_NOTE if any(o.baseline_from for o in report.operators) else ""


def paper_note(report: CampaignReport) -> str:
    p = report.paper
    text = (
        f"Paper: {p.measured} ({p.source}). Ours: estimates of the CPU twin's timing model; our levels "
        "are the benchmark's (each task's level folder), not the paper's split, and the operators, "
        "hardware and method differ: side by side, not one for one."
    )
    if report.tiling_only:
        text += f" {', '.join(report.tiling_only)} searched tiling only (no kernel rewriting ran)."
    if len(report.tiling_only) < len(report.strategies):
        text += " -: not a tiling-only run (kernel rewriting ran, or the campaign did not record it)."
    return text


TASK_HEADER = ["task", "verified", "baseline µs", "best", "by", "change"]
LEVEL_HEADER = [
    "level",
    "strategy",
    "correct",
    "improved",
    "geomean",
    "fast_1.0",
    "fast_1.2",
    "fast_2.0",
    "evals",
]


SUMMARY_HEADER = ["strategy", "correct", "improved", "geomean", "fast_1.0", "fast_1.2", "fast_2.0", "evals"]
REJECTED_HEADER = ["operator", "strategy", "reason", "count"]
OPERATOR_HEADER = ["operator", "strategy", "speedup", "evals", "kind", "outcome"]


def operator_rows(report: CampaignReport) -> list[list[str]]:
    rows = report.operators
    return [[o.operator, o.strategy, _x(o.speedup), str(o.evaluations), o.kind, o.outcome] for o in rows]


def render_markdown(report: CampaignReport, curve_png: str) -> str:
    table = md_table
    parts = [
        f"# Campaign {report.campaign}",
        f"Budget {report.budget} evaluations per operator and strategy (re-checks included), backend "
        f"`{report.backend}`, wall time {report.wall_s:.0f} s. Durations on the CPU twin are estimates.",
        "## Across operators",
        *filter(None, [partial_note(report)]),
        table(SUMMARY_HEADER, summary_rows(report)),
        "geomean over the operators whose baseline verifies (no suggestion counts 1.0); fast_p: share "
        "of all operators correct and more than p× faster.",
        f"![budget curve]({curve_png})",
        bands_note(report) + " " + CURVE_NOTE,
    ]
    if report.levels:
        parts += ["## By benchmark level", table(LEVEL_HEADER, level_rows(report))]
        parts += ["## Beside the paper", table(paper_header(report), paper_rows(report)), paper_note(report)]
    if report.paper_subset:
        parts += [report.paper_subset.note]
        if report.paper_subset.strategies:
            parts += [table(SUMMARY_HEADER, strategy_rows(report.paper_subset.strategies))]
    parts += [
        "## Per task",
        table(TASK_HEADER, task_table(report)),
        "baseline: summed over the spec's cases (twin: estimated); best: the best re-checked speedup of "
        "any strategy.",
        "## Per operator and strategy",
        table(OPERATOR_HEADER, operator_rows(report)),
        *filter(None, [shared_note(report)]),
    ]
    rejected = rejected_rows(report)
    if rejected:
        parts += ["## What did not count, and why", table(REJECTED_HEADER, rejected)]
    for o in report.operators:
        if o.patch:
            parts += [f"### {o.operator} ({o.strategy}): {_x(o.speedup)}", md_diff(o.patch)]
    bank = table(LEARNED_HEADER, learned_rows(report)) if report.learned else LEARNED_NONE
    parts += ["## What the bank learned", bank]
    if report.not_run:
        parts += ["## Not run", table(["operator", "root", "why"], [list(r) for r in report.not_run])]
    return "\n\n".join(parts) + "\n"


def rejected_rows(report: CampaignReport) -> list[list[str]]:
    ops = report.operators
    return [[o.operator, o.strategy, why, str(n)] for o in ops for why, n in sorted(o.rejected.items())]


class Search(BaseModel):
    """One operator's search as the campaign page shows it: its history chart and its report."""

    operator: str
    strategy: str
    chart: str  # inline SVG
    link: str  # the episode report, relative to the campaign's folder


def bands(report: CampaignReport) -> svg.Bands:
    """What the budget curve shades from 1.0: the largest measured noise band of the operators'
    baselines and, when the durations are estimates, the timing model's stated error."""
    estimated = any(o.kind == "estimate" for o in report.operators)
    return svg.Bands(
        noise=max((o.noise for o in report.operators), default=0.0),
        threshold=0.0,
        model_error=STATED_ERROR if estimated else None,
    )


def curve_svg(report: CampaignReport) -> str:
    return svg.curves(
        {s.strategy: s.curve for s in report.strategies},
        bands(report),
        CAMPAIGN_AXES[0],
        f"campaign {report.campaign}: geomean best speedup per strategy",
    )


def bands_note(report: CampaignReport) -> str:
    b = bands(report)
    text = f"Shaded from 1.0: the largest measured noise band of the operators' baselines ({b.noise:.1%})"
    if b.model_error is not None:
        text += (
            f" and the timing model's stated error, ±{b.model_error:.0%} on a duration (README, timing "
            "fidelity): a speedup inside it is a prediction to confirm on an NPU"
        )
    return text + "."


def render_html(report: CampaignReport, searches: list[Search] | None = None) -> str:
    table = html_table
    rejected = rejected_rows(report)
    diffs = "".join(
        f"<h3>{html.escape(o.operator)} ({html.escape(o.strategy)}): {_x(o.speedup)}</h3>"
        + html_diff(o.patch)
        for o in report.operators
        if o.patch
    )
    rejected_html = (
        "<h2>What did not count, and why</h2>" + table(REJECTED_HEADER, rejected) if rejected else ""
    )
    not_run = (
        "<h2>Not run</h2>" + table(["operator", "root", "why"], [list(r) for r in report.not_run])
        if report.not_run
        else ""
    )
    each = ""
    if searches:
        each = (
            "<h2>Each operator's search</h2>"
            '<p class="note">Every evaluation by verdict under the best so far; the episode report '
            "has the speedup against each knob, the profiles side by side and the findings.</p>"
            + svg.legend()
            + '<div class="ao-figs">'
            + "".join(
                f"<div><h3>{html.escape(x.operator)} ({html.escape(x.strategy)})</h3>"
                f"<figure>{x.chart}</figure>"
                f'<p><a href="{html.escape(x.link)}">episode report</a></p></div>'
                for x in searches
            )
            + "</div>"
        )
    bank = table(LEARNED_HEADER, learned_rows(report)) if report.learned else f"<p>{LEARNED_NONE}</p>"
    levels_html = ""
    if report.levels:
        levels_html = (
            "<h2>By benchmark level</h2>"
            + table(LEVEL_HEADER, level_rows(report))
            + "<h2>Beside the paper</h2>"
            + table(paper_header(report), paper_rows(report))
            + f'<p class="note">{html.escape(paper_note(report))}</p>'
        )
    if report.paper_subset:
        levels_html += f"<p>{html.escape(report.paper_subset.note)}</p>"
        if report.paper_subset.strategies:
            levels_html += table(SUMMARY_HEADER, strategy_rows(report.paper_subset.strategies))
    body = f"""<p>Budget {report.budget} evaluations per operator and strategy (re-checks included), backend
<code>{html.escape(report.backend)}</code>, wall time {report.wall_s:.0f} s.
Durations on the CPU twin are estimates.</p>
<h2>Across operators</h2>{_note_html(partial_note(report))}{table(SUMMARY_HEADER, summary_rows(report))}
<p class="note">geomean over the operators whose baseline verifies (no suggestion counts 1.0);
fast_p: share of all operators correct and more than p× faster.</p>
<figure>{curve_svg(report)}</figure>
<p class="note">{html.escape(bands_note(report))} {html.escape(CURVE_NOTE)}</p>
{levels_html}
<h2>Per task</h2>{table(TASK_HEADER, task_table(report))}
<p class="note">baseline: summed over the spec's cases (twin: estimated); best: the best re-checked
speedup of any strategy.</p>
<h2>Per operator and strategy</h2>{table(OPERATOR_HEADER, operator_rows(report))}
{_note_html(shared_note(report))}
{each}
{rejected_html}{diffs}
<h2>What the bank learned</h2>{bank}
{not_run}"""
    return html_page(f"Campaign {report.campaign}", body)


def _note_html(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>' if text else ""


def searches(report: CampaignReport, folder: Path, workspace: Path) -> list[Search]:
    """Each operator's search whose journal is in `workspace`; its episode report written beside it."""
    out = []
    for o in report.operators:
        if not o.episode or not (episodes_dir(workspace) / o.episode).is_dir():
            continue
        er = episode_report.build(workspace, o.episode)
        path = episode_report.write(workspace, o.episode)
        out.append(
            Search(
                operator=o.operator,
                strategy=o.strategy,
                chart=episode_report.history_svg(er),
                link=Path(os.path.relpath(path, folder)).as_posix(),
            )
        )
    return out


def write_reports(record: CampaignRecord, folder: Path, workspace: Path | None = None) -> CampaignReport:
    report = build_report(record, workspace)
    curve = budget_curve_png(
        {s.strategy: s.curve for s in report.strategies}, f"campaign {record.id}", bands(report)
    )
    (folder / "budget_curve.png").write_bytes(curve)
    (folder / "report.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
    (folder / "report.md").write_text(render_markdown(report, "budget_curve.png"), encoding="utf-8")
    each = searches(report, folder, workspace) if workspace is not None else []
    (folder / "report.html").write_text(render_html(report, each), encoding="utf-8")
    return report
