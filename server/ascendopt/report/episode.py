"""The episode report: one episode read back from its journal, as a self-contained HTML page (the
editor shows the same page in a webview), Markdown or JSON.

It shows the outcome as the editor and the CLI state it (agent/outcome.py); the search: every
evaluation by verdict under the best-so-far line and the speedup against each knob (report/svg.py,
from 1.0 with the noise band and the timing model's stated error); where the time goes, baseline and
winner side by side (report/profiles.py: pipes, bound, blocks, hot lines, roofline); per case the
baseline against the candidate with their kind and backend; every candidate tried with its verdict
and reason, and the findings (file:line) of those that did not count; the lessons retrieved and
written; and the paired diff.
"""

from __future__ import annotations

import html
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ascendopt.agent.outcome import CaseResult, Outcome
from ascendopt.agent.tokens import journal_totals, price_from_env
from ascendopt.evaluation.records import Finding
from ascendopt.evaluation.timing.model import STATED_ERROR
from ascendopt.experience.bank import BANK_FILE, Bank
from ascendopt.journal import view as journal_view
from ascendopt.journal.events import EvaluationEvent, StartEvent
from ascendopt.journal.store import EpisodeJournal, episodes_dir, repo_patch_name
from ascendopt.journal.view import CandidateRow, CurvePoint, LessonRow, Measurement
from ascendopt.report import svg
from ascendopt.report.blocks import fmt_x, html_diff, html_page, html_table, md_diff, md_literal, md_table
from ascendopt.report.profiles import CaseProfile, case_profiles, side_by_side

Format = Literal["html", "md", "json"]
SUFFIX: dict[Format, str] = {"html": "report.html", "md": "report.md", "json": "report.json"}

CASE_HEADER = ["case", "baseline µs", "candidate µs", "speedup", "kind", "backend"]
CANDIDATE_HEADER = ["#", "origin", "change", "verdict", "speedup", "reason"]
LESSON_HEADER = ["lesson", "title", "operator", "from"]
CURVE_NOTE = "Search-time bests (before the final re-check with fresh inputs); the case table is re-checked."
FINDING_HEADER = ["severity", "kind", "where", "message", "count"]


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
    # The same patch with paths from the repository root around the operator (`git apply` there)
    repo_patch_file: str = ""
    repo_prefix: str = ""
    llm: str = ""  # the episode's LLM calls and tokens (and cost, with a price set)
    measurements: list[Measurement] = []  # the baseline's, its noise run's and the re-check's evaluations
    noise: float = 0.0  # the baseline's measured noise band
    threshold: float = 0.0  # what a new best had to beat the best so far by
    model_error: float | None = None  # the timing model's stated error (estimates only)
    baseline_knobs: dict[str, int | str] = {}
    baseline_profile: list[CaseProfile] = []
    winner_profile: list[CaseProfile] = []
    # The operator's own warnings (it counted, and they stay true of it): a write into an output's
    # alignment padding, a read of unwritten UB lanes, …
    baseline_warnings: list[Finding] = []


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
    estimated = view.baseline is None or view.baseline.timing_kind == "estimate"
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
        repo_patch_file=_repo_patch_file(journal, suggestion),
        repo_prefix=str(suggestion.get("repo_prefix") or ""),
        llm=llm_line(journal),
        measurements=view.measurements,
        noise=view.noise.band if view.noise else 0.0,
        threshold=view.noise.threshold if view.noise else 0.0,
        model_error=STATED_ERROR if estimated else None,
        baseline_knobs=_knobs(journal, start.baseline) if start else {},
        baseline_profile=case_profiles(view.baseline),
        winner_profile=case_profiles(view.winner),
        baseline_warnings=[f for f in view.baseline.findings() if f.severity == "warning"]
        if view.baseline
        else [],
    )


def _knobs(journal: EpisodeJournal, candidate: str) -> dict[str, int | str]:
    try:
        return dict(journal.load_candidate(candidate).knobs)
    except (OSError, ValueError):
        return {}


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


