"""Run one case on a built runner: write inputs and the manifest, run it sandboxed, read back.

The manifest and the files the runner writes are the contract documented in
`runtime/README.md`. Everything goes through a `Runner`, so the same code runs a case
on this machine or on an SSH host (paths in the manifest are the runner's).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path, PurePosixPath

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ascendopt.evaluation.cpu_twin import torch_ext
from ascendopt.evaluation.evidence import EvidenceError, parse_evidence
from ascendopt.evaluation.manifest import manifest_files
from ascendopt.evaluation.records import Finding
from ascendopt.evaluation.runner import LocalRunner, Runner
from ascendopt.evaluation.sandbox import Confinement, Limits, RunResult, fresh_uid
from ascendopt.evaluation.tensors import read_raw
from ascendopt.evaluation.toolchain import CaseJob
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import ResolvedCase
from ascendopt.untrusted import PARSE_ERRORS, loads, shorten


class TwinRunResult(BaseModel):
    """What the twin's runner executable (runtime/runner.cpp) wrote to result.json for one case (the
    CPU-debug library's result, runtime/cpu_debug.cpp, adds `launches` and more: kept as extras)."""

    model_config = ConfigDict(extra="allow")

    status: str
    block_dim: int | None = None
    tiling_key: int | None = None
    workspace_size: int | None = None
    tiling_data_hex: str | None = None
    ub_bytes_per_block: int | None = None
    cores_per_block: int = 1  # 3 for a mixed launch (1 AIC + 2 AIV; the trace's block ids are its cores)
    message: str = ""


class CaseRun(BaseModel):
    """What the runner produced for one case."""

    result: TwinRunResult
    findings: list[Finding] = Field(default_factory=list)
    trace: Path | None = None
    seconds: float = 0.0
    error: str | None = None


async def run_case_on(
    runner: Runner,
    exe: str,
    job: CaseJob,
    limits: Limits,
    fetch: bool = True,
    tiling_only: bool = False,
) -> tuple[CaseRun, dict[str, bytes | None]]:
    """Run one case on any runner: upload inputs + manifest, run, bring back what the runner wrote
    (traced when `job.profile`).

    The second value holds `out_<name>.bin` (and `trace.jsonl` when traced) unless `fetch` is off.
    """
    trace, work = job.profile, job.work
    files = manifest_files(job, trace, tiling_only)
    names = [f"out_{name}.bin" for name in job.output_shapes] + (["trace.jsonl"] if trace else [])
    run, proc, got = await _run_sandboxed(
        runner, [exe, f"{work}/manifest.txt"], exe, files, work, job.src_dir, limits, names if fetch else []
    )
    if run.result.status == "hostile":
        run.error = run.result.message
    elif proc.killed_reason or run.result.status == "crashed":
        exited = f"runner exited with {proc.returncode} and wrote no result"
        run.error = proc.killed_reason or run.result.message or exited
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        if tail:
            run.error += ": " + tail
    elif run.result.status != "ok":
        run.error = run.result.message or run.result.status
    return run, got


async def _run_sandboxed(
    runner: Runner,
    argv: list[str],
    exe: str,
    files: dict[str, bytes],
    work: str,
    src_dir: str,
    limits: Limits,
    names: list[str],
    env: dict[str, str] | None = None,
) -> tuple[CaseRun, RunResult, dict[str, bytes | None]]:
    """Put the case's files, run `argv` sandboxed in `work`, bring back result, findings and `names`."""
    await runner.put(work, files)
    # The runner (the candidate's code) sees its executable and sources, writes only its case
    # folder, and cannot change the inputs or the manifest there; what it reports comes through
    # its evidence descriptor, never from that folder (evaluation/evidence.py).
    confine = Confinement(
        read=[exe, src_dir], write=[work], sealed=[f"{work}/{name}" for name in files], uid=fresh_uid()
    )
    start = time.perf_counter()
    proc = await runner.run(
        argv, cwd=work, limits=limits.model_copy(update={"confine": confine}), env=env, evidence=True
    )
    seconds = time.perf_counter() - start
    if attempt := forbidden_attempt(proc):
        return CaseRun(result=TwinRunResult(status="hostile", message=attempt), seconds=seconds), proc, {}
    try:
        sections = parse_evidence(proc.evidence)
    except EvidenceError as exc:
        refused = TwinRunResult(status="crashed", message=str(exc))
        return CaseRun(result=refused, seconds=seconds), proc, dict.fromkeys(names)
    findings = _parse_findings(sections.pop("findings.jsonl", None))
    result = _parse_result(sections.pop("result.json", None))
    run = CaseRun(result=result or TwinRunResult(status="crashed"), findings=findings, seconds=seconds)
    return run, proc, {name: sections.get(name) for name in names}


