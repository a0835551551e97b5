"""The CPU twin as an Evaluator: build with g++, run every case sandboxed, compare with the reference."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from ascendopt.evaluation.compare import compare
from ascendopt.evaluation.cpu_twin.build import Builder, CompileError
from ascendopt.evaluation.cpu_twin.harness import SocModel, read_outputs, run_case, soc_model
from ascendopt.evaluation.cpu_twin.sandbox import Limits
from ascendopt.evaluation.records import CaseResult, Evaluation, PipeTime, Profile
from ascendopt.evaluation.reference import ReferenceError, load_reference, run_reference
from ascendopt.evaluation.tensors import make_input
from ascendopt.evaluation.timing.model import estimate
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class CpuTwinEvaluator:
    name = "cpu-twin"

    def __init__(
        self,
        builder: Builder | None = None,
        limits: Limits | None = None,
        soc: str | None = None,
        parallel: int | None = None,
    ) -> None:
        self.builder = builder or Builder()
        self.limits = limits or Limits()
        self.soc = soc
        self.parallel = parallel or max(1, os.cpu_count() or 1)

    def _soc(self, project: OperatorProject) -> SocModel:
        return soc_model(self.soc or (project.spec.soc if project.spec else "Ascend910B4"))

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int = 0,
        profile: bool = False,
    ) -> Evaluation:
        start = time.perf_counter()
        soc = self._soc(project)
        evaluation = Evaluation(
            candidate_id=candidate.id,
            operator=project.name,
            backend=self.name,
            hardware=f"x86 CPU twin (g++), platform model {soc.name}",
            seed=seed,
            status="ok",
        )
        if project.spec is None:
            evaluation.status = "error"
            evaluation.message = f"{project.name} has no ascendopt.toml; run `ascendopt init-spec` first"
            return evaluation
        with tempfile.TemporaryDirectory(prefix="ascendopt-twin-") as tmp:
            src_dir = Path(tmp) / "src"
            for rel, text in candidate.files.items():
                path = src_dir / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            try:
                reference = load_reference(
                    project.root, project.spec, candidate.files.get(project.spec.reference.split(":", 1)[0])
                )
                runners = await self._build_all(project, src_dir, candidate.files, cases)
            except CompileError as exc:
                evaluation.status = "compile_error"
                evaluation.compile_errors = exc.issues
                evaluation.message = f"{len(exc.issues)} compile error(s)"
                evaluation.wall_seconds = time.perf_counter() - start
                return evaluation
            except ReferenceError as exc:
                evaluation.status = "error"
                evaluation.message = str(exc)
                return evaluation
            sem = asyncio.Semaphore(self.parallel)

            async def one(case: ResolvedCase) -> CaseResult:
                async with sem:
                    return await self._run_one(
                        project,
                        case,
                        runners[_combo(case)],
                        reference,
                        seed,
                        soc,
                        Path(tmp) / f"case{case.index}",
                        src_dir,
                        profile,
                    )

            evaluation.cases = list(await asyncio.gather(*(one(c) for c in cases)))
        evaluation.wall_seconds = time.perf_counter() - start
        return evaluation

    async def _build_all(
        self, project: OperatorProject, src_dir: Path, files: dict[str, str], cases: list[ResolvedCase]
    ) -> dict[tuple[tuple[str, str], ...], Path]:
        combos = sorted({_combo(c) for c in cases})
        built = await asyncio.gather(
            *(self.builder.build(project, src_dir, files, dict(combo)) for combo in combos),
            return_exceptions=True,
        )
        errors = [b for b in built if isinstance(b, BaseException)]
        if errors:
            issues = [i for e in errors if isinstance(e, CompileError) for i in e.issues]
            if not issues:
                raise errors[0]
            raise CompileError(_unique(issues))
        return dict(zip(combos, built, strict=True))  # type: ignore[arg-type]

    async def _run_one(
        self,
        project: OperatorProject,
        case: ResolvedCase,
        runner: Path,
        reference: object,
        seed: int,
        soc: SocModel,
        work: Path,
        src_dir: Path,
        profile: bool,
    ) -> CaseResult:
        assert project.spec is not None
        spec = project.spec
        result = CaseResult(index=case.index, name=case.name, dtypes=dict(case.dtypes), status="error")
        inputs = {t.name: make_input(t, case, seed) for t in spec.inputs}
        try:
            expected = await asyncio.to_thread(run_reference, reference, spec, case, inputs)  # type: ignore[arg-type]
        except ReferenceError as exc:
            result.message = str(exc)
            return result
        shapes = {name: list(np.shape(v)) for name, v in expected.items()}
        run = await run_case(
            runner, project, case, inputs, shapes, soc, work, src_dir, self.limits, trace=profile
        )
        result.findings = run.findings
        result.block_dim = run.result.block_dim
        result.tiling_key = run.result.tiling_key
        result.ub_bytes_per_block = run.result.ub_bytes_per_block
        result.run_seconds = run.seconds
        if run.error:
            result.message = run.error
            return result
        actual = read_outputs(project, case, shapes, work)
        result.outputs = [
            compare(
                t.name,
                case.dtypes[t.name],
                actual[t.name],
                expected[t.name],
                spec.tolerance(case.dtypes[t.name]),
            )
            for t in spec.outputs
        ]
        errors = [f for f in run.findings if f.severity == "error"]
        wrong = [o.name for o in result.outputs if not o.passed]
        if profile and run.trace is not None and run.result.block_dim:
            result.profile = await asyncio.to_thread(
                profile_from_trace, run.trace, soc.name, run.result.block_dim
            )
        if not wrong and not errors:
            result.status = "passed"
        else:
            result.status = "failed"
            parts = []
            if wrong:
                parts.append(f"wrong output(s): {', '.join(wrong)}")
            if errors:
                parts.append(f"{len(errors)} sanitizer error(s)")
            result.message = "; ".join(parts)
        return result


def _combo(case: ResolvedCase) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(case.dtypes.items()))


def _unique(items: list) -> list:
    out = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


def profile_from_trace(trace: Path, soc: str, block_dim: int) -> Profile:
    """The timing model's estimate as the Evaluation's profile (labelled an estimate)."""
    est = estimate(trace, soc, block_dim)
    pipes = [
        PipeTime(pipe=col, time_us=est.pipes[col], ratio=est.pipes[col.replace("_time(us)", "_ratio")])
        for col in ("aiv_mte2_time(us)", "aiv_vec_time(us)", "aiv_mte3_time(us)", "aiv_scalar_time(us)")
        if col in est.pipes
    ]
    return Profile(
        duration_us=est.duration_us,
        kind="estimate",
        source=est.label,
        pipes=pipes,
        bound=est.bound,
        hot_lines=[f"{where} ({share:.0%})" for where, share in est.hot_lines[:5]],
    )
