"""Run one case on a built runner: write inputs and the manifest, run it sandboxed, read back.

The manifest and the files the runner writes are the contract documented in
`runtime/README.md`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from ascendopt.evaluation.cpu_twin.sandbox import Limits, run_limited
from ascendopt.evaluation.records import Finding
from ascendopt.evaluation.tensors import read_raw, write_raw
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class SocModel(BaseModel):
    """What the tiling program may ask of the platform."""

    name: str = "Ascend910B4"
    core_num_aiv: int = 40
    ub_size: int = 196608 - 8192 - 256  # FIELD-NOTES: 192 KB, less the 8 KB + 256 B the compiler reserves


SOCS = {
    "Ascend910B1": SocModel(name="Ascend910B1", core_num_aiv=48),
    "Ascend910B2": SocModel(name="Ascend910B2", core_num_aiv=48),
    "Ascend910B3": SocModel(name="Ascend910B3", core_num_aiv=40),
    "Ascend910B4": SocModel(name="Ascend910B4", core_num_aiv=40),
}


def soc_model(name: str) -> SocModel:
    return SOCS.get(name) or SOCS.get(f"Ascend{name}") or SocModel(name=name)


class RunnerResult(BaseModel):
    status: str
    block_dim: int | None = None
    tiling_key: int | None = None
    workspace_size: int | None = None
    tiling_data_hex: str | None = None
    ub_bytes_per_block: int | None = None
    message: str = ""


class CaseRun(BaseModel):
    """What the runner produced for one case."""

    result: RunnerResult
    findings: list[Finding] = Field(default_factory=list)
    trace: Path | None = None
    seconds: float = 0.0
    error: str | None = None


def _manifest(
    project: OperatorProject,
    case: ResolvedCase,
    soc: SocModel,
    inputs: dict[str, Path],
    outputs: dict[str, tuple[list[int], Path]],
    work: Path,
    src_dir: Path,
    trace: bool,
) -> str:
    assert project.spec is not None
    spec = project.spec
    lines = [
        f"op_type {project.op_type}",
        f"soc {soc.name}",
        f"core_num_aiv {soc.core_num_aiv}",
        f"ub_size {soc.ub_size}",
    ]
    for t in spec.inputs:
        shape = case.input_shapes[t.name]
        lines.append(
            f"input {t.name} {case.dtypes[t.name]} {len(shape)} {' '.join(map(str, shape))} {inputs[t.name]}"
        )
    for t in spec.outputs:
        shape, path = outputs[t.name]
        lines.append(f"output {t.name} {case.dtypes[t.name]} {len(shape)} {' '.join(map(str, shape))} {path}")
    for a in spec.attrs:
        value = case.attrs[a.name]
        text = str(int(value)) if a.type in ("int", "bool") else repr(float(value))
        lines.append(f"attr {a.name} {a.type} {text}")
    if project.layout == "kernel_launch":
        lines.append(f"block_dim {spec.block_dim or 8}")
    elif spec.block_dim is not None:
        lines.append(f"block_dim {spec.block_dim}")
    lines += [
        f"trace {work / 'trace.jsonl'}",
        f"findings {work / 'findings.jsonl'}",
        f"result {work / 'result.json'}",
        f"source_root {src_dir}",
    ]
    return "\n".join(lines) + "\n"


async def run_case(
    runner: Path,
    project: OperatorProject,
    case: ResolvedCase,
    inputs: dict[str, np.ndarray],
    output_shapes: dict[str, list[int]],
    soc: SocModel,
    work: Path,
    src_dir: Path,
    limits: Limits,
    trace: bool = False,
) -> CaseRun:
    work.mkdir(parents=True, exist_ok=True)
    in_paths = {}
    for name, values in inputs.items():
        in_paths[name] = work / f"in_{name}.bin"
        write_raw(in_paths[name], values, case.dtypes[name])
    out_paths = {name: (shape, work / f"out_{name}.bin") for name, shape in output_shapes.items()}
    manifest = work / "manifest.txt"
    manifest.write_text(
        _manifest(project, case, soc, in_paths, out_paths, work, src_dir, trace), encoding="utf-8"
    )
    for stale in ("result.json", "findings.jsonl", "trace.jsonl"):
        (work / stale).unlink(missing_ok=True)
    start = time.perf_counter()
    proc = await run_limited([str(runner), str(manifest)], work, limits)
    seconds = time.perf_counter() - start
    findings = _read_findings(work / "findings.jsonl")
    result = _read_result(work / "result.json")
    run = CaseRun(
        result=result or RunnerResult(status="crashed"),
        findings=findings,
        seconds=seconds,
        trace=(work / "trace.jsonl") if (work / "trace.jsonl").exists() else None,
    )
    if proc.killed_reason or result is None:
        tail = proc.stderr.strip().splitlines()[-3:] if proc.stderr.strip() else []
        run.error = proc.killed_reason or f"runner exited with {proc.returncode} and wrote no result"
        if tail:
            run.error += ": " + " | ".join(tail)
        return run
    if result.status != "ok":
        run.error = result.message or result.status
    return run


def read_outputs(
    project: OperatorProject, case: ResolvedCase, output_shapes: dict[str, list[int]], work: Path
) -> dict[str, np.ndarray]:
    return {
        name: read_raw(work / f"out_{name}.bin", case.dtypes[name], shape)
        for name, shape in output_shapes.items()
    }


def _read_findings(path: Path) -> list[Finding]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            out.append(Finding.model_validate_json(line))
        except ValidationError:
            out.append(
                Finding(kind="runner", severity="warning", message=f"unreadable finding: {line[:200]}")
            )
    return out


def _read_result(path: Path) -> RunnerResult | None:
    if not path.exists():
        return None
    try:
        return RunnerResult.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError):
        return None
