"""The episode's cheap pre-check: run the candidate's tiling program alone, on this machine, for
every case, before an evaluation is spent on it.

The tiling program is host code on a real NPU too, so running it here is faithful whatever the
backend. It needs no kernel compile; it catches a tiling that fails (GRAPH_FAILED, block dim 0 or
above 65535, never set) and block dims beyond what the launch allows.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from ascendopt.evaluation.cpu_twin.build import Builder, CompileError
from ascendopt.evaluation.cpu_twin.harness import run_case, soc_model
from ascendopt.evaluation.cpu_twin.sandbox import Limits
from ascendopt.evaluation.reference import ReferenceError, load_reference, run_reference
from ascendopt.evaluation.tensors import make_input
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class TilingCheck(BaseModel):
    ok: bool
    reason: str = ""
    block_dims: dict[str, int] = Field(default_factory=dict)


async def tiling_precheck(
    project: OperatorProject,
    candidate: Candidate,
    cases: list[ResolvedCase],
    builder: Builder | None = None,
    soc: str | None = None,
) -> TilingCheck:
    if project.spec is None or project.layout == "kernel_launch" or project.files.host is None:
        return TilingCheck(ok=True, reason="no tiling program to run")
    spec = project.spec
    model = soc_model(soc or spec.soc)
    with tempfile.TemporaryDirectory(prefix="ascendopt-precheck-") as tmp:
        src = Path(tmp) / "src"
        for rel, text in candidate.files.items():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_text(text, encoding="utf-8")
        try:
            exe = await (builder or Builder()).build_tiling_runner(project, src, candidate.files)
            reference = load_reference(
                project.root, spec, candidate.files.get(spec.reference.split(":", 1)[0])
            )
        except CompileError as exc:
            return TilingCheck(ok=False, reason=f"the tiling program does not compile: {exc.issues[0]}")
        except ReferenceError as exc:
            return TilingCheck(ok=True, reason=f"skipped: {exc}")  # the evaluation will say so
        check = TilingCheck(ok=True)
        for case in cases:
            inputs = {t.name: make_input(t, case, 0) for t in spec.inputs}
            try:
                expected = run_reference(reference, spec, case, inputs)
            except ReferenceError as exc:
                return TilingCheck(ok=True, reason=f"skipped: {exc}")
            shapes = {k: list(np.shape(v)) for k, v in expected.items()}
            run = await run_case(
                exe,
                project,
                case,
                inputs,
                shapes,
                model,
                Path(tmp) / f"case{case.index}",
                src,
                Limits(wall_seconds=30),
                tiling_only=True,
            )
            if run.error:
                return TilingCheck(ok=False, reason=f"case {case.name}: {run.error}")
            check.block_dims[case.name] = run.result.block_dim or 0
        return check
