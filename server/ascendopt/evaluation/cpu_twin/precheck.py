"""The episode's cheap pre-check: run the candidate's tiling program alone, on this machine, for
every case, before an evaluation is spent on it.

The tiling program is host code on a real NPU too, so running it here is faithful whatever the
backend. It needs no kernel compile; it catches a tiling that fails (GRAPH_FAILED, block dim 0 or
above 65535, never set) and block dims beyond what the launch allows.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from ascendopt.evaluation.cpu_twin.build import Builder
from ascendopt.evaluation.cpu_twin.harness import run_case
from ascendopt.evaluation.records import TilingCheck
from ascendopt.evaluation.reference import ReferenceError, load_reference, run_reference
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.tensors import make_inputs
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.files import write_tree
from ascendopt.operators.issues import CompileError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import resolve_soc
from ascendopt.operators.spec import OperatorSpec, ResolvedCase, member_name
from ascendopt.untrusted import PARSE_ERRORS


class TilingPrecheck:
    """Callable per candidate; the inputs and output shapes of each case are made once per episode
    (they do not depend on the candidate: rewrites may not touch the spec or the reference)."""

    def __init__(
        self,
        project: OperatorProject,
        cases: list[ResolvedCase],
        builder: Builder | None = None,
        soc: str | None = None,
    ) -> None:
        self.project = project
        self.cases = cases
        self.builder = builder or Builder()
        self.soc = soc
        self._case_data: dict[int, tuple[dict[str, np.ndarray], dict[str, list[int]]]] | None = None
        self._skip = ""

    def _prepare(self) -> dict[int, tuple[dict[str, np.ndarray], dict[str, list[int]]]]:
        if self._case_data is None:
            assert self.project.spec is not None
            spec = self.project.spec
            data: dict[int, tuple[dict[str, np.ndarray], dict[str, list[int]]]] = {}
            if spec.oracle is not None:
                # The task's own Python makes the inputs (sandboxed, seconds per run): the
                # evaluation runs it once per case; its tiling failures are reported there.
                self._skip = "skipped: a benchmark task's oracle gives the inputs"
                self._case_data = data
                return data
            try:
                reference = load_reference(self.project.spec_root, spec)
                for case in self.cases:
                    inputs = make_inputs(spec, case, 0)
                    expected = run_reference(reference, spec, case, inputs)
                    data[case.index] = (inputs, {k: list(np.shape(v)) for k, v in expected.items()})
            except ReferenceError as exc:
                self._skip = f"skipped: {exc}"  # the evaluation will say so
            self._case_data = data
        return self._case_data

    async def __call__(self, candidate: Candidate) -> TilingCheck:
        project = self.project
        if project.spec is None or project.layout == "kernel_launch" or project.files.host is None:
            return TilingCheck(ok=True, reason="no tiling program to run")
        case_data = self._prepare()
        if self._skip:
            return TilingCheck(ok=True, reason=self._skip)
        model = resolve_soc(self.soc, None, project.spec)
        with tempfile.TemporaryDirectory(prefix="ascendopt-precheck-") as tmp:
            src = write_tree(project, candidate.files, Path(tmp) / "src")
            try:
                exe = await self.builder.build_tiling_runner(project, src, candidate.files, model)
            except CompileError as exc:
                return TilingCheck(ok=False, reason=f"the tiling program does not compile: {exc.issues[0]}")
            check = TilingCheck(ok=True)
            for case in self.cases:
                inputs, shapes = case_data[case.index]
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


class UbBuffer(BaseModel):
    """One `TPipe::InitBuffer` as the kernel ran it: where, and the UB it took (32 B aligned, times
    the queue's buffer count)."""

    file: str
    line: int
    bytes: int
    queue: bool  # a TQue (else a TBuf)


class UbOverflow(BaseModel):
    """The InitBuffer that did not fit, as the twin found it."""

    file: str
    line: int
    message: str


class CaseCheck(BaseModel):
    refused: str | None = None  # why the operator refuses the case: its tiling fails, or the UB overflows
    overflow: UbOverflow | None = None
    buffers: list[UbBuffer] = Field(default_factory=list)  # block 0's, when traced


async def check_cases(
    project: OperatorProject, builder: Builder | None = None, traced: frozenset[str] = frozenset()
) -> tuple[dict[str, CaseCheck], str | None]:
    """(case name → what the operator does with it, why no check could run) for the spec's cases:
    the operator's own tiling program on each, then the kernel, keeping only what says the case is
    outside the operator (a tiling that fails, buffers beyond the Unified Buffer) and, for the cases
    in `traced`, every InitBuffer block 0 made.

    With no reference needed, every output is given the first input's shape (tiling programs and
    buffer sizes follow the inputs); wrong values are not judged here."""
    spec = project.spec
    if spec is None:
        return {}, "no spec"
    host = project.tiling.host_program if project.tiling else None
    if host is not None and host.call is not None:
        return {}, f"skipped: {host.call.function} fills what the kernel gets; a verify runs it"
    cases = spec.resolve_cases()
    builder = builder or Builder()
    model = resolve_soc(None, None, spec)
    out: dict[str, CaseCheck] = {}
    with tempfile.TemporaryDirectory(prefix="ascendopt-precheck-") as tmp:
        files = project.read_files()
        src = write_tree(project, files, Path(tmp) / "src")
        tiling = project.layout != "kernel_launch" and project.files.host is not None
        exes: dict[tuple[tuple[str, str], ...], Path] = {}
        try:
            tiling_exe = await builder.build_tiling_runner(project, src, files, model) if tiling else None
            for case in cases:
                combo = tuple(sorted(case.dtypes.items()))
                if combo not in exes:
                    exes[combo] = await builder.build(project, src, files, dict(combo), model)
        except CompileError as exc:
            return {}, f"the operator does not build on the CPU twin: {exc.issues[0]}"
        for case in cases:
            inputs = make_inputs(spec, case, 0)
            shapes = _output_guess(spec, case)
            work = Path(tmp) / f"case{case.index}"
            check = out[case.name] = CaseCheck()
            if tiling_exe is not None:
                run = await run_case(
                    tiling_exe,
                    project,
                    case,
                    inputs,
                    shapes,
                    model,
                    work,
                    src,
                    Limits(wall_seconds=30),
                    tiling_only=True,
                )
                if run.error:
                    check.refused = f"the tiling program: {run.error}"
                    continue
            run = await run_case(
                exes[tuple(sorted(case.dtypes.items()))],
                project,
                case,
                inputs,
                shapes,
                model,
                work,
                src,
                Limits(wall_seconds=60),
                trace=case.name in traced,
            )
            ub = [f for f in run.findings if f.kind == "ub_overflow"]
            if ub:
                # An error when an access reached past the UB's end (or a cube kernel's buffers overflow);
                # buffers past it that nothing touches are a warning: the NPU's InitBuffer does not check.
                f = next((f for f in ub if f.severity == "error"), ub[0])
                check.overflow = UbOverflow(file=f.file or "?", line=f.line or 1, message=f.message)
                if f.severity == "error":
                    check.refused = f"{f.file}:{f.line}: {f.message}"
            if run.trace is not None:
                check.buffers = _init_buffers(run.trace)
    return out, None if tiling else "no tiling program (kernel launch): buffers checked, tiling not"


def _init_buffers(trace: Path) -> list[UbBuffer]:
    """Block 0's InitBuffer records (every block sets its buffers up alike)."""
    found = []
    for raw in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"InitBuffer"' not in raw:
            continue
        with contextlib.suppress(*PARSE_ERRORS):
            r = json.loads(raw)
            if r.get("op") == "InitBuffer" and r.get("b") == 0:
                found.append(
                    UbBuffer(
                        file=str(r.get("file", "?")),
                        line=int(r.get("line", 0)),
                        bytes=int(r["bytes"]),
                        queue=int(r.get("queue", -1)) >= 0,
                    )
                )
    return found


async def precheck_spec(
    project: OperatorProject, builder: Builder | None = None
) -> tuple[dict[str, str], str | None]:
    """(case name → why the operator refuses it, why no pre-check could run) for a spec not yet
    written (init-spec): `check_cases`'s refusals."""
    checks, unchecked = await check_cases(project, builder)
    return {name: c.refused for name, c in checks.items() if c.refused}, unchecked


def _output_guess(spec: OperatorSpec, case: ResolvedCase) -> dict[str, list[int]]:
    """Every output in the first input's shape; a list output as long as the first list input (or the
    list it is written into), each tensor in that input's shape. Unchecked outputs too: an answer may
    have no InferShape to size them (the evaluation sizes them by the Model's values)."""
    first = list(next(iter(case.input_shapes.values())))
    listed = [case.input_shapes[m] for m in next((case.instances(n) for n in case.lists), [])] or [first]
    shapes: dict[str, list[int]] = {}
    for t in spec.outputs:
        if t.param_type == "dynamic" and t.alias is not None:
            shapes.update(
                {member_name(t.name, i): case.input_shapes[m] for i, m in enumerate(case.instances(t.alias))}
            )
        elif t.param_type == "dynamic":
            shapes.update({member_name(t.name, i): list(s) for i, s in enumerate(listed)})
        else:  # an in-place output is its input's shape
            shapes[t.name] = list(case.input_shapes.get(t.alias or "", first))
    return shapes
