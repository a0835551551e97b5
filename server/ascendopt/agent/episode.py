"""One episode: baseline, then alternating kernel rewriting (with an LLM) and tiling search,
then an honest re-check of the winner and one paired suggestion.

The loop is a deterministic function of the seed and of what evaluations (and LLM calls)
returned; the ledger and the LLM recorder replay those from the journal, which is what
makes `--resume` and `replay` exact.
"""

from __future__ import annotations

import asyncio
import math
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from ascendopt.agent.host_search import Assignment, HostSearch
from ascendopt.agent.ledger import BudgetExhausted, Ledger
from ascendopt.agent.scoring import case_speedups, durations, noise_band, relative_score
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies import make_search
from ascendopt.agent.suggestion import Suggestion, make_suggestion
from ascendopt.evaluation.cpu_twin.precheck import TilingCheck
from ascendopt.evaluation.records import Evaluation
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate, KnobError, apply_knobs, baseline
from ascendopt.operators.discovery import load_operator
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


class KernelStep(Protocol):
    """One diagnose → retrieve → rewrite → evaluate step (agent/kernel_rewrite.py)."""

    async def step(self, episode: Episode) -> Candidate | None: ...


class Episode:
    def __init__(
        self,
        project: OperatorProject,
        settings: EpisodeSettings,
        ledger: Ledger,
        journal: EpisodeJournal,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: asyncio.Event | None = None,
        kernel: KernelStep | None = None,
        kernel_note: str = "",
        tiling_llm: KernelStep | None = None,
        precheck: Callable[[Candidate], Awaitable[TilingCheck]] | None = None,
        lesson_knobs: list[Assignment] | None = None,
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
        self.tiling_llm = tiling_llm  # the LLM's tiling mutants, one per tiling phase
        self.precheck = precheck  # runs a candidate's tiling program alone before an evaluation is spent
        self.lesson_knobs = lesson_knobs or []
        self.cases: list[ResolvedCase] = project.spec.resolve_cases()
        self.base = baseline(project)
        self.base_us: dict[str, float] = {}
        self.best: Candidate = self.base
        self.best_eval: Evaluation | None = None
        self.best_score = 1.0
        self.noise = 0.0
        self.phase = "baseline"
        self.kernel_base: Candidate = (
            self.base
        )  # the kernel the tiling search tunes; moves on accepted rewrites
        self._views: dict[str, OperatorProject] = {self.base.id: project}
        self._searches: dict[str, HostSearch] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="ascendopt-views-")

    # -- helpers the kernel step uses too ----------------------------------------------------

    @property
    def threshold(self) -> float:
        return max(self.settings.min_improvement, 2 * self.noise)

    def progress(self, message: str) -> None:
        if self.on_progress:
            self.on_progress(
                Progress(
                    episode=self.journal.id,
                    operator=self.project.name,
                    used=self.ledger.used,
                    budget=self.settings.budget,
                    phase=self.phase,
                    best_speedup=(1 / self.best_score) if self.best_score else None,
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
        d = durations(evaluation)
        return None if d is None else relative_score(d, self.base_us)

    def consider(self, candidate: Candidate, evaluation: Evaluation, origin: str) -> bool:
        """Accept greedily on strict improvement beyond the noise band, after correctness."""
        s = self.score(evaluation)
        accepted = s is not None and s < self.best_score * (1 - self.threshold)
        self.journal.append(
            "decision",
            {
                "candidate": candidate.id,
                "origin": origin,
                "score": s,
                "best_score": self.best_score,
                "accepted": accepted,
            },
        )
        if accepted and s is not None:
            self.best, self.best_eval, self.best_score = candidate, evaluation, s
        return accepted

    async def try_rewrite(self, candidate: Candidate, kind: str) -> Evaluation | None:
        """Evaluate an LLM rewrite (kind "kernel" or "tiling"); its evaluation if accepted, else None
        with the reason journaled as `<kind>.rejected`."""
        evaluation = await self.measure(candidate, f"{kind} rewrite")
        reason = rejection(evaluation, self.score(evaluation))
        if reason is None and self.consider(candidate, evaluation, f"{kind} rewrite"):
            return evaluation
        self.journal.append(
            f"{kind}.rejected",
            {
                "candidate": candidate.id,
                "stage": "evaluate",
                "reason": reason or "not faster beyond the noise band",
            },
        )
        return None

    def view(self, candidate: Candidate) -> OperatorProject:
        """The operator as this candidate's files describe it (knob ranges move with kernel edits)."""
        if candidate.id not in self._views:
            root = Path(self._tmp.name) / candidate.id
            for rel, text in candidate.files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
            self._views[candidate.id] = load_operator(root, self.project.name)
        return self._views[candidate.id]

    # -- the loop ----------------------------------------------------------------------------

    async def run(self) -> EpisodeOutcome:
        try:
            return await self._run()
        finally:
            self._tmp.cleanup()

    async def _run(self) -> EpisodeOutcome:
        s = self.settings
        self.journal.append(
            "start",
            {
                "operator": self.project.name,
                "root": str(self.project.root),
                "settings": s.model_dump(),
                "baseline": self.base.id,
                "kernel_rewriting": self.kernel_note,
            },
        )
        self.journal.save_candidate(self.base)
        self.progress("measuring the baseline")
        first = await self.measure(self.base, "baseline")
        base_us = durations(first)
        if base_us is None:
            return self._finish(
                None,
                f"the operator as it is fails verification on {first.backend} "
                f"({_why(first)}); fix it before optimizing",
            )
        self.base_us, self.best_eval = base_us, first
        second = await self.measure(self.base, "noise", seed=s.seed + 1)
        self.noise = noise_band(base_us, durations(second) or base_us)
        self.journal.append("noise", {"band": self.noise, "threshold": self.threshold})
        search_budget = s.budget - s.recheck
        cancelled = False
        try:
            while self.ledger.used < search_budget and not self.cancel.is_set():
                spent = self.ledger.used
                if self.kernel is not None and not s.tiling_only:
                    self.phase = "kernel rewriting"
                    for _ in range(s.kernel_steps):
                        if self.ledger.used >= search_budget or self.cancel.is_set():
                            break
                        await self.kernel.step(self)
                self.phase = "tiling search"
                if self.tiling_llm is not None and self.ledger.used < search_budget:
                    await self.tiling_llm.step(self)
                await self._tiling_phase(min(search_budget, self.ledger.used + s.tiling_steps))
                if self.ledger.used == spent:
                    self.journal.append("converged", {"message": "no new candidate to try"})
                    break
        except BudgetExhausted:
            pass
        cancelled = self.cancel.is_set()
        return await self._conclude(cancelled)

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
                    self.journal.append("rejected", {"assignment": a, "reason": str(exc)})
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
                    "precheck.rejected", {"candidate": c.id, "assignment": a, "reason": check.reason}
                )
        return kept

    async def _conclude(self, cancelled: bool) -> EpisodeOutcome:
        self.phase = "re-check"
        if self.best.id == self.base.id:
            return self._finish(None, "no candidate beat the baseline beyond the noise band", cancelled)
        # Honest winner: fresh inputs on every case, baseline re-profiled the same way.
        self.progress("re-checking the winner with fresh inputs")
        fresh = self.settings.seed + FRESH_SEED_OFFSET
        self.ledger.budget = max(self.ledger.budget, self.ledger.used + 2)  # the re-check is never skipped
        cases = [*self.cases, *extra_shape(self.cases)]
        base_eval, best_eval = await asyncio.gather(
            self.ledger.evaluate(self.project, self.base, cases, seed=fresh, purpose="recheck-baseline"),
            self.ledger.evaluate(self.project, self.best, cases, seed=fresh, purpose="recheck-winner"),
        )
        if not best_eval.correct:
            return self._finish(
                None,
                f"the best candidate failed the re-check with fresh inputs ({_why(best_eval)})",
                cancelled,
            )
        # The extra shape checks correctness only: the speedup is the spec's cases'.
        speedups, geomean = case_speedups(base_eval, best_eval, self.noise, [c.name for c in self.cases])
        if geomean <= 1 + self.threshold:
            return self._finish(
                None, f"re-measured speedup {geomean:.3f}x is within the noise band", cancelled
            )
        label = best_eval.cases[0].profile.source if best_eval.cases and best_eval.cases[0].profile else ""
        suggestion = make_suggestion(
            operator=self.project.name,
            root=self.project.root,
            episode=self.journal.id,
            candidate_id=self.best.id,
            base_files=self.base.files,
            proposed_files=self.best.files,
            speedups=speedups,
            geomean=geomean,
            summary=f"{self.project.name}: {geomean:.2f}x faster (geomean of {len(speedups)} cases; {label})",
        )
        self.journal.write_json("suggestion.json", suggestion)
        return self._finish(suggestion, suggestion.summary, cancelled)

    def _finish(self, suggestion: Suggestion | None, message: str, cancelled: bool = False) -> EpisodeOutcome:
        outcome = EpisodeOutcome(
            episode=self.journal.id,
            operator=self.project.name,
            suggestion=suggestion,
            message=message,
            cancelled=cancelled,
            evaluations=self.ledger.used,
            baseline_us=self.base_us,
            best_speedup=suggestion.geomean_speedup if suggestion else None,
            kernel_rewriting=self.kernel_note,
        )
        self.journal.append("end", outcome.model_dump(mode="json", exclude={"suggestion"}))
        self.journal.write_json("summary.json", outcome)
        self.phase = "done"
        self.progress(message)
        return outcome


def extra_shape(cases: list[ResolvedCase]) -> list[ResolvedCase]:
    """One shape no search step saw, for the final re-check: the smallest case grown by one row and
    by an odd number of columns (a fresh tail). Only when every input has the same shape, so the
    new shape is one the operator accepts (row-wise ops with a gamma of the last dim are skipped)."""
    if not cases:
        return []
    small = min(cases, key=lambda c: math.prod(next(iter(c.input_shapes.values()))))
    shapes = list(small.input_shapes.values())
    if any(s != shapes[0] for s in shapes) or not shapes[0]:
        return []
    grown = [*shapes[0][:-1], shapes[0][-1] + 13]
    if len(grown) > 1:
        grown[0] += 1
    return [
        small.model_copy(
            update={
                "index": len(cases),
                "name": f"{small.name}+extra-shape",
                "input_shapes": {k: list(grown) for k in small.input_shapes},
            }
        )
    ]


def rejection(evaluation: Evaluation, score: float | None) -> str | None:
    """Why a rewrite cannot count, in words for the journal; None if it is correct and timed."""
    if evaluation.status == "compile_error":
        first = evaluation.compile_errors[0] if evaluation.compile_errors else None
        return f"does not compile: {first}" if first else "does not compile"
    if not evaluation.correct:
        bad = [c for c in evaluation.cases if c.status != "passed"]
        return f"wrong on case {bad[0].name}: {bad[0].message}" if bad else "sanitizer errors"
    return "no timing" if score is None else None


def _why(ev: Evaluation) -> str:
    if ev.status == "compile_error":
        first = ev.compile_errors[0] if ev.compile_errors else None
        return f"compile error{f' at {first.file}:{first.line}: {first.message}' if first else ''}"
    if ev.status != "ok":
        return ev.message
    bad = [c for c in ev.cases if c.status != "passed"]
    if bad:
        return f"case {bad[0].name}: {bad[0].message}"
    return "no timing"


def _assignment_text(a: Assignment, view: OperatorProject) -> str:
    current = {k.name: k.current for k in view.knobs}
    return ", ".join(f"{k}={v}" for k, v in a.items() if current.get(k) != v) or "as is"
