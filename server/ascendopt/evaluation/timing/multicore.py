"""Blocks onto the SoC's vector cores.

- Block b runs on core b mod C (C = vector cores) in wave b div C; a core runs its
  blocks back to back, ceil(blocks / C) rounds. With equal blocks this is what the task
  scheduler's first-free-core dispatch amounts to.
- Bandwidth per core is looked up for the number of blocks of the wave (the blocks
  running at once); a short last wave gets more bandwidth per core.
- SyncAll: every block of the wave stops there; all resume when the last core
  arrives, plus a fixed cross-core barrier cost.
- Blocks are dispatched one after another, ``block_dispatch_us`` apart: block b starts
  no earlier than b·δ, in every wave (a later wave's block waits for the dispatcher as
  well as for its core, so splitting small work into more blocks than cores does not
  look faster for starting early).
- Operator duration = launch overhead + the last core's finish.
- Blocks missing from the trace (a twin run that traced only some blocks) are
  modelled by a traced block, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ascendopt.evaluation.timing import calibration
from ascendopt.evaluation.timing.costs import CostConstants
from ascendopt.evaluation.timing.pipeline import CoreParams, CoreResult, CoreSim
from ascendopt.evaluation.timing.trace import SYNCALL, ParsedTrace, Record


@dataclass
class MulticoreResult:
    duration_us: float
    launch_us: float
    cores_used: int
    waves: int
    critical_core: int
    critical: CoreResult
    notes: list[str] = field(default_factory=list)


def core_params(
    soc: str, cal: calibration.SocCalibration, active: int, constants: CostConstants, small_packets: set[int]
) -> CoreParams:
    cycle_us = 1.0 / cal.clock_mhz
    bw_in, _ = calibration.bandwidth(soc, "GM_UB", active)
    bw_out, _ = calibration.bandwidth(soc, "UB_GM", active)
    small_in = {p: calibration.bandwidth(soc, "GM_UB", active, p)[0] for p in small_packets if p > 0}
    small_out = {p: calibration.bandwidth(soc, "UB_GM", active, p)[0] for p in small_packets if p > 0}
    return CoreParams(
        cycle_us=cycle_us,
        issue_us=constants.scalar_issue_cycles * cycle_us,
        mte_latency_us=constants.mte_latency_cycles * cycle_us,
        barrier_latency_us=constants.pipe_barrier_cycles * cycle_us,
        bw_in=bw_in,
        bw_out=bw_out,
        link=cal.gm_peak_bytes_per_us / max(1, active),
        small_in=small_in,
        small_out=small_out,
    )


def simulate(
    parsed: ParsedTrace, soc: str, block_dim: int, constants: CostConstants, cores_per_block: int = 1
) -> MulticoreResult:
    cal = calibration.soc_calibration(soc)
    notes: list[str] = []
    traced = sorted(parsed.blocks)
    # A mixed launch's trace numbers its cores (3 per block: the AIC, then the two AIVs): each is timed on a
    # core of its own, the SoC's AI Cores each holding one cube and two vector cores; a block ends with its
    # last core. Cross-core waits are not timed (a vector core waiting on its cube core's flag is not
    # delayed).
    block_dim *= cores_per_block
    nblocks = max(block_dim, (traced[-1] + 1) if traced else 0, 1)
    if traced and block_dim < traced[-1] + 1:
        notes.append(
            f"trace has blocks up to {traced[-1]} but block_dim is {block_dim}; all traced blocks modelled"
        )
    empty: list[Record] = []

    def records_of(b: int) -> list[Record]:
        if b in parsed.blocks:
            return parsed.blocks[b]
        return parsed.blocks[traced[b % len(traced)]] if traced else empty

    missing = [b for b in range(nblocks) if b not in parsed.blocks]
    if missing and traced:
        notes.append(f"{len(missing)} of {nblocks} blocks not in the trace; modelled by traced blocks")

    ncores = cal.vector_cores if cores_per_block == 1 else cal.vector_cores // 2 * cores_per_block
    if cores_per_block != 1:
        notes.append("mixed launch: cross-core waits (CrossCoreWaitFlag) are not timed")
    used = min(ncores, nblocks)
    # The scheduler hands the first wave's blocks out one after another: block c starts c·δ late.
    sims = [CoreSim(c * constants.block_dispatch_us) for c in range(used)]
    started = [False] * used
    waves = (nblocks + ncores - 1) // ncores
    params: dict[int, CoreParams] = {}
    for w in range(waves):
        wave = list(range(w * ncores, min((w + 1) * ncores, nblocks)))
        active = len(wave)
        cp = params.get(active)
        if cp is None:
            cp = params[active] = core_params(soc, cal, active, constants, parsed.small_packets)
        idx = {}
        for b in wave:
            c = b % ncores
            if started[c]:
                sims[c].start_block(b * constants.block_dispatch_us)
            started[c] = True
            idx[b] = 0
        running = list(wave)
        while running:
            at_barrier = []
            for b in running:
                recs = records_of(b)
                i = sims[b % ncores].run(recs, idx[b], cp)
                idx[b] = i
                if i > 0 and recs[i - 1][0] == SYNCALL:
                    at_barrier.append(b)
            if not at_barrier:
                break
            t = max(sims[b % ncores].finish() for b in wave) + constants.sync_all_us
            for b in at_barrier:
                sim = sims[b % ncores]
                sim.wait_all(t, sim._last_node())
            running = [b for b in at_barrier if idx[b] < len(records_of(b))]
    finishes = [s.finish() for s in sims]
    crit = max(range(used), key=lambda c: finishes[c]) if used else 0
    critical = sims[crit].result() if used else CoreSim().result()
    body = finishes[crit] if used else 0.0
    return MulticoreResult(
        duration_us=constants.launch_overhead_us + body,
        launch_us=constants.launch_overhead_us,
        cores_used=used,
        waves=waves,
        critical_core=crit,
        critical=critical,
        notes=notes,
    )