async def run_main_case_on(
    runner: Runner, exe: str, job: CaseJob, limits: Limits
) -> tuple[CaseRun, dict[str, bytes | None]]:
    """Run a kernel-launch sample's own main.cpp (built by `Builder.build_main`) for one case, as
    `run.sh -r cpu` runs it: the case's inputs are the files main.cpp reads (`./input/input_x.bin`), its
    outputs the files it writes; the twin's CPU-debug library writes findings, result and trace where the
    environment says.
    Returns the outputs as `out_<name>.bin`, like `run_case_on`."""
    project, case, inputs, output_shapes = job.project, job.case, job.inputs, job.output_shapes
    work, src_dir, trace, soc = job.work, job.src_dir, job.profile, job.soc
    assert project.tiling is not None and project.tiling.host_program is not None
    paths = {name: _relative(path) for name, path in project.tiling.host_program.files.items()}
    missing = [n for n in [*inputs, *output_shapes] if n not in paths]
    if missing:
        listed = ", ".join(missing)
        raise ValueError(f"main.cpp reads or writes no file for {listed} (its ReadFile / WriteFile calls)")
    files = {paths[name]: data for name, data in job.input_bytes().items()}
    if (call := project.tiling.host_program.call) is not None:  # a torch extension: the case's arguments
        files[torch_ext.CALL_FILE] = torch_ext.call_file(call, case, paths)
    # main.cpp writes into folders it expects to exist; run.sh makes them (`mkdir -p input output`), and so
    # does this, as the sandbox's user (a folder made here would not be writable there).
    out_dirs = sorted({str(PurePosixPath(paths[name]).parent) for name in output_shapes})
    argv = ["/bin/sh", "-c", 'mkdir -p -- "$@" && exec "$0"', exe, *out_dirs]
    env = {
        "ASCENDOPT_TWIN_FINDINGS": f"{work}/findings.jsonl",
        "ASCENDOPT_TWIN_RESULT": f"{work}/result.json",
        "ASCENDOPT_TWIN_SOURCE_ROOT": src_dir,
        "ASCENDOPT_TWIN_UB_SIZE": str(soc.ub_size),
        "ASCENDOPT_TWIN_CORE_NUM_AIV": str(soc.core_num_aiv),
        "ASCENDOPT_TWIN_OUTPUTS": "\n".join(paths[name] for name in output_shapes),
        **({"ASCENDOPT_TWIN_TRACE": f"{work}/trace.jsonl"} if trace else {}),
        **({"ASCENDOPT_TWIN_DIVIDE_VALUE": str(job.divide_value)} if job.divide_value else {}),
    }
    outs = {name: paths[name] for name in output_shapes}
    names = [*outs.values(), *(["trace.jsonl"] if trace else [])]
    run, proc, got = await _run_sandboxed(runner, argv, exe, files, work, src_dir, limits, names, env)
    result = run.result
    tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
    main = project.files.host or "main.cpp"
    if result.status == "hostile":
        run.error = result.message
    elif proc.killed_reason or result.status == "crashed":
        exited = f"{main} exited with {proc.returncode} and launched no kernel"
        run.error = proc.killed_reason or result.message or exited
    elif result.status != "ok":
        run.error = result.message or result.status
    elif proc.returncode != 0:
        run.error = f"{main} exited with {proc.returncode}"
    elif (result.model_extra or {}).get("launches", 1) == 0:
        run.error = f"{main} launched no kernel"
    if run.error and tail:
        run.error += ": " + tail
    out = {f"out_{name}.bin": got.get(path) for name, path in outs.items()}
    if trace:
        out["trace.jsonl"] = got.get("trace.jsonl")
    return run, out


