"""One episode: the baseline and its noise, then a search strategy (agent/strategies/: ours
alternates kernel rewriting with an LLM and tiling search) that proposes while the episode
measures, judges and keeps score, then an honest re-check of the winner and one outcome record
(agent/outcome.py) with at most one paired suggestion.

The loop is a deterministic function of the seed and of what evaluations (and LLM calls)
returned; the ledger and the LLM recorder replay those from the journal, which is what
makes `--resume` and `replay` exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.agent.findings import findings_reason, new_findings
from ascendopt.agent.ledger import BudgetExhausted, Ledger
from ascendopt.agent.outcome import KernelRewriting, Outcome, Status, baseline_cases, cases_of
from ascendopt.agent.recheck import ExtraShape, judge, recheck_shapes, spec_only
from ascendopt.agent.rewrite import LessonSink, Rewriter
from ascendopt.agent.rewriting import rewrite_step
from ascendopt.agent.scoring import case_speedups, relative_score
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies.base import SearchStrategy
from ascendopt.agent.strategies.ours import Ours
from ascendopt.agent.suggestion import CaseSpeedup, Suggestion, make_suggestion
from ascendopt.evaluation.audit import audit_change
from ascendopt.evaluation.evaluator import Precheck
from ascendopt.evaluation.records import Evaluation, TilingCheck, noise_band
from ascendopt.experience.records import ExperienceEntry
from ascendopt.journal.events import (
    DecisionEvent,
    EndEvent,
    LessonProvisional,
    LessonStored,
    NoiseEvent,
    RecheckShapes,
    RewriteRejected,
    StartEvent,
    _Event,
)
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators import domains
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.files import materialize, repo_prefix
from ascendopt.operators.issues import blocking
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase

FRESH_SEED_OFFSET = 7919  # the final re-check draws inputs no search step has seen
BASELINE_PURPOSES = ("baseline", "noise")  # `_run` measures the unchanged operator under these


class Progress(BaseModel):
    episode: str
    operator: str
    used: int
    budget: int
    phase: str
    best_speedup: float | None
    message: str


class Episode:
    def __init__(
        self,
        project: OperatorProject,
        settings: EpisodeSettings,
        ledger: Ledger,
        journal: EpisodeJournal,
        strategy: SearchStrategy | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: asyncio.Event | None = None,
        precheck: Precheck | None = None,
    ) -> None:
        """`strategy`: what searches (agent/strategies/); by default ours with no LLM and no bank."""
        if project.spec is None:
            raise ValueError(f"{project.name} has no usable ascendopt.toml")
        self.project = project
        self.settings = settings
        self.ledger = ledger
        self.journal = journal
        self.on_progress = on_progress
        self.cancel = cancel or asyncio.Event()
        self.strategy = strategy or Ours()
        self.kernel_note = self.strategy.note
        self.kernel_stopped = False  # the rewriter gave up mid-episode (kernel_note says why)
        self._precheck = precheck  # runs a candidate's tiling program alone before an evaluation is spent
        self.cases: list[ResolvedCase] = project.spec.resolve_cases()
        self.base = baseline(project)
        self.base_us: dict[str, float] = {}
        self.best: Candidate = self.base
        self.best_eval: Evaluation | None = None
        self.base_eval: Evaluation | None = None  # what a candidate's findings are held against
        self.best_score = 1.0
        self.noise = 0.0
        self.phase = "baseline"
        self.ended = False
        self.tried = 0  # candidates judged (tiling and rewrites), and how many of them were not correct
        self.wrong = 0
        self.recheck_notes: list[ExtraShape] = []
        self.result_speedup: float | None = None
        self.kernel_base: Candidate = self.base  # the kernel the tiling search tunes (moves on rewrites)
        self._views: dict[str, OperatorProject] = {self.base.id: project}
        # `budget` counts every evaluation: the baseline, its noise run, the search, the re-check.
        self.search_budget = settings.budget - settings.recheck
        self.noise_measured = True
        self.budget_note = ""  # set when the budget cannot try the whole knob space
        self._tmp = tempfile.TemporaryDirectory(prefix="ascendopt-views-")
        self._provisional: list[tuple[ExperienceEntry, LessonSink]] = []

    # -- the face a strategy gets (agent/strategies/base.py EpisodeFace) ---------------------------

    def budget_left(self) -> int:
        return self.search_budget - self.ledger.used

    def cancelled(self) -> bool:
        return self.cancel.is_set()

    def note(self, event: _Event) -> None:
        self.journal.append(event)

    async def precheck(self, candidate: Candidate) -> TilingCheck | None:
        return None if self._precheck is None else await self._precheck(candidate)

    def consider_tiling(self, candidate: Candidate, evaluation: Evaluation) -> bool:
        return self.consider(candidate, evaluation, "tiling search")

    @property
    def threshold(self) -> float:
        return max(self.settings.min_improvement, 2 * self.noise)

    def progress(self, message: str) -> None:
        """Report progress. Once ended, the figure is the suggestion's re-measured speedup, or none:
        a search best that produced no suggestion is not a result."""
        if self.on_progress:
            search_best = (1 / self.best_score) if self.best_score else None
            best = self.result_speedup if self.ended else search_best
            self.on_progress(
                Progress(
                    episode=self.journal.id,
                    operator=self.project.name,
                    used=self.ledger.used,
                    budget=self.settings.budget,
                    phase=self.phase,
                    best_speedup=best,
                    message=message,
                )
            )

    async def measure(self, candidate: Candidate, purpose: str, seed: int | None = None) -> Evaluation:
        return await self.ledger.evaluate(
            self.project,
            candidate,
            self.cases,
            seed=self.settings.seed if seed is None else seed,
            purpose=purpose,
        )

    def score(self, evaluation: Evaluation) -> float | None:
        d = evaluation.durations()
        return None if d is None else relative_score(d, self.base_us)

    def consider(self, candidate: Candidate, evaluation: Evaluation, origin: str) -> bool:
        """Accept greedily on strict improvement beyond the noise band, after correctness."""
        s = self.score(evaluation)
        self.tried += 1
        self.wrong += s is None
        added = new_findings(evaluation, self.base_eval)
        accepted = s is not None and s < self.best_score * (1 - self.threshold) and not added
        self.journal.append(
            DecisionEvent(
                candidate=candidate.id,
                origin=origin,
                score=s,
                best_score=self.best_score,
                accepted=accepted,
                reason=findings_reason(added) if added else None,
            )
        )
        if accepted and s is not None:
            self.best, self.best_eval, self.best_score = candidate, evaluation, s
        return accepted

    async def judge_rewrite(self, candidate: Candidate, kind: str) -> tuple[Evaluation | None, bool]:
        """(its evaluation, or None if it was refused before one; accepted?)"""
        if candidate.llm_written and (refusals := audit_change(self.base.files, candidate.files)):
            # Refused before anything is built: tried and wrong, no evaluation spent.
            self.tried += 1
            self.wrong += 1
            more = f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else ""
            self._rejected(candidate, kind, "audit", refusals[0].text() + more)
            return None, False
        try:  # a rewrite the operator's discovery cannot read back could never be tuned further
            self.view(candidate)
        except (KeyError, ValueError, OSError) as exc:
            self._rejected(candidate, kind, "read", f"the rewritten operator: {exc}")
            return None, False
        evaluation = await self.measure(candidate, f"{kind} rewrite")
        score = self.score(evaluation)
        added = new_findings(evaluation, self.base_eval)
        reason = (
            evaluation.failure_reason()
            or (findings_reason(added) if added else None)
            or ("no timing" if score is None else None)
        )
        if reason is None and self.consider(candidate, evaluation, f"{kind} rewrite"):
            return evaluation, True
        if reason is not None:  # consider() counts the ones it judges
            self.tried += 1
            self.wrong += 1
        self._rejected(candidate, kind, "evaluate", reason or "not faster beyond the noise band")
        return evaluation, False

    def _rejected(self, candidate: Candidate, kind: str, stage: str, reason: str) -> None:
        self.journal.append(
            RewriteRejected(type=f"{kind}.rejected", candidate=candidate.id, stage=stage, reason=reason)
        )

    def provisional_lesson(self, entry: ExperienceEntry, sink: LessonSink) -> None:
        """A lesson from an accepted step: journaled now, banked only once the winner passes the re-check."""
        entry = ExperienceEntry.model_validate(self.journal.scrubber.data(entry.model_dump(mode="json")))
        self._provisional.append((entry, sink))
        self.journal.append(LessonProvisional(lesson=entry.id, entry=entry.model_dump(mode="json")))

    def _bank_lessons(self) -> None:
        # Every accepted step lies on the winner's lineage (acceptance is greedy on the best so far).
        for entry, sink in self._provisional:
            sink.add(entry)
            self.journal.append(LessonStored(lesson=entry.id))
        self._provisional.clear()

    def view(self, candidate: Candidate) -> OperatorProject:
        """The operator as this candidate's files describe it (knob ranges move with kernel edits)."""
        if candidate.id not in self._views:
            self._views[candidate.id] = materialize(self.project, candidate, Path(self._tmp.name))
        return self._views[candidate.id]

    async def rewrite(
        self, rewriter: Rewriter, from_baseline: bool = False, lessons: LessonSink | None = None
    ) -> Candidate | None:
        """Ask `rewriter` for a rewrite of the best candidate (or of the baseline: best-of-n's
        independent samples); evaluate it, and accept it or not. An accepted rewrite becomes the
        kernel the tiling search tunes (and, with a lesson and a sink for it, a lesson)."""
        return await rewrite_step(self, rewriter, from_baseline, lessons)

    # -- the loop ----------------------------------------------------------------------------

    async def run(self) -> Outcome:
        try:
            return await self._run()
        finally:
            self._tmp.cleanup()

    async def _run(self) -> Outcome:
        s = self.settings
        self.journal.append(
            StartEvent(
                operator=self.project.name,
                root=str(self.project.root),
                settings=s.model_dump(),
                baseline=self.base.id,
                kernel_rewriting=self.kernel_note,
            )
        )
        self.journal.save_candidate(self.base)
        if refused := blocking(self.project.issues):
            # What verify refuses, optimize does not spend budget on (the reason is on its line).
            return self._finish(
                None,
                "the operator cannot be evaluated as it is: "
                + "; ".join(f"{i.file}:{i.line}: {i.message}" for i in refused),
            )
        self.progress("measuring the baseline")
        first = await self.measure(self.base, "baseline")
        base_us = first.durations()
        if base_us is None:
            return self._finish(
                None,
                f"the operator as it is fails verification on {first.backend} "
                f"({first.failure_reason() or 'no timing'}); fix it before optimizing",
                status="failed",
            )
        self.base_us, self.best_eval, self.base_eval = base_us, first, first
        self.noise_measured = s.budget >= 3 + s.recheck  # baseline, noise, one search step, re-check
        if self.noise_measured:
            second = await self.measure(self.base, "noise", seed=s.seed + 1)
            self.noise = noise_band(base_us, second.durations() or base_us)
        else:  # the smallest budgets: the re-check's re-profiled baseline gives the noise instead
            self.progress(f"budget {s.budget}: no separate noise run, so that one search step fits")
        self.journal.append(NoiseEvent(band=self.noise, threshold=self.threshold))
        self.budget_note = self._budget_note()
        if self.budget_note:
            self.progress(self.budget_note)
        with contextlib.suppress(BudgetExhausted):
            await self.strategy.search(self)
        return await self._conclude(self.cancel.is_set())

    def _budget_note(self) -> str:
        """One sentence when the search cannot try every point of the knob space within --budget."""
        size = domains.space_size(self.project.knobs) if self.project.knobs else 0
        s = self.settings
        overhead = 1 + self.noise_measured + s.recheck
        searchable = max(0, s.budget - overhead)
        if size - 1 <= searchable:  # the baseline is one of the points
            return ""
        spent = (
            "the baseline, its noise run and the re-check"
            if self.noise_measured
            else "the baseline and the re-check"
        )
        return (
            f"--budget {s.budget} leaves {searchable} evaluation(s) for the {size - 1} other point(s) of the "
            f"knob space ({spent} take {overhead}): the search samples it, a larger --budget tries more"
        )

    async def _conclude(self, cancelled: bool) -> Outcome:
        self.phase = "re-check"
        if self.best.id == self.base.id:
            if self.ledger.used <= 1 + self.noise_measured and not cancelled:  # the baseline (and noise) only
                knobs = len(self.project.knobs)
                took = "the baseline and its noise run" if self.noise_measured else "the baseline"
                why = (
                    "no tunable knob"
                    if knobs == 0
                    else f"{knobs} knob(s) but no new assignment within --budget {self.settings.budget} "
                    f"({took} took {self.ledger.used}, {self.settings.recheck} stay for the re-check): "
                    "run with a larger --budget"
                )
                # The outcome record adds whether kernel rewriting ran and why not.
                return self._finish(None, f"nothing to try: {why}", cancelled)
            tally = f"{self.tried} tried, {self.wrong} of them wrong or failed to build"
            if cancelled:  # the headline says "cancelled after N of M evaluations"
                return self._finish(None, f"{tally}; none beat the baseline", cancelled)
            return self._finish(None, f"no candidate beat the baseline beyond the noise band ({tally})")
        # Honest winner: fresh inputs on every case, baseline re-profiled the same way.
        self.progress("re-checking the winner with fresh inputs")
        fresh = self.settings.seed + FRESH_SEED_OFFSET
        self.ledger.budget = max(self.ledger.budget, self.ledger.used + 2)  # the re-check is never skipped
        extra, self.recheck_notes = recheck_shapes(self.project, self.cases)
        cases = [*self.cases, *extra]
        base_eval, best_eval = await asyncio.gather(
            self.ledger.evaluate(self.project, self.base, cases, seed=fresh, purpose="recheck-baseline"),
            self.ledger.evaluate(self.project, self.best, cases, seed=fresh, purpose="recheck-winner"),
        )
        failed = judge(base_eval, best_eval, [c.name for c in self.cases], self.recheck_notes)
        self.journal.append(RecheckShapes(shapes=[n.model_dump() for n in self.recheck_notes]))
        if best_eval.status != "ok" or failed is not None:
            return self._finish(
                None,
                f"the best candidate failed the re-check with fresh inputs "
                f"({failed if best_eval.status == 'ok' and failed else best_eval.failure_reason()})",
                cancelled,
            )
        # The extra shapes check correctness only: the speedup is the spec's cases'.
        base_spec, best_spec = spec_only(base_eval, self.cases), spec_only(best_eval, self.cases)
        if not self.noise_measured and (again := base_spec.durations()) is not None:
            self.noise = noise_band(self.base_us, again)
            self.journal.append(NoiseEvent(band=self.noise, threshold=self.threshold))
        if added := new_findings(best_spec, base_spec):
            why = f"the best candidate failed the re-check: {findings_reason(added)}"
            return self._finish(None, why, cancelled)
        speedups, geomean = case_speedups(base_spec, best_spec, self.noise)
        if geomean <= 1 + self.threshold:
            return self._finish(
                None, f"re-measured speedup {geomean:.3f}x is within the noise band", cancelled, speedups
            )
        label = next((c.profile.source for c in best_eval.cases if c.profile), "")
        suggestion = make_suggestion(
            operator=self.project.name,
            root=self.project.root,
            episode=self.journal.id,
            candidate_id=self.best.id,
            base_files=self.base.files,
            proposed_files=self.best.files,
            speedups=speedups,
            geomean=geomean,
            summary=f"{geomean:.2f}x faster (geomean of {len(speedups)} cases; {label})",
            places=self.project.repo.relocated if self.project.repo is not None else None,
            repo_prefix=repo_prefix(self.project.root),
        )
        self.journal.write_suggestion(
            suggestion, self.project.name, suggestion.patch(), suggestion.repo_patch()
        )
        self._bank_lessons()
        return self._finish(suggestion, suggestion.summary, cancelled)

    def _finish(
        self,
        suggestion: Suggestion | None,
        message: str,
        cancelled: bool = False,
        speedups: list[CaseSpeedup] | None = None,
        status: Status = "no_gain",
    ) -> Outcome:
        if suggestion is not None:
            status, speedups = "suggestion", suggestion.speedups
        elif cancelled:
            status = "cancelled"
        kind = self.base_eval.timing_kind if self.base_eval else "estimate"
        rewriting: KernelRewriting = "stopped" if self.kernel_stopped else "ran"
        if not self.strategy.rewrites_kernel or self.settings.tiling_only:
            rewriting = "skipped"
        outcome = Outcome(
            operator=self.project.name,
            episode=self.journal.id,
            status=status,
            reason=message,
            evaluations=self.ledger.used,
            budget=self.settings.budget,
            backend=self.base_eval.backend if self.base_eval else self.settings.backend,
            geomean=suggestion.geomean_speedup if suggestion else None,
            cases=cases_of(speedups) if speedups else baseline_cases(self.base_us, kind),
            kernel_rewriting=rewriting,
            kernel_note=self.kernel_note,
            llm_missing=rewriting == "skipped" and self.strategy.llm_missing,
            suggestion=suggestion,
            cancelled=cancelled,
            baseline_us=self.base_us,
            recheck=self.recheck_notes,
            budget_note=self.budget_note,
        )
        public = outcome.public()
        self.journal.append(EndEvent(**{k: v for k, v in public.items() if k != "suggestion"}))
        self.journal.write_text("summary.json", json.dumps(public, indent=2, ensure_ascii=False))
        self.phase = "done" if suggestion is not None else "done, no suggestion"
        self.ended, self.result_speedup = True, outcome.best_speedup
        self.progress(outcome.message)
        return outcome
