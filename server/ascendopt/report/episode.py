"""The episode report: one episode read back from its journal, as a self-contained HTML page (the
editor shows the same page in a webview), Markdown or JSON.

It shows the outcome as the editor and the CLI state it (agent/outcome.py), the best speedup over
evaluations (inline SVG), per case the baseline against the candidate with their kind and backend,
every candidate tried with its verdict and reason, the lessons retrieved and written, and the
paired diff.
"""

from __future__ import annotations

import html
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ascendopt.agent.outcome import CaseResult, Outcome
from ascendopt.agent.tokens import journal_totals, price_from_env
from ascendopt.experience.bank import BANK_FILE, Bank
from ascendopt.journal import view as journal_view
from ascendopt.journal.events import EvaluationEvent, StartEvent
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.journal.view import CandidateRow, CurvePoint, LessonRow
from ascendopt.report.blocks import fmt_x, html_diff, html_page, html_table, md_diff, md_literal, md_table
from ascendopt.report.plots import EPISODE_AXES, inline_svg

Format = Literal["html", "md", "json"]
SUFFIX: dict[Format, str] = {"html": "report.html", "md": "report.md", "json": "report.json"}

CASE_HEADER = ["case", "baseline µs", "candidate µs", "speedup", "kind", "backend"]
CANDIDATE_HEADER = ["#", "origin", "change", "verdict", "speedup", "reason"]
LESSON_HEADER = ["lesson", "title", "operator", "from"]
CURVE_NOTE = "Search-time bests (before the final re-check with fresh inputs); the case table is re-checked."


class EpisodeReport(BaseModel):
    episode: str
    operator: str
    root: str
    settings: dict[str, Any]
    outcome: Outcome | None  # None: the episode has not ended (running, or it crashed)
    cases: list[CaseResult]
    backend: str
    curve: list[CurvePoint]
    candidates: list[CandidateRow]
    retrieved: list[LessonRow]
    written: list[LessonRow]
    patch: str = ""
    llm: str = ""  # the episode's LLM calls and tokens (and cost, with a price set)


def build(workspace: Path, episode: str) -> EpisodeReport:
    """KeyError if there is no such episode (the message lists the known ones)."""
    journal = EpisodeJournal.open(workspace, episode)
    view = journal_view.read(journal)
    start = next((e.data for e in journal.events("start") if isinstance(e.data, StartEvent)), None)
    outcome = None
    if view.end is not None and view.end.outcome is not None:
        with suppress(ValidationError):
            outcome = Outcome.model_validate(view.end.outcome)
    first = next((e.data for e in journal.events("evaluation") if isinstance(e.data, EvaluationEvent)), None)
    backend = outcome.backend if outcome else str(first.evaluation.get("backend", "")) if first else ""
    cases = outcome.cases if outcome else _baseline_cases(first)
    suggestion = journal.read_json("suggestion.json") or {}
    titles = _titles(workspace)
    return EpisodeReport(
        episode=journal.id,
        operator=start.operator if start else (outcome.operator if outcome else ""),
        root=start.root if start else "",
        settings=start.settings if start else {},
        outcome=outcome,
        cases=cases,
        backend=backend,
        curve=view.curve,
        candidates=view.candidates,
        retrieved=[titles.get(i, LessonRow(lesson=i)) for i in view.retrieved],
        written=view.written,
        patch=_patch(journal, suggestion),
        llm=llm_line(journal),
    )


def llm_line(journal: EpisodeJournal) -> str:
    """The episode's tokens in and out (ASCENDOPT_LLM_PRICE_IN/_OUT set: its cost); "" without calls."""
    total = journal_totals([e.data for e in journal.events("llm")], price_from_env())
    return total.line() if total.calls else ""


def _baseline_cases(first: EvaluationEvent | None) -> list[CaseResult]:
    if first is None:
        return []
    from ascendopt.evaluation.records import Evaluation

    ev = Evaluation.model_validate(first.evaluation)
    return [CaseResult(case=k, baseline_us=v, kind=ev.timing_kind) for k, v in (ev.durations() or {}).items()]


def _titles(workspace: Path) -> dict[str, LessonRow]:
    """The bank's lessons by id, read only if the bank exists (a report never creates one)."""
    if not (workspace / BANK_FILE).is_file():
        return {}
    with Bank.open(workspace, seed=False) as bank:
        return {
            e.id: LessonRow(lesson=e.id, title=e.title, operator=e.operator or "", provenance=e.provenance)
            for e in bank.all()
        }


def _patch(journal: EpisodeJournal, suggestion: dict[str, Any]) -> str:
    operator = suggestion.get("operator")
    if not operator:
        return ""
    path = journal.folder / f"{operator}.patch"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


# -- rendering -------------------------------------------------------------------------------------


def headline(r: EpisodeReport) -> str:
    return (
        r.outcome.headline
        if r.outcome
        else "not ended (still running, or interrupted: --resume continues it)"
    )


