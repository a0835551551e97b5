"""The CPU twin as a toolchain: g++ builds against the twin's headers, the sandboxed runner per case.

Runs on any Runner: on this machine, or on an SSH host with g++ (the twin is mirrored
there once; the profile's timing model runs here on the trace brought back).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ascendopt.evaluation.cpu_twin.build import Builder, kernel_macros
from ascendopt.evaluation.cpu_twin.harness import run_case_on, run_main_case_on
from ascendopt.evaluation.cpu_twin.untimed import compiled_kernel_files, raw_gm_findings
from ascendopt.evaluation.records import Finding, PipeTime, Profile
from ascendopt.evaluation.runner import gather_settled
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.timing.model import estimate
from ascendopt.evaluation.toolchain import CaseJob, CaseOutcome, Combo, Slot
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.issues import CompileError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc, resolve_soc
from ascendopt.untrusted import reason


class CpuTwinToolchain:
    name = "cpu-twin"
    sandboxed = True

    def __init__(
        self,
        limits: Limits | None = None,
        soc: str | None = None,
        parallel: int | None = None,
        builders: dict[str, Builder] | None = None,
        case_parallel: Callable[[Slot], int] | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.soc = soc
        self.parallel = parallel or max(1, os.cpu_count() or 1)
        self._builders: dict[str, Builder] = dict(builders or {})
        self._case_parallel = case_parallel  # per slot (an SSH host's setting); default `parallel`

    def builder(self, slot: Slot) -> Builder:
        """One builder per machine: its object cache and locks are shared by that machine's slots."""
        if slot.runner.name not in self._builders:
            self._builders[slot.runner.name] = Builder(runner=slot.runner)
        return self._builders[slot.runner.name]

    def soc_for(self, slot: Slot, project: OperatorProject) -> Soc:
        return resolve_soc(self.soc, None, project.spec)  # the twin has no SoC of its own machine

    def case_parallel(self, slot: Slot) -> int:
        return self._case_parallel(slot) if self._case_parallel else self.parallel

    def hardware(self, slot: Slot, soc: Soc) -> str:
        where = "" if slot.host == "local" else f" on {slot.runner.name}"
        return f"x86 CPU twin (g++){where}, platform model {soc.name}"

    async def build(
        self,
        slot: Slot,
        project: OperatorProject,
        candidate: Candidate,
        src_dir: str,
        combos: list[Combo],
        soc: Soc,
    ) -> dict[Combo, Any]:
        builder = self.builder(slot)
        if runs_main(project):
            # main.cpp fixes the dtypes and shapes: one program serves every combination.
            built = list(await gather_settled(builder.build_main(project, src_dir, candidate.files, soc)))
            built *= len(combos)
        else:
            built = await gather_settled(
                *(builder.build(project, src_dir, candidate.files, dict(combo), soc) for combo in combos)
            )
        errors = [b for b in built if isinstance(b, BaseException)]
        if errors:
            issues = [i for e in errors if isinstance(e, CompileError) for i in e.issues]
            if not issues:
                raise errors[0]
            raise CompileError(_unique(issues))
        untimed = _untimed_sites(project, candidate, soc)
        return {
            combo: TwinArtifact(exe=str(exe), findings=[*builder.notes.get(str(exe), []), *untimed])
            for combo, exe in zip(combos, built, strict=True)
        }

    async def run_case(self, slot: Slot, artifact: Any, job: CaseJob) -> CaseOutcome:
        soc = job.soc
        profile, output_shapes = job.profile, job.output_shapes
        assert isinstance(artifact, TwinArtifact)
        run_on = run_main_case_on if runs_main(job.project) else run_case_on
        run, files = await run_on(slot.runner, artifact.exe, job, self.limits)
        divided = next((f for f in run.findings if f.kind == "divide_by_zero"), None)
        used = (
            await self._divide_result_used(slot, artifact, job, files, divided)
            if divided and not run.error
            else []
        )
        outcome = CaseOutcome(
            findings=[*run.findings, *used, *artifact.findings],
            block_dim=run.result.block_dim,
            tiling_key=run.result.tiling_key,
            ub_bytes_per_block=run.result.ub_bytes_per_block,
            seconds=run.seconds,
            error=run.error,
            outputs={
                name: data for name in output_shapes if (data := files.get(f"out_{name}.bin")) is not None
            },
        )
        trace = files.get("trace.jsonl")
        if profile and not run.error and trace and run.result.block_dim:
            try:
                outcome.profile = await asyncio.to_thread(
                    profile_from_trace, trace, soc.name, run.result.block_dim, run.result.cores_per_block
                )
            except Exception as exc:  # candidate-written data through the whole timing model: any failure
                outcome.error = f"unreadable trace: {reason(exc)}"
        return outcome

    async def _divide_result_used(
        self,
        slot: Slot,
        artifact: TwinArtifact,
        job: CaseJob,
        files: dict[str, bytes | None],
        divided: Finding,
    ) -> list[Finding]:
        """The case run again with another result for its integer divisions by zero (the NPU's result is
        undefined; x86 traps, and the twin carried on with 0): an error unless every output is the same
        bytes, so a division by zero passes only where its result does not matter."""
        again = dataclasses.replace(job, work=f"{job.work}.divide", profile=False, divide_value=DIVIDE_AGAIN)
        run_on = run_main_case_on if runs_main(job.project) else run_case_on
        run, other = await run_on(slot.runner, artifact.exe, again, self.limits)
        changed = [
            n
            for n in job.output_shapes
            if run.error or other.get(f"out_{n}.bin") != files.get(f"out_{n}.bin")
        ]
        if not changed:
            return []
        what = f"the run failed ({run.error})" if run.error else f"output(s) {', '.join(changed)} changed"
        return [
            Finding(
                kind="divide_by_zero_used",
                message="the outputs depend on the result of an integer division by zero, which the NPU "
                f"leaves undefined: with {DIVIDE_AGAIN} instead of 0 as its result, {what}",
                file=divided.file,
                line=divided.line,
            )
        ]


# The second result tried for a division by zero: all ones (-1 signed, the largest value unsigned).
DIVIDE_AGAIN = 2**64 - 1


class TwinArtifact(BaseModel):
    exe: str  # the runner executable, on the slot's machine
    findings: list[Finding] = Field(default_factory=list)  # from the source: raw GM work (untimed.py)


def runs_main(project: OperatorProject) -> bool:
    """A kernel-launch sample whose main.cpp itself runs (its host code fills what the kernel gets)."""
    return project.tiling is not None and project.tiling.host_program is not None


def _untimed_sites(project: OperatorProject, candidate: Candidate, soc: Soc) -> list[Finding]:
    """Raw GM work in what the kernel build for `soc` compiles, with its CPU-debug macros
    (not the arch35 headers beside it that a 910B build never includes)."""
    macros = kernel_macros(soc)
    compiled = compiled_kernel_files(project.files.kernel, candidate.files, macros)
    return [f for path, text in sorted(compiled.items()) for f in raw_gm_findings(path, text)]


def profile_from_trace(trace: Path | bytes, soc: str, block_dim: int, cores_per_block: int = 1) -> Profile:
    """The timing model's estimate as the Evaluation's profile (labelled an estimate)."""
    est = estimate(trace, soc, block_dim, cores_per_block=cores_per_block)
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


def _unique(items: list) -> list:
    out = []
    for i in items:
        if i not in out:
            out.append(i)
    return out
