"""One episode: baseline, then alternating kernel rewriting (with an LLM) and tiling search,
then an honest re-check of the winner and one paired suggestion.

The loop is a deterministic function of the seed and of what evaluations (and LLM calls)
returned; the ledger and the LLM recorder replay those from the journal, which is what
makes `--resume` and `replay` exact.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.agent.host_search import Assignment, HostSearch
from ascendopt.agent.kernel_rewrite import lesson_entry
from ascendopt.agent.ledger import BudgetExhausted, Ledger
from ascendopt.agent.openevolve_driver import OpenEvolveDriver
from ascendopt.agent.outcome import KernelRewriting, Outcome, Status, baseline_cases, cases_of
from ascendopt.agent.recheck import ExtraShape, extra_shapes, judge
from ascendopt.agent.rewrite import LessonSink, Rejection, RewriteContext, Rewriter
from ascendopt.agent.scoring import case_speedups, relative_score
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies import LLM_STRATEGIES, make_search
from ascendopt.agent.suggestion import CaseSpeedup, Suggestion, make_suggestion
from ascendopt.evaluation.audit import audit_change
from ascendopt.evaluation.evaluator import Precheck
from ascendopt.evaluation.records import Evaluation, Finding, noise_band
from ascendopt.experience.records import ExperienceEntry
from ascendopt.journal.events import (
    ConvergedEvent,
    DecisionEvent,
    EndEvent,
    KnobRejected,
    LessonProvisional,
    LessonStored,
    NoiseEvent,
    RecheckShapes,
    RewriteAccepted,
    RewriteRejected,
    RewriteSkipped,
    StartEvent,
)
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate, KnobError, apply_knobs, baseline
from ascendopt.operators.files import materialize
from ascendopt.operators.issues import blocking
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase

FRESH_SEED_OFFSET = 7919  # the final re-check draws inputs no search step has seen


class Progress(BaseModel):
    episode: str
    operator: str
    used: int
    budget: int
    phase: str
    best_speedup: float | None
    message: str


class EpisodeOutcome(BaseModel):
    episode: str
    operator: str
    suggestion: Suggestion | None
    message: str
    cancelled: bool = False
    evaluations: int = 0
    baseline_us: dict[str, float] = {}
    best_speedup: float | None = None
    kernel_rewriting: str = ""  # what happened on the kernel side, in words
    recheck: list[ExtraShape] = []  # the final re-check's extra shapes: checked, skipped and why
    outcome: Outcome | None = None  # the same, as every front end renders it (agent/outcome.py)


class Episode:
    def __init__(
        self,
        project: OperatorProject,
        settings: EpisodeSettings,
        ledger: Ledger,
        journal: EpisodeJournal,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: asyncio.Event | None = None,
        kernel: Rewriter | None = None,
        kernel_note: str = "",
        tiling: Rewriter | None = None,
        precheck: Precheck | None = None,
        lesson_knobs: list[Assignment] | None = None,
        lessons: LessonSink | None = None,
        evolve: OpenEvolveDriver | None = None,
    ) -> None:
        if project.spec is None:
            raise ValueError(f"{project.name} has no usable ascendopt.toml")
        self.project = project
        self.settings = settings
        self.ledger = ledger
        self.journal = journal
        self.on_progress = on_progress
        self.cancel = cancel or asyncio.Event()
        self.kernel = kernel
        self.kernel_note = kernel_note
        self.kernel_stopped = False  # the rewriter gave up mid-episode (kernel_note says why)
        self.tiling = tiling  # the LLM's tiling mutants, one per tiling phase
        self.precheck = precheck  # runs a candidate's tiling program alone before an evaluation is spent
        self.lesson_knobs = lesson_knobs or []
        self.lessons = lessons  # where accepted kernel rewrites go as lessons
        self.evolve = evolve  # the openevolve baseline's driver
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
        self.kernel_base: Candidate = (
            self.base
        )  # the kernel the tiling search tunes; moves on accepted rewrites
        self._views: dict[str, OperatorProject] = {self.base.id: project}
        self._searches: dict[str, HostSearch] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="ascendopt-views-")
        self._provisional: list[tuple[ExperienceEntry, LessonSink]] = []

    # -- helpers -----------------------------------------------------------------------------

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

    async def try_rewrite(self, candidate: Candidate, kind: str) -> Evaluation | None:
        """Evaluate an LLM rewrite (kind "kernel" or "tiling"); its evaluation if accepted, else None
        with the reason journaled as `<kind>.rejected`."""
        evaluation, accepted = await self.judge_rewrite(candidate, kind)
        return evaluation if accepted else None

    async def judge_rewrite(self, candidate: Candidate, kind: str) -> tuple[Evaluation | None, bool]:
        """(its evaluation, or None if it was refused before one; accepted?)"""
        if candidate.llm_written and (refusals := audit_change(self.base.files, candidate.files)):
            # Refused before anything is built: tried and wrong, no evaluation spent.
            self.tried += 1
            self.wrong += 1
            more = f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else ""
            self.journal.append(
                RewriteRejected(
                    type=f"{kind}.rejected",
                    candidate=candidate.id,
                    stage="audit",
                    reason=refusals[0].text() + more,
                )
            )
            return None, False
        try:  # a rewrite the operator's discovery cannot read back could never be tuned further
            self.view(candidate)
        except (KeyError, ValueError, OSError) as exc:
            self.journal.append(
                RewriteRejected(
                    type=f"{kind}.rejected",
                    candidate=candidate.id,
                    stage="read",
                    reason=f"the rewritten operator: {exc}",
                )
            )
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
        self.journal.append(
            RewriteRejected(
                type=f"{kind}.rejected",
                candidate=candidate.id,
                stage="evaluate",
                reason=reason or "not faster beyond the noise band",
            )
        )
        return evaluation, False

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

    async def rewrite(self, rewriter: Rewriter, from_baseline: bool = False) -> Candidate | None:
        """Ask `rewriter` for a rewrite of the best candidate (or of the baseline: best-of-n's
        independent samples); evaluate it, and accept it or not. An accepted rewrite becomes the
        kernel the tiling search tunes (and, from the kernel rewriter, a lesson)."""
        parent, parent_eval = (self.base, self.base_eval) if from_baseline else (self.best, self.best_eval)
        assert parent_eval is not None
        kind = rewriter.kind
        context = RewriteContext(
            project=self.project,
            view=self.view(parent),
            cases=self.cases,
            note=self.journal.append,
            progress=self.progress,
        )
        proposal = await rewriter.propose(parent, parent_eval, context)
        if proposal is None:
            return None
        if isinstance(proposal, Rejection):
            if proposal.stage == "llm":
                self.journal.append(RewriteSkipped(type=f"{kind}.skipped", reason=proposal.reason))
            else:
                self.journal.append(
                    RewriteRejected(type=f"{kind}.rejected", reason=proposal.reason, stage="apply")
                )
            if proposal.stop:
                self.kernel_note = proposal.stop
                self.kernel_stopped = kind == "kernel"
                self.journal.append(RewriteSkipped(type=f"{kind}.disabled", reason=proposal.stop))
            return None
        candidate = proposal.candidate
        evaluation = await self.try_rewrite(candidate, kind)
        if evaluation is None:
            return None
        self.kernel_base = candidate
        self.journal.append(
            RewriteAccepted(type=f"{kind}.accepted", candidate=candidate.id, bottleneck=proposal.bottleneck)
        )
        if proposal.lesson is not None and self.lessons is not None:
            entry = lesson_entry(self.project, parent, parent_eval, candidate, evaluation, proposal.lesson)
            self.provisional_lesson(entry, self.lessons)
        return candidate

    # -- the loop ----------------------------------------------------------------------------

    async def run(self) -> EpisodeOutcome:
        try:
            return await self._run()
        finally:
            self._tmp.cleanup()

    async def _run(self) -> EpisodeOutcome:
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
        second = await self.measure(self.base, "noise", seed=s.seed + 1)
        self.noise = noise_band(base_us, second.durations() or base_us)
        self.journal.append(NoiseEvent(band=self.noise, threshold=self.threshold))
        search_budget = s.budget - s.recheck
        cancelled = False
        try:
            if s.strategy == "best-of-n":
                await self._best_of_n(search_budget)
            elif s.strategy == "openevolve":
                await self._openevolve(search_budget)
            knobs_too = s.strategy not in LLM_STRATEGIES
            while knobs_too and self.ledger.used < search_budget and not self.cancel.is_set():
                spent = self.ledger.used
                if self.kernel is not None and not s.tiling_only:
                    self.phase = "kernel rewriting"
                    for _ in range(s.kernel_steps):
                        if self.ledger.used >= search_budget or self.cancel.is_set():
                            break
                        await self.rewrite(self.kernel)
                self.phase = "tiling search"
                if self.tiling is not None and self.ledger.used < search_budget:
                    await self.rewrite(self.tiling)
                await self._tiling_phase(min(search_budget, self.ledger.used + s.tiling_steps))
                if self.ledger.used == spent:
                    self.journal.append(ConvergedEvent(message="no new candidate to try"))
                    break
        except BudgetExhausted:
            pass
        cancelled = self.cancel.is_set()
        return await self._conclude(cancelled)

    async def _best_of_n(self, search_budget: int) -> None:
        """The Best-of-N baseline: independent kernel rewrites of the baseline until the budget is
        spent, the best correct one kept; no tiling search, no lessons."""
        idle = 0  # rewrites that spent no evaluation (no edit, edit did not apply): stop after a few
        self.phase = "best-of-n rewriting"
        while self.kernel is not None and self.ledger.used < search_budget and not self.cancel.is_set():
            spent = self.ledger.used
            await self.rewrite(self.kernel, from_baseline=True)
            idle = idle + 1 if self.ledger.used == spent else 0
            if idle >= 3:
                self.journal.append(ConvergedEvent(message="no evaluable rewrite 3 times running"))
                return
            self.progress(f"{self.tried} rewrites judged")

    async def _openevolve(self, search_budget: int) -> None:
        """The OpenEvolve baseline: the package evolves the kernel file; each program it wants
        scored is evaluated here, through the ledger, as a kernel rewrite of the baseline."""
        if self.evolve is None:
            return
        kernel = self.project.files.kernel
        base_code = self.base.files[kernel]
        self.phase = "openevolve"

        async def judge(code: str) -> dict[str, float]:
            if code == base_code:  # its initial program: measured already
                return {"combined_score": 1.0, "correct": 1.0}
            if self.ledger.used >= search_budget or self.cancel.is_set():
                return {"combined_score": 0.0, "correct": 0.0}
            candidate = Candidate(
                operator=self.project.name,
                files={**self.base.files, kernel: code},
                knobs=self.base.knobs,
                origin="kernel_rewrite",
                parent=self.base.id,
                llm_written=True,
            )
            evaluation, _ = await self.judge_rewrite(candidate, "kernel")
            ok = evaluation is not None and evaluation.failure_reason() is None
            s = self.score(evaluation) if ok and evaluation is not None else None
            self.progress(f"{self.tried} OpenEvolve programs judged")
            return {"combined_score": 1 / s if s else 0.0, "correct": 1.0 if s else 0.0}

        with tempfile.TemporaryDirectory(prefix="ascendopt-openevolve-") as work:
            iterations = search_budget - self.ledger.used
            await self.evolve.run(base_code, Path(kernel).suffix, iterations, judge, Path(work), self.cancel)

    async def _tiling_phase(self, stop_at: int) -> None:
        parent = self.kernel_base
        view = self.view(parent)
        search = self._searches.get(parent.id)
        if search is None:  # one search per kernel: it remembers what it tried across phases
            search = self._searches[parent.id] = make_search(
                self.settings.strategy, view.knobs, self.settings.seed
            )
            search.tell(search.best, self.best_score if self.best.id == parent.id else None)
        while self.ledger.used < stop_at and not self.cancel.is_set():
            n = min(self.settings.batch, stop_at - self.ledger.used)
            proposals = search.propose(n, extra=self.lesson_knobs)
            if not proposals:
                return
            candidates = []
            for a in proposals:
                try:
                    candidates.append((a, apply_knobs(view, parent, a)))
                except KnobError as exc:
                    self.journal.append(KnobRejected(type="rejected", assignment=a, reason=str(exc)))
                    search.tell(a, None)
            candidates = await self._prechecked(candidates, search)
            results = await asyncio.gather(
                *(self.measure(c, "tiling") for _, c in candidates), return_exceptions=True
            )
            for (a, c), r in zip(candidates, results, strict=True):
                if isinstance(r, BudgetExhausted):
                    continue
                if isinstance(r, BaseException):
                    raise r
                search.tell(a, self.score(r))
                if self.consider(c, r, "tiling search"):
                    self.progress(f"new best {1 / self.best_score:.2f}x: {_assignment_text(a, view)}")
            self.progress(f"{len(search.scores)} tilings tried")

    async def _prechecked(
        self, candidates: list[tuple[Assignment, Candidate]], search: HostSearch
    ) -> list[tuple[Assignment, Candidate]]:
        """Drop the candidates whose tiling program fails on some case: no evaluation is spent on them."""
        if self.precheck is None:
            return candidates
        checks = await asyncio.gather(*(self.precheck(c) for _, c in candidates))
        kept = []
        for (a, c), check in zip(candidates, checks, strict=True):
            if check.ok:
                kept.append((a, c))
            else:
                search.tell(a, None)
                self.journal.append(
                    KnobRejected(type="precheck.rejected", candidate=c.id, assignment=a, reason=check.reason)
                )
        return kept

    async def _conclude(self, cancelled: bool) -> EpisodeOutcome:
        self.phase = "re-check"
        if self.best.id == self.base.id:
            if self.ledger.used <= 2 and not cancelled:  # the baseline and its noise run only
                knobs = len(self.project.knobs)
                why = "no tunable knob" if knobs == 0 else f"{knobs} knob(s) but no new assignment"
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
        assert self.project.spec is not None
        host = self.project.tiling.host_program if self.project.tiling else None
        fixed_by = (
            f"main.cpp fixes the shapes: the twin runs its own host program ({', '.join(host.calls)})"
            if host
            else None
        )
        extra, self.recheck_notes = extra_shapes(self.project.spec, self.cases, fixed_by=fixed_by)
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
        names = {c.name for c in self.cases}

        def spec_only(ev: Evaluation) -> Evaluation:
            return ev.model_copy(update={"cases": [c for c in ev.cases if c.name in names]})

        if added := new_findings(spec_only(best_eval), spec_only(base_eval)):
            why = f"the best candidate failed the re-check: {findings_reason(added)}"
            return self._finish(None, why, cancelled)
        speedups, geomean = case_speedups(spec_only(base_eval), spec_only(best_eval), self.noise)
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
        )
        self.journal.write_suggestion(suggestion, self.project.name, suggestion.patch())
        self._bank_lessons()
        return self._finish(suggestion, suggestion.summary, cancelled)

    def _finish(
        self,
        suggestion: Suggestion | None,
        message: str,
        cancelled: bool = False,
        speedups: list[CaseSpeedup] | None = None,
        status: Status = "no_gain",
    ) -> EpisodeOutcome:
        if suggestion is not None:
            status, speedups = "suggestion", suggestion.speedups
        elif cancelled:
            status = "cancelled"
        kind = self.base_eval.timing_kind if self.base_eval else "estimate"
        rewriting: KernelRewriting = "stopped" if self.kernel_stopped else "ran"
        if (self.kernel is None and self.evolve is None) or self.settings.tiling_only:
            rewriting = "skipped"
        record = Outcome(
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
        )
        outcome = EpisodeOutcome(
            episode=self.journal.id,
            operator=self.project.name,
            suggestion=suggestion,
            message=record.headline,
            cancelled=cancelled,
            evaluations=self.ledger.used,
            baseline_us=self.base_us,
            best_speedup=suggestion.geomean_speedup if suggestion else None,
            kernel_rewriting=self.kernel_note,
            recheck=self.recheck_notes,
            outcome=record,
        )
        self.journal.append(EndEvent(**outcome.model_dump(mode="json", exclude={"suggestion"})))
        self.journal.write_json("summary.json", outcome)
        self.phase = "done" if suggestion is not None else "done, no suggestion"
        self.ended, self.result_speedup = True, outcome.best_speedup
        self.progress(outcome.message)
        return outcome


def new_findings(evaluation: Evaluation, baseline: Evaluation | None) -> list[Finding]:
    """Findings (warnings included) a candidate has and its baseline has not.

    Compared by kind and message with the numbers taken out (lines move with every edit). A
    warning the user may live with in their own code is an error for a candidate: a pipe
    hazard it introduces (removing a sync the compiler would put back is no speedup), raw GM
    pointer work the twin neither checks nor times, a write into an input, a cast overflow.
    """
    if baseline is None:
        return []
    known = {_finding_key(f) for f in baseline.findings()}
    out: list[Finding] = []
    for f in evaluation.findings():
        if _finding_key(f) not in known and all(_finding_key(f) != _finding_key(o) for o in out):
            out.append(f)
    return out


def findings_reason(added: list[Finding]) -> str:
    first = added[0]
    where = f" at {first.file}:{first.line}" if first.file else ""
    more = f" (and {len(added) - 1} more)" if len(added) > 1 else ""
    return f"introduces {first.kind}{where} that the baseline does not have: {first.message}{more}"


def _finding_key(f: Finding) -> tuple[str, str]:
    return f.kind, re.sub(r"\d+", "#", f.message)


def _assignment_text(a: Assignment, view: OperatorProject) -> str:
    current = {k.name: k.current for k in view.knobs}
    return ", ".join(f"{k}={v}" for k, v in a.items() if current.get(k) != v) or "as is"