# runtime/syscall_guard.cpp: a trapped system call ends the run with this status, naming the call.
FORBIDDEN_EXIT = 159  # also 128 + SIGSYS, bwrap's status for a child the kernel killed with it
_FORBIDDEN = re.compile(r"forbidden system call: (\S+)")


def forbidden_attempt(proc: RunResult) -> str | None:
    """The verdict on a run that tried what the sandbox forbids (None: it did not): hostile,
    whatever its outputs."""
    if proc.returncode != FORBIDDEN_EXIT and proc.signal_name != "SIGSYS":
        return None
    called = _FORBIDDEN.search(proc.stderr)
    what = called.group(1) if called else "a forbidden system call"
    return (
        f"hostile: the candidate's code called {what} (creating a process, running a program, the network "
        "or a namespace change: the sandbox forbids them)"
    )


def _relative(path: str) -> str:
    """`./input/input_x.bin` → `input/input_x.bin`, inside the case folder (main.cpp's working directory)."""
    rel = PurePosixPath(path.removeprefix("./"))
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"main.cpp's file {path!r} is outside its working folder")
    return str(rel)


async def run_case(
    runner: Path,
    project: OperatorProject,
    case: ResolvedCase,
    inputs: dict[str, np.ndarray],
    output_shapes: dict[str, list[int]],
    soc: Soc,
    work: Path,
    src_dir: Path,
    limits: Limits,
    trace: bool = False,
    tiling_only: bool = False,
) -> CaseRun:
    """`run_case_on` with this machine's runner and local folders; the outputs and trace it handed
    back are stored in `work` (`out_<name>.bin`, `trace.jsonl`) once it has ended."""
    work.mkdir(parents=True, exist_ok=True)
    job = CaseJob(project, case, inputs, output_shapes, str(work), str(src_dir), trace, soc)
    run, got = await run_case_on(LocalRunner(), str(runner), job, limits, True, tiling_only)
    for name, data in got.items():
        if data is not None:
            _store(work / name, data)
    if got.get("trace.jsonl") is not None:
        run.trace = work / "trace.jsonl"
    return run


def _store(path: Path, data: bytes) -> None:
    """Write a fresh file: what the candidate left at that name (a link, say) is replaced, not followed."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def read_outputs(
    project: OperatorProject, case: ResolvedCase, output_shapes: dict[str, list[int]], work: Path
) -> dict[str, np.ndarray]:
    return {
        name: read_raw(work / f"out_{name}.bin", case.dtypes[name], shape)
        for name, shape in output_shapes.items()
    }


MAX_FINDINGS = 200  # per case; the twin reports each source location once, so more is a flood
MAX_FINDING_CHARS = 500  # per text field of a finding


def _parse_findings(data: bytes | None) -> list[Finding]:
    """The runner's findings, at most MAX_FINDINGS of them (then one saying how many were dropped)."""
    if not data:
        return []
    lines = [line for line in data.decode("utf-8", errors="replace").splitlines() if line.strip()]
    out = [_finding(line) for line in lines[:MAX_FINDINGS]]
    if len(lines) > MAX_FINDINGS:
        dropped = f"{len(lines) - MAX_FINDINGS} more findings dropped (over {MAX_FINDINGS})"
        out.append(Finding(kind="runner", severity="warning", message=dropped))
    return out


def _finding(line: str) -> Finding:
    try:
        found = Finding.model_validate_json(line)
    except PARSE_ERRORS:
        message = f"unreadable finding: {shorten(line, 200)}"
        return Finding(kind="runner", severity="warning", message=message)
    cut = {
        k: shorten(v, MAX_FINDING_CHARS)
        for k in ("kind", "message", "file")
        if isinstance(v := getattr(found, k), str)
    }
    return found.model_copy(update=cut)


def _parse_result(data: bytes | None) -> TwinRunResult | None:
    if data is None:
        return None
    try:
        result = TwinRunResult.model_validate(loads(data.decode("utf-8", errors="replace")))
    except PARSE_ERRORS:  # ValidationError is a ValueError
        return None
    result.message = shorten(result.message, 4 * MAX_FINDING_CHARS)  # it becomes the case's error
    return result