def _repo_patch_file(journal: EpisodeJournal, suggestion: dict[str, Any]) -> str:
    operator = suggestion.get("operator")
    path = journal.folder / repo_patch_name(str(operator)) if operator else None
    return str(path) if path is not None and path.is_file() else ""


def repo_patch_line(path: str, prefix: str) -> str:
    """Where the patch for the repository root is, said the same in the CLI and the reports."""
    return f"from the repository root: {path} (git apply there; paths start {prefix}/)"


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


def finding_rows(c: CandidateRow) -> list[list[str]]:
    return rows_of(c.findings)


def rows_of(findings: list[Finding]) -> list[list[str]]:
    return [
        [
            f.severity,
            f.kind,
            f"{f.file}:{f.line}" if f.file else "-",
            f.message,
            str(f.count) + (f" (block {f.block})" if f.block is not None else ""),
        ]
        for f in findings
    ]


def _with_findings(r: EpisodeReport) -> list[CandidateRow]:
    return [c for c in r.candidates if c.findings]


def _finding_title(c: CandidateRow) -> str:
    return f"#{c.evaluation or '-'} {c.origin}, {c.change or c.candidate}: {c.verdict}"


WARNINGS_NOTE = (
    "The sanitizer's warnings on the operator as it is, each at its file:line: none makes it wrong."
)
FINDINGS_NOTE = (
    "What made each candidate wrong or refused it: the sanitizer's findings (or its compile errors), "
    "each at its file:line in the candidate's files."
)
PROFILE_NOTE = (
    "Durations and pipe shares are the timing model's estimates where marked so (not measured). "
    "Pipes: busy share of the core that finishes last. Roofline: the memory floor is the case's input "
    "and output tensors moved once at the SoC's GM bandwidth; the vector floor is the V pipe's busy "
    'time on that core; "at N % of the floor" is the larger floor over the duration.'
)


def render_markdown(r: EpisodeReport) -> str:
    parts = [
        f"# Episode {r.episode}: {r.operator}",
        f"**{md_literal(headline(r))}**",
        "\n".join(f"- {md_literal(line)}" for line in (r.outcome.details if r.outcome else [])),
        md_literal(r.llm),
        "## Best speedup over evaluations",
        _curve_text(r),
        md_literal(bands_text(r)),
        CURVE_NOTE,
    ]
    if r.baseline_profile:
        parts += ["## Where the time goes: baseline and winner", md_literal(PROFILE_NOTE)]
        for case, rows in side_by_side(r.baseline_profile, r.winner_profile):
            parts += [f"### {md_literal(case)}", md_table(_side_header(r), rows)]
    parts += [
        "## Per case",
        md_table(CASE_HEADER, case_rows(r)),
        "## Every candidate tried",
        md_table(CANDIDATE_HEADER, candidate_rows(r)) if r.candidates else "none",
    ]
    if r.baseline_warnings:
        parts += [
            "## Warnings on the operator as it is",
            WARNINGS_NOTE,
            md_table(FINDING_HEADER, rows_of(r.baseline_warnings)),
        ]
    if found := _with_findings(r):
        parts += ["## Findings of the candidates that did not count", FINDINGS_NOTE]
        for c in found:
            parts += [f"### {md_literal(_finding_title(c))}", md_table(FINDING_HEADER, finding_rows(c))]
    parts += ["## Lessons", "Retrieved: " + ("none" if not r.retrieved else "")]
    if r.retrieved:
        parts.append(md_table(LESSON_HEADER, lesson_rows(r.retrieved)))
    parts.append("Written: " + ("none" if not r.written else ""))
    if r.written:
        parts.append(md_table(LESSON_HEADER, lesson_rows(r.written)))
    if r.patch:
        parts += ["## The paired diff", md_diff(r.patch)]
    if r.patch and r.repo_patch_file:
        parts.append(md_literal(repo_patch_line(r.repo_patch_file, r.repo_prefix)))
    return "\n\n".join(parts) + "\n"


