"""Where the time goes, per case, for the baseline and the winner side by side: the duration (an
estimate or measured, labelled), the pipes' busy shares, the bound, the blocks busy of the SoC's
vector cores, the hot lines, and a roofline verdict.

The roofline verdict holds the duration against two floors: the memory floor (the case's input and
output tensors moved once at the SoC's GM bandwidth, msopmodeling's table through
evaluation/timing/calibration.py) and the vector floor (the V pipe's busy time on the core that
finishes last: its vector instructions back to back). "at 38 % of the floor" is the larger floor
over the duration: 100 % would be a kernel that does nothing but the unavoidable.
"""

from __future__ import annotations

from pydantic import BaseModel

from ascendopt.evaluation.records import CaseResult, Evaluation, pipe_name
from ascendopt.evaluation.timing.calibration import CalibrationError, soc_calibration
from ascendopt.operators.soc import soc as soc_row

PIPE_ORDER = ("MTE2", "V", "MTE3", "S")


class CaseProfile(BaseModel):
    """One case of one evaluation, as the side-by-side shows it."""

    case: str
    duration_us: float
    kind: str  # estimate / measured
    source: str  # which model or which profiler
    pipes: dict[str, float]  # MTE2 / V / MTE3 / S … -> busy share of the critical core
    bound: str | None
    blocks: int | None
    cores: int | None  # the SoC's vector cores
    hot_lines: list[str]
    gm_bytes: int | None
    bandwidth: float | None  # the SoC's GM bandwidth, bytes/µs
    memory_floor_us: float | None
    vector_floor_us: float | None
    roofline: str  # the verdict, in words


def case_profiles(ev: Evaluation | None) -> list[CaseProfile]:
    """Every profiled case of `ev` (none without an evaluation or a profile)."""
    if ev is None:
        return []
    bandwidth, cores = _soc_figures(ev.soc)
    return [_one(c, bandwidth, cores) for c in ev.cases if c.profile is not None]


def _soc_figures(name: str | None) -> tuple[float | None, int | None]:
    if not name:
        return None, None
    try:
        bandwidth: float | None = soc_calibration(name).gm_peak_bytes_per_us
    except CalibrationError:  # a SoC msopmodeling has no table for: no memory floor
        bandwidth = None
    return bandwidth, soc_row(name).core_num_aiv


def _one(c: CaseResult, bandwidth: float | None, cores: int | None) -> CaseProfile:
    p = c.profile
    assert p is not None
    pipes = {pipe_name(t.pipe): t.ratio for t in p.pipes}
    vec = next((t.time_us for t in p.pipes if pipe_name(t.pipe) == "V"), None)
    memory = c.gm_bytes / bandwidth if c.gm_bytes and bandwidth else None
    return CaseProfile(
        case=c.name,
        duration_us=p.duration_us,
        kind=p.kind,
        source=p.source,
        pipes=dict(sorted(pipes.items(), key=lambda kv: _pipe_rank(kv[0]))),
        bound=p.bound,
        blocks=c.block_dim,
        cores=cores,
        hot_lines=list(p.hot_lines),
        gm_bytes=c.gm_bytes,
        bandwidth=bandwidth,
        memory_floor_us=memory,
        vector_floor_us=vec,
        roofline=verdict(p.duration_us, memory, vec, p.kind, c.gm_bytes, bandwidth),
    )


def _pipe_rank(name: str) -> int:
    return PIPE_ORDER.index(name) if name in PIPE_ORDER else len(PIPE_ORDER)


def verdict(
    duration: float,
    memory: float | None,
    vector: float | None,
    kind: str,
    gm_bytes: int | None = None,
    bandwidth: float | None = None,
) -> str:
    """`at 38 % of the memory floor (2.26 µs …)`: the larger floor against the duration."""
    floors = {k: v for k, v in (("memory", memory), ("vector", vector)) if v}
    if not floors or duration <= 0:
        why = "the case's bytes were not recorded" if gm_bytes is None else "no bandwidth figure for this SoC"
        return f"no floor: {why}"
    which = max(floors, key=lambda k: floors[k])
    floor = floors[which]
    share = floor / duration
    text = f"at {share:.0%} of the {which} floor ({floor:.2f} µs against {duration:.2f} µs, {kind})"
    if which == "memory" and gm_bytes and bandwidth:
        text += f"; {fmt_bytes(gm_bytes)} at {bandwidth / 1e6:.2f} TB/s"
    if share > 1.005:
        text += ": under the floor, so the duration is off"
    return text


def fmt_bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def pipes_text(p: CaseProfile) -> str:
    return " · ".join(f"{name} {share:.0%}" for name, share in p.pipes.items())


def blocks_text(p: CaseProfile) -> str:
    if p.blocks is None:
        return "-"
    if p.cores:
        return f"{p.blocks} of {p.cores} vector cores"
    return f"{p.blocks} block{'s' if p.blocks != 1 else ''}"


SIDE_ROWS = ("duration", "pipes busy", "bound", "blocks busy", "hot lines", "roofline")


def side_by_side(base: list[CaseProfile], win: list[CaseProfile]) -> list[tuple[str, list[list[str]]]]:
    """Per case (the baseline's order): its rows, metric | baseline | winner (winner cells only with one)."""
    by_case = {p.case: p for p in win}
    out = []
    for b in base:
        w = by_case.get(b.case)
        cols = [b, w] if win else [b]
        rows = [[name, *(_cell(name, p) if p is not None else "-" for p in cols)] for name in SIDE_ROWS]
        if w is not None and w.duration_us > 0:  # the winner's speedup on this case, beside its duration
            rows[0][2] += f", {b.duration_us / w.duration_us:.2f}×"
        out.append((b.case, rows))
    return out


def _cell(name: str, p: CaseProfile) -> str:
    if name == "duration":
        return f"{p.duration_us:.2f} µs ({p.kind})"
    if name == "pipes busy":
        return pipes_text(p) or "-"
    if name == "bound":
        return f"{p.bound}-bound" if p.bound else "-"
    if name == "blocks busy":
        return blocks_text(p)
    if name == "hot lines":
        return "\n".join(p.hot_lines[:3]) or "-"
    return p.roofline