def case_rows(r: EpisodeReport) -> list[list[str]]:
    def us(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    return [
        [
            c.case,
            us(c.baseline_us),
            us(c.candidate_us),
            "-" if c.speedup is None else f"{c.speedup:.2f}×" + (" ▼ slower" if c.regression else ""),
            c.kind,
            r.backend,
        ]
        for c in r.cases
    ]


def candidate_rows(r: EpisodeReport) -> list[list[str]]:
    return [
        [str(c.evaluation or "-"), c.origin, c.change, c.verdict, fmt_x(c.speedup), c.reason]
        for c in r.candidates
    ]


def lesson_rows(rows: list[LessonRow]) -> list[list[str]]:
    return [
        [
            x.lesson[:12],
            x.title,
            x.operator,
            x.provenance + ("" if x.stored or not x.time else ", provisional"),
        ]
        for x in rows
    ]


def _bad_candidates(r: EpisodeReport) -> set[int]:
    return {i for i, c in enumerate(r.candidates) if c.rejection_class and c.verdict != "not faster"}


def render_markdown(r: EpisodeReport, plot_file: str | None = None) -> str:
    parts = [
        f"# Episode {r.episode}: {r.operator}",
        f"**{md_literal(headline(r))}**",
        "\n".join(f"- {md_literal(line)}" for line in (r.outcome.details if r.outcome else [])),
        md_literal(r.llm),
        "## Best speedup over evaluations",
        f"![best speedup]({plot_file})" if plot_file else _curve_text(r),
        CURVE_NOTE,
        "## Per case",
        md_table(CASE_HEADER, case_rows(r)),
        "## Every candidate tried",
        md_table(CANDIDATE_HEADER, candidate_rows(r)) if r.candidates else "none",
        "## Lessons",
        "Retrieved: " + ("none" if not r.retrieved else ""),
    ]
    if r.retrieved:
        parts.append(md_table(LESSON_HEADER, lesson_rows(r.retrieved)))
    parts.append("Written: " + ("none" if not r.written else ""))
    if r.written:
        parts.append(md_table(LESSON_HEADER, lesson_rows(r.written)))
    if r.patch:
        parts += ["## The paired diff", md_diff(r.patch)]
    return "\n\n".join(parts) + "\n"


def _curve_text(r: EpisodeReport) -> str:
    return ", ".join(f"{p.evaluations}: {p.best_speedup:.3f}x" for p in r.curve) or "no evaluation"


def render_html(r: EpisodeReport) -> str:
    svg = inline_svg(
        {"best so far": [(p.evaluations, p.best_speedup) for p in r.curve]},
        f"{r.operator}, episode {r.episode}",
        EPISODE_AXES,
    )
    details = "".join(f"<li>{html.escape(line)}</li>" for line in (r.outcome.details if r.outcome else []))
    status = r.outcome.status if r.outcome else "running"
    regressions = {i for i, c in enumerate(r.cases) if c.regression}

    def lessons(rows: list[LessonRow]) -> str:
        return html_table(LESSON_HEADER, lesson_rows(rows)) if rows else "<p>none</p>"

    tried = (
        html_table(CANDIDATE_HEADER, candidate_rows(r), _bad_candidates(r)) if r.candidates else "<p>none</p>"
    )
    body = f"""<p class="status-{html.escape(status)}"><strong>{html.escape(headline(r))}</strong></p>
<ul>{details}</ul>
{f'<p class="note">{html.escape(r.llm)}</p>' if r.llm else ""}
<h2>Best speedup over evaluations</h2>
<figure>{svg}</figure>
<p class="note">{html.escape(CURVE_NOTE)}</p>
<h2>Per case</h2>{html_table(CASE_HEADER, case_rows(r), regressions)}
<h2>Every candidate tried</h2>{tried}
<h2>Lessons retrieved</h2>{lessons(r.retrieved)}
<h2>Lessons written</h2>{lessons(r.written)}
{"<h2>The paired diff</h2>" + html_diff(r.patch) if r.patch else ""}"""
    return html_page(f"Episode {r.episode}: {r.operator}", body)


def render(r: EpisodeReport, fmt: Format) -> str:
    if fmt == "json":
        return r.model_dump_json(indent=2) + "\n"
    return render_markdown(r) if fmt == "md" else render_html(r)


def write(workspace: Path, episode: str, fmt: Format = "html", to: Path | None = None) -> Path:
    """Write the report (by default into the episode's folder) and return its path."""
    report = build(workspace, episode)
    journal = EpisodeJournal.open(workspace, episode)
    text = render(report, fmt)
    if to is None:
        return journal.write_text(SUFFIX[fmt], text)
    to.write_text(text, encoding="utf-8")
    return to


def page(workspace: Path, episode: str) -> str:
    """The HTML page of one episode: what `ascendopt report` writes and the editor's webview shows."""
    return render_html(build(workspace, episode))


def latest(workspace: Path, operator: str) -> str | None:
    """The newest episode of `operator` in the workspace (ids start with their UTC time)."""
    folder = episodes_dir(workspace)
    ids = sorted(p.name for p in folder.glob(f"*-{operator}-*") if p.is_dir()) if folder.is_dir() else []
    return next((i for i in reversed(ids) if "-replay-" not in i), None)
