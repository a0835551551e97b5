"""Rewind mining: de-optimize a good operator one step at a time, keep the steps that measurably
hurt, and store each as a bad→good lesson with its measured delta and pipe evidence.

A step is kept only if it compiles, passes every case and is slower by more than the
measured noise; the chain continues from the degraded kernel (the paper's rewind).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation, noise_band
from ascendopt.experience.deoptimize import DEOPTIMIZATIONS, Deoptimization
from ascendopt.experience.records import CodeDiff, ExperienceEntry, KnobApplicator
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.files import files_diff, materialize
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase

MIN_SLOWDOWN = 0.02  # a step must cost at least 2 % (or twice the measured noise) to teach anything
# Cases above this many input elements are left out of mining: a de-optimized kernel (a scalar
# loop over every element) makes their trace, and the run, tens of times larger.
MAX_MINING_ELEMENTS = 1 << 20


class MinedStep(BaseModel):
    deoptimization: str
    family: str
    kept: bool
    reason: str
    slow_us: float | None = None
    fast_us: float | None = None
    slowdown: float | None = None  # slow / fast
    lesson_id: str | None = None


class MiningReport(BaseModel):
    operator: str
    cases: list[str] = Field(default_factory=list)
    evaluations: int = 0
    noise: float = 0.0
    steps: list[MinedStep] = Field(default_factory=list)
    lessons: list[ExperienceEntry] = Field(default_factory=list)


def mining_cases(cases: list[ResolvedCase]) -> list[ResolvedCase]:
    """The cases small enough to mine on; the smallest one if every case is large."""

    def size(c: ResolvedCase) -> int:
        return max(math.prod(shape) for shape in c.input_shapes.values())

    small = [c for c in cases if size(c) <= MAX_MINING_ELEMENTS]
    return small or [min(cases, key=size)]


def _total_us(ev: Evaluation) -> float | None:
    per_case = ev.durations()
    return None if per_case is None else math.fsum(per_case.values())


def _pipes(ev: Evaluation) -> dict[str, float]:
    slowest = max((c for c in ev.cases if c.profile), key=lambda c: c.profile.duration_us if c.profile else 0)
    assert slowest.profile is not None
    return {p.pipe: round(p.time_us, 3) for p in slowest.profile.pipes} | {
        p.pipe.replace("_time(us)", "_ratio"): round(p.ratio, 3) for p in slowest.profile.pipes
    }


class RewindMiner:
    def __init__(
        self,
        evaluator: Evaluator,
        budget: int = 20,
        seed: int = 0,
        on_step: Callable[[MinedStep], None] | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.budget = budget
        self.seed = seed
        self.on_step = on_step

    async def mine(self, project: OperatorProject) -> MiningReport:
        with tempfile.TemporaryDirectory(prefix="ascendopt-mine-") as views:
            return await self._mine(project, Path(views))

    async def _mine(self, project: OperatorProject, views: Path) -> MiningReport:
        if project.spec is None:
            raise ValueError(f"{project.name} has no usable ascendopt.toml")
        cases = mining_cases(project.spec.resolve_cases())
        report = MiningReport(operator=project.name, cases=[c.name for c in cases])

        async def measure(c: Candidate, seed: int) -> Evaluation:
            report.evaluations += 1
            return await self.evaluator.evaluate(project, c, cases, seed=seed, profile=True)

        current = baseline(project)
        first, second = await measure(current, self.seed), await measure(current, self.seed + 1)
        fast_us, again = _total_us(first), _total_us(second)
        if fast_us is None or again is None:
            raise ValueError(f"{project.name} does not pass verification as it is; mine a correct operator")
        report.noise = noise_band({"total": fast_us}, {"total": again})
        current_eval, view = first, project
        for step in DEOPTIMIZATIONS:
            if report.evaluations >= self.budget:
                break
            files = step.apply(view, current)
            if files is None or files == current.files:
                self._note(report, step, "does not apply to this operator")
                continue
            degraded = Candidate(operator=project.name, files=files, origin="user", parent=current.id)
            ev = await measure(degraded, self.seed)
            slow_us = _total_us(ev)
            threshold = max(MIN_SLOWDOWN, 2 * report.noise)
            if slow_us is None:
                self._note(report, step, f"the degraded kernel is not correct ({ev.status})")
                continue
            assert fast_us is not None
            figures = {"slow_us": slow_us, "fast_us": fast_us, "slowdown": slow_us / fast_us}
            if slow_us / fast_us < 1 + threshold:
                self._note(
                    report, step, f"only {slow_us / fast_us:.3f}x slower: within the noise band", figures
                )
                continue
            lesson = self._lesson(project, step, degraded, current, ev, current_eval, slow_us, fast_us)
            report.lessons.append(lesson)
            self._note(report, step, "kept", figures, lesson.id)
            # The rewind continues from the degraded kernel.
            current, current_eval, fast_us = degraded, ev, slow_us
            view = materialize(project, degraded, views)
        return report

    def _note(
        self,
        report: MiningReport,
        step: Deoptimization,
        reason: str,
        figures: dict[str, float] | None = None,
        lesson_id: str | None = None,
    ) -> None:
        mined = MinedStep(
            deoptimization=step.name,
            family=step.family,
            kept=lesson_id is not None,
            reason=reason,
            lesson_id=lesson_id,
            **(figures or {}),
        )
        report.steps.append(mined)
        if self.on_step:
            self.on_step(mined)

    @staticmethod
    def _lesson(
        project: OperatorProject,
        step: Deoptimization,
        slow: Candidate,
        fast: Candidate,
        slow_ev: Evaluation,
        fast_ev: Evaluation,
        slow_us: float,
        fast_us: float,
    ) -> ExperienceEntry:
        kernel = project.files.kernel
        kernel_diff = files_diff(slow.files, fast.files, lambda p: p == kernel)
        tiling = files_diff(slow.files, fast.files, lambda p: p != kernel)
        kind = fast_ev.timing_kind
        knob_kind = {"single_buffer": "buffer_num", "tiny_tiles": "tile_length", "fewer_cores": "block_dim"}
        applicator = None
        if step.name in knob_kind:
            applicator = KnobApplicator(
                knob_kind=knob_kind[step.name],
                value=2 if step.name == "single_buffer" else "max",
            )
        bound = next((c.profile.bound for c in slow_ev.cases if c.profile), None)
        return ExperienceEntry(
            title=step.title,
            family=step.family,
            bottleneck=step.bottleneck,
            bound=bound if bound in ("memory", "vector", "scalar", "sync", "launch") else None,
            summary=f"Rewound from {project.name}: undoing this made it {slow_us / fast_us:.2f}x slower.",
            expected_effect=f"{slow_us / fast_us:.2f}x on {project.name} ({kind})",
            code_diff=CodeDiff(kernel=kernel_diff, tiling=tiling or None),
            timing="measured" if kind == "measured" else "estimated",
            slow_us=slow_us,
            fast_us=fast_us,
            evidence_before=_pipes(slow_ev),
            evidence_after=_pipes(fast_ev),
            operator=project.name,
            layout=project.layout,
            dtypes=sorted({d for c in fast_ev.cases for d in c.dtypes.values()}),
            keywords=[step.name.replace("_", " ")],
            provenance="rewind",
            backend=fast_ev.backend,
            applicator=applicator,
        )
