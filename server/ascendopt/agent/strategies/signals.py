"""What a profile says about where an evaluation's time goes, as the knob search reads it.

From the slowest timed case (it has the most time to give back): the pipe that bounds it, the
share of the SoC's vector cores its launch leaves idle, how far the data-movement pipes overlap
the vector pipe, the share of the Unified Buffer one block leaves unused, and the share of the
operator's duration its busiest core works (the rest is the launch and the dispatch of the blocks:
fixed costs that fewer, larger blocks pay less of). The same for the
twin's timing model and for msprof (both name their pipes after msprof's PipeUtilization columns).
"""

from __future__ import annotations

from dataclasses import dataclass

from ascendopt.evaluation.records import Evaluation, Profile
from ascendopt.operators.soc import Soc

_BUSY = 0.1  # a pipe busy less than this share of the core's time is not worth hiding


@dataclass(frozen=True)
class Signals:
    """What the twin's (or msprof's) profile of one evaluation says about where its time goes."""

    bound: str | None  # memory, vector, scalar, sync, launch (evaluation/timing/model.py)
    idle_cores: float  # share of the SoC's vector cores the launch leaves idle (0-1)
    overlap: float | None  # 0: MTE2, V and MTE3 run one after another; 1: all hidden under the longest
    mte2_and_vec_busy: bool  # both pipes carry enough of the time for hiding one under the other to pay
    ub_headroom: float | None  # share of the UB one block leaves unused; None: not reported
    # the busiest core's working time over the operator's duration (the rest: launch and dispatch)
    busy_share: float | None = None
    blocks: int = 0  # the blocks the launch ran (a core cap above it caps nothing); 0: not reported

    @classmethod
    def of(cls, evaluation: Evaluation | None, soc: Soc) -> Signals | None:
        """The slowest timed case's signals; None when no case was timed."""
        timed = [c for c in evaluation.cases if c.profile is not None] if evaluation else []
        if not timed:
            return None
        case = max(timed, key=lambda c: c.profile.duration_us if c.profile else 0.0)
        assert case.profile is not None
        blocks = case.block_dim or 0
        idle = max(0.0, 1.0 - min(blocks, soc.core_num_aiv) / soc.core_num_aiv) if blocks else 0.0
        ub = case.ub_bytes_per_block
        headroom = max(0.0, 1.0 - ub / soc.ub_size) if ub else None
        overlap, busy = _overlap(case.profile)
        core = _core_time(case.profile)
        duration = case.profile.duration_us
        share = min(1.0, core / duration) if core > 0 and duration > 0 else None
        return cls(case.profile.bound, idle, overlap, busy, headroom, share, blocks)


def _pipes(profile: Profile) -> dict[str, tuple[float, float]]:
    return {p.pipe.split("_")[1]: (p.time_us, p.ratio) for p in profile.pipes if p.pipe.startswith("aiv_")}


def _core_time(profile: Profile) -> float:
    """The busiest core's working time: a pipe's busy time over its ratio; 0 when no pipe ran."""
    return next((time / ratio for time, ratio in _pipes(profile).values() if ratio > 0), 0.0)


def _overlap(profile: Profile) -> tuple[float | None, bool]:
    """How far the data-movement and vector pipes overlap, from their busy times and ratios."""
    t = _pipes(profile)
    total = _core_time(profile)
    busy = [t[p][0] for p in ("mte2", "vec", "mte3") if p in t]
    if total <= 0 or len(busy) < 2:
        return None, False
    serial, longest = sum(busy), max(busy)
    overlap = 1.0 if serial <= longest else min(1.0, max(0.0, (serial - total) / (serial - longest)))
    both = all(t.get(p, (0.0, 0.0))[1] >= _BUSY for p in ("mte2", "vec"))
    return overlap, both
