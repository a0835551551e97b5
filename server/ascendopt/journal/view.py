"""What an episode's journal says, read back for reports: the best speedup after each evaluation,
every candidate with its verdict and reason, the lessons retrieved and written.

The episode report shows these one by one; the campaign counts them (rejections by class, the
budget curve). Both read them from here, so a verdict is classified once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from ascendopt.evaluation.records import Evaluation, Finding
from ascendopt.experience.records import ExperienceEntry
from ascendopt.journal.events import (
    DecisionEvent,
    DiagnosisEvent,
    EndEvent,
    EvaluationEvent,
    KnobRejected,
    LessonOffered,
    LessonProvisional,
    LessonStored,
    NoiseEvent,
    RewriteRejected,
)
from ascendopt.journal.store import EpisodeJournal


class CurvePoint(BaseModel):
    evaluations: int
    best_speedup: float  # search-time best (before the final re-check)


Verdict = Literal[
    "winner",  # the suggestion: accepted and passed the re-check
    "accepted",  # a new best during the search (a later one beat it)
    "failed re-check",  # the best of the search, refused by the re-check with fresh inputs
    "slower",
    "not faster",  # faster than the baseline, but not beyond the noise band of the best so far
    "rejected",  # correct and faster, but introduces a finding its baseline lacks (a cheat, or a hazard)
    "compile error",
    "wrong",
    "pre-check",  # its tiling program fails a case; no evaluation spent
    "audit",  # an LLM rewrite adding what the static audit refuses (evaluation/audit.py); nothing built
    "not applicable",  # a knob assignment or an LLM edit that never became a candidate
]

# How the campaign report counts what did not count (report/campaign.py "What did not count").
REJECTION_CLASS: dict[str, str] = {
    "compile error": "does not compile",
    "wrong": "wrong result or sanitizer error",
    "rejected": "adds a finding its baseline lacks",
    "slower": "not faster beyond the noise band",
    "not faster": "not faster beyond the noise band",
    "pre-check": "tiling program fails a case (pre-check, no evaluation spent)",
    "audit": "adds code the audit refuses (nothing built, no evaluation spent)",
}
EDIT_NOT_APPLIED = "LLM edit does not apply"
KNOB_NOT_APPLICABLE = "knob value not applicable"

SEARCH_PURPOSES = ("baseline", "noise", "recheck-baseline", "recheck-winner")


class CandidateRow(BaseModel):
    candidate: str | None  # the candidate's id; None: it never became one
    origin: str  # tiling search / kernel rewrite / tiling rewrite / knob assignment / LLM edit
    change: str  # the knobs it sets, or what kind of edit it is
    verdict: Verdict
    reason: str = ""
    speedup: float | None = None  # search-time, against the baseline
    evaluation: int | None = None  # its evaluation's number (1-based); None: none spent
    rejection_class: str = ""  # the campaign's class for what did not count; "" if it counted
    knobs: dict[str, int | str] = {}  # every knob's value in the candidate (the slice plots' x)
    # What refused it or made it wrong, each at its file:line: the sanitizer's findings, or its
    # compile errors (kind "compile error"). Kept for the candidates that did not count.
    findings: list[Finding] = []


class LessonRow(BaseModel):
    lesson: str
    title: str = ""
    operator: str = ""
    provenance: str = ""
    stored: bool = False  # banked after the winner passed the re-check (else provisional only)
    time: datetime | None = None


class Measurement(BaseModel):
    """A paid evaluation that judged no candidate: the baseline, its noise run, the re-check's pair."""

    evaluation: int  # its number (1-based)
    purpose: str  # one of SEARCH_PURPOSES


class JournalView(BaseModel):
    curve: list[CurvePoint]
    measurements: list[Measurement] = []
    noise: NoiseEvent | None = None  # the baseline's measured noise and the acceptance threshold
    baseline: Evaluation | None = None  # the baseline's first evaluation (its profile)
    winner: Evaluation | None = None  # the winner's search-time evaluation (its profile)
    candidates: list[CandidateRow]
    retrieved: list[str]  # lesson ids offered to the LLM (diagnosis and lesson.offered), in order
    retrievals: list[tuple[str, datetime]] = []  # every offer of a lesson, with its time
    written: list[LessonRow]
    end: EndEvent | None = None


