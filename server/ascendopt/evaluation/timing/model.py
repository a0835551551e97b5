"""Estimate an AscendC vector operator's duration on a 910B from the CPU twin's trace.

``estimate(trace, soc, block_dim)`` -> ``TimingEstimate``: an estimate, always
labelled with the SoC model it used, with per-pipe busy time and ratio under
msprof's PipeUtilization column names, the bound, and the source lines on the
critical path of the core that finishes last.

Bound rule (on the critical core, in this order):
1. ``launch`` if the fixed launch overhead is at least ``launch_bound_share`` (50 %)
   of the duration;
2. otherwise the busiest of memory (max of MTE2, MTE3), vector and scalar, if its
   busy ratio is at least ``busy_bound_ratio`` (60 %): ``memory`` / ``vector`` /
   ``scalar``;
3. otherwise ``sync``: no pipe is busy most of the time, so the core mostly waits
   on dependencies (queues, flags, barriers) and latency.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from ascendopt.evaluation.timing import calibration
from ascendopt.evaluation.timing.costs import DEFAULT_CONSTANTS, CostConstants
from ascendopt.evaluation.timing.multicore import simulate
from ascendopt.evaluation.timing.trace import MTE2, MTE3, S, V, parse_trace

PIPE_COLUMNS = {
    V: ("aiv_vec_time(us)", "aiv_vec_ratio"),
    MTE2: ("aiv_mte2_time(us)", "aiv_mte2_ratio"),
    MTE3: ("aiv_mte3_time(us)", "aiv_mte3_ratio"),
    S: ("aiv_scalar_time(us)", "aiv_scalar_ratio"),
}
BOUNDS = ("memory", "vector", "scalar", "sync", "launch")
# The model's stated error on one duration: the median |estimate/measured - 1| over the held-out
# records of the same kernel (README, "Durations on the CPU twin are estimates":
# benchmarks/timing_fidelity.py --ops-repo, 20 % at --max-elems 100000, 27 % with the 4096-row
# records). Reports draw it beside estimated speedups: a step well inside it is a prediction.
STATED_ERROR = 0.20


class TimingEstimate(BaseModel):
    """Modelled, not measured: ``label`` always says so."""

    duration_us: float
    label: str
    pipes: dict[str, float]  # msprof PipeUtilization column -> value
    bound: str
    hot_lines: list[tuple[str, float]] = Field(default_factory=list)  # (file:line, share of duration)
    soc: str
    block_dim: int
    cores_used: int
    waves: int
    critical_core: int
    launch_overhead_us: float
    records: int
    notes: list[str] = Field(default_factory=list)


def classify_bound(
    pipes: dict[str, float],
    duration_us: float,
    launch_us: float,
    constants: CostConstants = DEFAULT_CONSTANTS,
) -> str:
    if duration_us <= 0 or launch_us >= constants.launch_bound_share * duration_us:
        return "launch"
    shares = {
        "memory": max(pipes["aiv_mte2_ratio"], pipes["aiv_mte3_ratio"]),
        "vector": pipes["aiv_vec_ratio"],
        "scalar": pipes["aiv_scalar_ratio"],
    }
    top = max(shares, key=lambda k: shares[k])
    return top if shares[top] >= constants.busy_bound_ratio else "sync"


def estimate(
    trace: Path | bytes,
    soc: str,
    block_dim: int,
    *,
    constants: CostConstants = DEFAULT_CONSTANTS,
    top: int = 10,
    cores_per_block: int = 1,
) -> TimingEstimate:
    """`trace`: the file, or its bytes as the run handed them back; `cores_per_block`: 3 for a mixed
    launch."""
    cal = calibration.soc_calibration(soc)
    parsed = parse_trace(trace if isinstance(trace, bytes) else Path(trace), soc, constants)
    mc = simulate(parsed, soc, block_dim, constants, cores_per_block)
    crit = mc.critical
    aiv_time = max(0.0, crit.end - crit.start)
    pipes: dict[str, float] = {
        "aiv_time(us)": aiv_time,
        "aiv_total_cycles": aiv_time * cal.clock_mhz,
    }
    for p, (tcol, rcol) in PIPE_COLUMNS.items():
        busy = min(crit.busy[p], aiv_time)
        pipes[tcol] = busy
        pipes[rcol] = busy / aiv_time if aiv_time > 0 else 0.0
    duration = mc.duration_us
    ranked = sorted(crit.path.items(), key=lambda kv: kv[1], reverse=True)[:top]
    hot = [(parsed.lines[lid], t / duration) for lid, t in ranked if t > 0 and duration > 0]
    return TimingEstimate(
        duration_us=duration,
        label=f"estimate, {cal.label}",
        pipes=pipes,
        bound=classify_bound(pipes, duration, mc.launch_us, constants),
        hot_lines=hot,
        soc=cal.soc,
        block_dim=block_dim,
        cores_used=mc.cores_used,
        waves=mc.waves,
        critical_core=mc.critical_core,
        launch_overhead_us=mc.launch_us,
        records=parsed.records,
        notes=[*parsed.notes, *mc.notes],
    )
