"""`msprof op` output (OPPROF_* folders) → the Profile fields the CPU twin fills, labelled measured.

Layouts (from the msprof op documentation):

    OPPROF_<ts>_XXX/OpBasicInfo.csv, PipeUtilization.csv, …           one operator
    OPPROF_<ts>_XXX/<OpName>/<n>/OpBasicInfo.csv, …                    several operators / launches
    OPPROF_<ts>_XXX/device<N>/…                                        several devices
    PipeUtilization.csv with every column prefixed `aic_`, no block_id  310P ("Atlas inference")

Pipe names are msprof's own column names; on 310P (one AI Core does the vector work)
`aic_vec_time(us)` and friends are reported as the `aiv_*` columns so that the same
table shows both chips, and the source label says 310P.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
from collections.abc import Mapping

from pydantic import BaseModel, Field

from ascendopt.evaluation.records import PipeTime, Profile

_DEVICE = re.compile(r"^device_?(\d+)$")
_VECTOR_PIPES = ("vec", "scalar", "mte2", "mte3")


class MsprofError(ValueError):
    pass


class Launch(BaseModel):
    """One profiled kernel launch."""

    folder: str
    op_name: str
    op_type: str = ""
    device: int | None = None
    index: int | None = None
    duration_us: float
    block_dim: int | None = None
    current_freq_mhz: float | None = None
    rated_freq_mhz: float | None = None
    variant: str = "A2"  # "A2" (910B: aiv_/aic_ columns per block) or "310P" (aic_ only, no block_id)
    pipes: dict[str, float] = Field(default_factory=dict)  # critical core's *_time(us) and *_ratio
    core_time_us: float | None = None


def _rows(data: bytes) -> list[dict[str, str]]:
    text = data.decode("utf-8-sig", errors="replace")
    return [
        {k.strip(): (v or "").strip() for k, v in row.items() if k}
        for row in csv.DictReader(io.StringIO(text))
    ]


def _num(value: str | None) -> float | None:
    if value is None or value in ("", "N/A", "NA", "-"):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _pipes(rows: list[dict[str, str]]) -> tuple[dict[str, float], float | None, str]:
    if not rows:
        return {}, None, "A2"
    columns = list(rows[0])
    variant = "310P" if "block_id" not in columns and all(c.startswith("aic_") for c in columns) else "A2"
    total = "aic_time(us)" if variant == "310P" or "aiv_time(us)" not in columns else "aiv_time(us)"
    # The critical core is the busiest one: it decides the kernel's duration.
    crit = max(rows, key=lambda r: _num(r.get(total)) or 0.0)
    out: dict[str, float] = {}
    for col, value in crit.items():
        v = _num(value)
        if v is None or not (col.endswith("_time(us)") or col.endswith("_ratio")) or col == total:
            continue
        name = col
        if variant == "310P":
            pipe = col[4:].split("_", 1)[0]
            if pipe in _VECTOR_PIPES:
                name = "aiv_" + col[4:]
        out[name] = v
    return out, _num(crit.get(total)), variant


def parse_opprof(files: Mapping[str, bytes]) -> list[Launch]:
    """Every launch in a downloaded tree (paths relative to where msprof wrote, any depth)."""
    folders = sorted(
        {path.rsplit("/", 1)[0] if "/" in path else "" for path in files if path.endswith("OpBasicInfo.csv")}
    )
    launches: list[Launch] = []
    for folder in folders:
        prefix = f"{folder}/" if folder else ""
        basic = _rows(files[f"{prefix}OpBasicInfo.csv"])
        if not basic:
            continue
        row = basic[0]
        duration = _num(row.get("Task Duration(us)"))
        if duration is None:
            raise MsprofError(f"{prefix}OpBasicInfo.csv: no 'Task Duration(us)' value")
        parts = [p for p in folder.split("/") if p]
        device = _num(row.get("Device Id"))
        index = None
        op_dir = None
        seen_opprof = False
        for part in parts:
            if part.startswith("OPPROF_"):
                seen_opprof = True
                continue
            if not seen_opprof:
                continue
            m = _DEVICE.match(part)
            if m:
                device = float(m.group(1))
            elif part.isdigit():
                index = int(part)
            else:
                op_dir = part
        pipes, core_time, variant = _pipes(_rows(files.get(f"{prefix}PipeUtilization.csv", b"")))
        block = _num(row.get("Block Dim"))
        launches.append(
            Launch(
                folder=folder,
                op_name=row.get("Op Name") or op_dir or "",
                op_type=row.get("Op Type", ""),
                device=int(device) if device is not None else None,
                index=index,
                duration_us=duration,
                block_dim=int(block) if block is not None else None,
                current_freq_mhz=_num(row.get("Current Freq")),
                rated_freq_mhz=_num(row.get("Rated Freq")),
                variant=variant,
                pipes=pipes,
                core_time_us=core_time,
            )
        )
    return launches


def select(launches: list[Launch], kernel: str | None, device: int | None = None) -> list[Launch]:
    """The launches of our kernel (by op name, case-insensitively, allowing msprof's suffixes)."""
    chosen = launches
    if kernel:
        key = kernel.lower().replace("_", "")
        named = [ln for ln in launches if key in ln.op_name.lower().replace("_", "")]
        chosen = named or (launches if len({ln.op_name for ln in launches}) == 1 else [])
    if device is not None and any(ln.device == device for ln in chosen):
        chosen = [ln for ln in chosen if ln.device == device]
    return chosen


def _bound(pipes: dict[str, float]) -> str | None:
    shares = {
        "memory": max(pipes.get("aiv_mte2_ratio", 0.0), pipes.get("aiv_mte3_ratio", 0.0)),
        "vector": pipes.get("aiv_vec_ratio", 0.0),
        "scalar": pipes.get("aiv_scalar_ratio", 0.0),
        "cube": pipes.get("aic_cube_ratio", 0.0),
    }
    top = max(shares, key=lambda k: shares[k])
    return top if shares[top] > 0 else None


def to_profile(launches: list[Launch], soc: str, device: int | None, cann_version: str | None) -> Profile:
    """The median launch (by duration) as the case's measured profile."""
    if not launches:
        raise MsprofError("msprof wrote no launch of this kernel")
    ordered = sorted(launches, key=lambda ln: ln.duration_us)
    median = ordered[(len(ordered) - 1) // 2]
    pipes = [
        PipeTime(pipe=col, time_us=value, ratio=median.pipes.get(col.replace("_time(us)", "_ratio"), 0.0))
        for col, value in median.pipes.items()
        if col.endswith("_time(us)")
    ]
    freq = median.current_freq_mhz or median.rated_freq_mhz
    parts = [f"msprof op, {soc}" + (" (310P columns)" if median.variant == "310P" else "")]
    dev = median.device if median.device is not None else device
    if dev is not None:
        parts.append(f"device {dev}")
    if freq:
        parts.append(f"{freq:g} MHz")
    if cann_version:
        parts.append(f"CANN {cann_version}")
    parts.append(
        f"median of {len(launches)} launch(es), spread "
        f"{statistics.pstdev([ln.duration_us for ln in launches]):.2f} µs"
    )
    return Profile(
        duration_us=median.duration_us,
        kind="measured",
        source=", ".join(parts),
        pipes=pipes,
        bound=_bound(median.pipes),
    )