def budget_curve(journal: EpisodeJournal) -> list[CurvePoint]:
    """Best speedup found so far after each evaluation (search-time, before the re-check). A batch's
    decisions come after all its evaluations: a new best counts from its own evaluation on."""
    best: list[float] = []
    first: dict[str, int] = {}  # candidate -> the index of its first evaluation
    for event in journal.events():
        d = event.data
        if isinstance(d, EvaluationEvent):
            first.setdefault(d.candidate, len(best))
            best.append(best[-1] if best else 1.0)
        elif isinstance(d, DecisionEvent) and d.accepted and d.score:
            at = first.get(d.candidate, len(best) - 1)
            best[at:] = [max(b, 1.0 / d.score) for b in best[at:]]
    return [CurvePoint(evaluations=i + 1, best_speedup=b) for i, b in enumerate(best)]


def rejections(journal: EpisodeJournal) -> dict[str, int]:
    """Why candidates did not count, by class, for the campaign report."""
    counts = Counter(r.rejection_class for r in read(journal).candidates if r.rejection_class)
    return dict(counts)


def read(journal: EpisodeJournal) -> JournalView:
    rows: dict[str, CandidateRow] = {}  # the evaluated candidates, by id
    ordered: list[CandidateRow] = []  # every row, as it happened (those never evaluated included)
    decided: set[str] = set()  # candidates the greedy acceptance judged
    retrieved: list[str] = []
    retrievals: list[tuple[str, datetime]] = []
    written: dict[str, LessonRow] = {}
    end: EndEvent | None = None
    measurements: list[Measurement] = []
    noise: NoiseEvent | None = None
    evaluations: dict[str, Evaluation] = {}  # each candidate's first evaluation
    base_id: str | None = None
    used = 0
    for event in journal.events():
        d = event.data
        if isinstance(d, EvaluationEvent):
            used += 1
            if d.purpose in SEARCH_PURPOSES:
                measurements.append(Measurement(evaluation=used, purpose=d.purpose))
                base_id = base_id or (d.candidate if d.purpose == "baseline" else None)
            if d.candidate in evaluations:
                continue
            ev = evaluations[d.candidate] = Evaluation.model_validate(d.evaluation)
            if d.purpose in SEARCH_PURPOSES:
                continue
            change, knobs = _change(journal, d.candidate)
            row = CandidateRow(
                candidate=d.candidate, origin=d.purpose, change=change, verdict="wrong", knobs=knobs
            )
            row.evaluation = used
            if ev.status == "compile_error":
                row.verdict, row.reason = "compile error", ev.failure_reason() or ""
            elif not ev.correct:
                row.reason = ev.failure_reason() or "not correct"
            else:
                row.verdict = "not faster"  # until its decision says more
            rows[d.candidate] = row
            ordered.append(row)
        elif isinstance(d, NoiseEvent):
            noise = d
        elif isinstance(d, DecisionEvent):
            decided.add(d.candidate)
            judged = rows.get(d.candidate)
            if judged is None or judged.verdict in ("compile error", "wrong"):
                continue
            judged.origin = d.origin
            judged.speedup = 1.0 / d.score if d.score else None
            if d.accepted:
                judged.verdict, judged.reason = "accepted", "new best beyond the noise band"
            elif d.reason:
                judged.verdict, judged.reason = "rejected", d.reason
            elif d.score is not None and d.score > 1.0:
                judged.verdict, judged.reason = "slower", "slower than the baseline"
            elif d.score is not None:
                judged.reason = "not faster than the best so far beyond the noise band"
            else:
                judged.verdict, judged.reason = "wrong", "not correct, or no timing"
        elif isinstance(d, RewriteRejected):
            kind = d.type.split(".")[0]
            known = rows.get(d.candidate or "")
            if known is not None:
                known.origin = f"{kind} rewrite"
                if d.candidate not in decided and known.verdict == "not faster":
                    # correct, yet refused before any decision: a finding its baseline lacks, or no timing
                    known.verdict = "rejected" if "introduces" in d.reason else "wrong"
                    known.reason = d.reason
                continue
            ordered.append(
                CandidateRow(
                    candidate=d.candidate,
                    origin=f"{kind} rewrite",
                    change="LLM edit",
                    verdict="audit" if d.stage == "audit" else "not applicable",
                    reason=d.reason,
                )
            )
        elif isinstance(d, KnobRejected):
            text = ", ".join(f"{k}={v}" for k, v in d.assignment.items())
            verdict: Verdict = "pre-check" if d.type == "precheck.rejected" else "not applicable"
            ordered.append(
                CandidateRow(
                    candidate=d.candidate,
                    origin="tiling search",
                    change=text,
                    verdict=verdict,
                    reason=d.reason,
                )
            )
        elif isinstance(d, DiagnosisEvent | LessonOffered):
            offered = d.lessons if isinstance(d, DiagnosisEvent) else [d.lesson]
            retrievals += [(lesson, event.time) for lesson in offered]
            retrieved += [lesson for lesson in offered if lesson not in retrieved]
        elif isinstance(d, LessonProvisional):
            entry = ExperienceEntry.model_validate(d.entry)
            written[d.lesson] = LessonRow(
                lesson=d.lesson,
                title=entry.title,
                operator=entry.operator or "",
                provenance=entry.provenance,
                time=event.time,
            )
        elif isinstance(d, LessonStored) and d.lesson in written:
            written[d.lesson].stored, written[d.lesson].time = True, event.time
        elif isinstance(d, EndEvent):
            end = d
    winner = _settle_winner(journal, rows, end)
    candidates = ordered
    for r in candidates:
        r.rejection_class = _rejection_class(r)
        if r.candidate in evaluations and r.verdict in REFUSED:
            r.findings = _findings(evaluations[r.candidate])
    return JournalView(
        curve=budget_curve(journal),
        measurements=measurements,
        noise=noise,
        baseline=evaluations.get(base_id) if base_id else None,
        winner=evaluations.get(winner) if winner else None,
        candidates=candidates,
        retrieved=retrieved,
        retrievals=retrievals,
        written=list(written.values()),
        end=end,
    )