def _curve_text(r: EpisodeReport) -> str:
    return ", ".join(f"{p.evaluations}: {p.best_speedup:.3f}x" for p in r.curve) or "no evaluation"


def _side_header(r: EpisodeReport) -> list[str]:
    return ["", "baseline", "winner"] if r.winner_profile else ["", "baseline"]


def bands_text(r: EpisodeReport) -> str:
    """What the shaded bands of the speedup charts are, in words."""
    text = (
        f"Noise band: a new best had to beat the best so far by {r.threshold:.1%} "
        f"(the larger of the minimum step and twice the measured noise, {r.noise:.1%})."
    )
    if r.model_error is not None:
        text += (
            f" Every duration here is an estimate: the timing model's stated error is ±{r.model_error:.0%} "
            "on a duration (README, timing fidelity), so a speedup inside it is a prediction to confirm "
            "on an NPU."
        )
    return text


def search_points(r: EpisodeReport) -> list[svg.Point]:
    """One point per evaluation: the baseline's and the re-check's measurements, every candidate's."""
    rechecked = r.outcome.geomean if r.outcome and r.outcome.status == "suggestion" else None
    points = []
    for m in r.measurements:
        y = rechecked if m.purpose == "recheck-winner" else 1.0
        tip = f"#{m.evaluation} {m.purpose}" + (f": {y:.3f}×" if y is not None else ", refused")
        points.append(svg.Point(m.evaluation, y, "measure", tip))
    for c in r.candidates:
        if c.evaluation is not None:
            speed = f", {c.speedup:.3f}×" if c.speedup is not None else ""
            tip = f"#{c.evaluation} {c.change}: {c.verdict}{speed}" + (f": {c.reason}" if c.reason else "")
            points.append(svg.Point(c.evaluation, c.speedup, svg.VERDICT_CLASS.get(c.verdict, "wrong"), tip))
    return points


def knob_slices(r: EpisodeReport) -> list[str]:
    """A slice plot per knob that took at least two values among the evaluated candidates."""
    bands = _bands(r)
    winner = next((c for c in r.candidates if c.verdict == "winner"), None)
    evaluated = [c for c in r.candidates if c.evaluation is not None and c.knobs]
    names = list(dict.fromkeys([*r.baseline_knobs, *(k for c in evaluated for k in c.knobs)]))
    out = []
    for knob in names:
        taken = [c for c in evaluated if knob in c.knobs]
        seen = {str(c.knobs[knob]) for c in taken} | (
            {str(r.baseline_knobs[knob])} if knob in r.baseline_knobs else set()
        )
        if len(seen) < 2:
            continue
        values = sorted(seen, key=_value_order)
        points = []
        if knob in r.baseline_knobs:
            points.append(svg.Point(str(r.baseline_knobs[knob]), 1.0, "measure", "the baseline"))
        points += [
            svg.Point(
                str(c.knobs[knob]),
                c.speedup,
                svg.VERDICT_CLASS.get(c.verdict, "wrong"),
                f"#{c.evaluation} {c.change}: {c.verdict}"
                + (f", {c.speedup:.3f}×" if c.speedup is not None else ""),
            )
            for c in taken
        ]
        marks = {}
        if winner is not None and knob in winner.knobs:
            marks[str(winner.knobs[knob])] = "winner"
        if knob in r.baseline_knobs:
            marks.setdefault(str(r.baseline_knobs[knob]), "baseline")
        out.append(svg.slice_plot(knob, values, points, bands, marks))
    return out


def _value_order(v: str) -> tuple[int, float, str]:
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def _bands(r: EpisodeReport) -> svg.Bands:
    return svg.Bands(noise=r.noise, threshold=r.threshold, model_error=r.model_error)