def _settle_winner(
    journal: EpisodeJournal, rows: dict[str, CandidateRow], end: EndEvent | None
) -> str | None:
    """The last accepted candidate is the search's best: the winner if it became the suggestion,
    else (when the re-check ran) the one the re-check refused. Returns the winner's id."""
    accepted = [r for r in rows.values() if r.verdict == "accepted"]
    if not accepted:
        return None
    suggestion = journal.read_json("suggestion.json")
    best = accepted[-1]
    if suggestion and suggestion.get("candidate_id") == best.candidate:
        best.verdict, best.reason = "winner", "passed the re-check with fresh inputs"
        return best.candidate
    if end is not None and "re-check" in end.message:
        best.verdict, best.reason = "failed re-check", end.message
    return None


def _rejection_class(r: CandidateRow) -> str:
    if r.verdict == "not applicable":
        return EDIT_NOT_APPLIED if r.change == "LLM edit" else KNOB_NOT_APPLICABLE
    return REJECTION_CLASS.get(r.verdict, "")


def _change(journal: EpisodeJournal, candidate_id: str) -> tuple[str, dict[str, int | str]]:
    """What the candidate changes, in words, and its knob values."""
    try:
        c = journal.load_candidate(candidate_id)
    except (OSError, ValueError):
        return "", {}
    if c.origin in ("kernel_rewrite", "tiling_rewrite"):
        return "LLM edit" + (f", {_knobs(c.knobs)}" if c.knobs else ""), dict(c.knobs)
    return _knobs(c.knobs) or "as is", dict(c.knobs)


# The verdicts of an evaluated candidate that did not count for what it found or broke.
REFUSED = ("compile error", "wrong", "rejected", "failed re-check")


def _findings(ev: Evaluation) -> list[Finding]:
    """What an evaluation that did not count found, each at its file:line."""
    if ev.status == "compile_error":
        return [
            Finding(
                kind="compile error",
                severity="warning" if i.severity != "error" else "error",
                message=i.message,
                file=i.file,
                line=i.line,
            )
            for i in ev.compile_errors
        ]
    return ev.findings()


def _knobs(knobs: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in knobs.items())