def _counts(points: list[svg.Point]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in points:
        out[p.cls] = out.get(p.cls, 0) + 1
    return out


def history_svg(r: EpisodeReport) -> str:
    return svg.history(
        search_points(r),
        [(p.evaluations, p.best_speedup) for p in r.curve],
        _bands(r),
        f"{r.operator}, episode {r.episode}: speedup of every evaluation and the best so far",
    )


def render_html(r: EpisodeReport) -> str:
    points = search_points(r)
    details = "".join(f"<li>{html.escape(line)}</li>" for line in (r.outcome.details if r.outcome else []))
    status = r.outcome.status if r.outcome else "running"
    regressions = {i for i, c in enumerate(r.cases) if c.regression}

    def lessons(rows: list[LessonRow]) -> str:
        return html_table(LESSON_HEADER, lesson_rows(rows)) if rows else "<p>none</p>"

    found = _with_findings(r)
    links = {(i, 5): f"findings-{i}" for i, c in enumerate(r.candidates) if c.findings}
    tried = (
        html_table(CANDIDATE_HEADER, candidate_rows(r), _bad_candidates(r), links)
        if r.candidates
        else "<p>none</p>"
    )
    findings = ""
    if found:
        index = {id(c): i for i, c in enumerate(r.candidates)}
        findings = (
            '<h2 id="findings">Findings of the candidates that did not count</h2>'
            f'<p class="note">{html.escape(FINDINGS_NOTE)}</p>'
            + "".join(
                f'<h3 id="findings-{index[id(c)]}">{html.escape(_finding_title(c))}</h3>'
                + html_table(FINDING_HEADER, finding_rows(c))
                for c in found
            )
        )
    warnings = (
        '<h2 id="warnings">Warnings on the operator as it is</h2>'
        f'<p class="note">{html.escape(WARNINGS_NOTE)}</p>'
        + html_table(FINDING_HEADER, rows_of(r.baseline_warnings))
        if r.baseline_warnings
        else ""
    )
    slices = knob_slices(r)
    slices_html = (
        "<h3>Speedup against each knob</h3>"
        + '<p class="note">One point per evaluated candidate at its value of the knob (the other knobs '
        "vary); dashed: the baseline's value, solid: the winner's.</p>"
        + f'<div class="ao-figs">{"".join(f"<figure>{x}</figure>" for x in slices)}</div>'
        if slices
        else ""
    )
    profile = ""
    if r.baseline_profile:
        header = _side_header(r)
        profile = (
            "<h2>Where the time goes: baseline and winner</h2>"
            f'<p class="note">{html.escape(PROFILE_NOTE)}</p>'
            + "".join(
                f"<h3>{html.escape(case)}</h3>{html_table(header, rows, cls='ao-side')}"
                for case, rows in side_by_side(r.baseline_profile, r.winner_profile)
            )
        )
    at_root = repo_patch_line(r.repo_patch_file, r.repo_prefix) if r.patch and r.repo_patch_file else ""
    at_root = f"<p>{html.escape(at_root)}</p>" if at_root else ""
    body = f"""<p class="status-{html.escape(status)}"><strong>{html.escape(headline(r))}</strong></p>
<ul>{details}</ul>
{f'<p class="note">{html.escape(r.llm)}</p>' if r.llm else ""}
<h2>The search: every evaluation and the best speedup so far</h2>
{svg.legend(_counts(points))}
<figure>{history_svg(r)}</figure>
<p class="note">{html.escape(bands_text(r))} Under the axis: evaluations slower than the baseline or
without a speedup (wrong, refused before timing). {html.escape(CURVE_NOTE)}</p>
{slices_html}
{profile}
<h2>Per case</h2>{html_table(CASE_HEADER, case_rows(r), regressions)}
<h2>Every candidate tried</h2>{tried}
{warnings}
{findings}
<h2>Lessons retrieved</h2>{lessons(r.retrieved)}
<h2>Lessons written</h2>{lessons(r.written)}
{"<h2>The paired diff</h2>" + html_diff(r.patch) if r.patch else ""}
{at_root}"""
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
