"""Speed of the timing model on a ~100 000-instruction trace. Target: <= 1 s per estimate.

    .venv/bin/python benchmarks/timing_speed.py [--runs 5] [--synthetic]

The trace comes from the CPU twin: add_custom (fp16, x = y = [1024, 3200], 40 blocks) with
TILE_LENGTH=512, i.e. 160 tiles per block and 16 API calls per tile -> ~102 k records.
With --synthetic (or when the twin cannot build) the same-sized trace is written by
ascendopt.evaluation.timing.synth instead. Prints the median of --runs for parsing,
simulating and the whole `estimate()` call; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.evaluation.cpu_twin.build import Builder
from ascendopt.evaluation.cpu_twin.harness import run_case
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.tensors import make_inputs
from ascendopt.evaluation.timing import synth
from ascendopt.evaluation.timing.costs import DEFAULT_CONSTANTS
from ascendopt.evaluation.timing.model import estimate
from ascendopt.evaluation.timing.multicore import simulate
from ascendopt.evaluation.timing.trace import parse_trace
from ascendopt.operators.candidate import apply_knobs, baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import CompileError
from ascendopt.operators.soc import soc
from ascendopt.operators.spec import CaseSpec

REPO = Path(__file__).resolve().parents[1]
SOC = "Ascend910B4"
SHAPE = [1024, 3200]
TILE = 512


async def twin_trace(work: Path) -> tuple[Path, int]:
    project = load_operator(REPO / "templates" / "operators" / "add_custom")
    assert project.spec is not None
    cand = apply_knobs(project, baseline(project), {"TILE_LENGTH": TILE})
    src = work / "src"
    for rel, text in cand.files.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    one = CaseSpec(name="speed", shapes={"x": SHAPE, "y": SHAPE}, dtype="float16")
    case = project.spec.model_copy(update={"cases": [one]}).resolve_cases()[0]
    runner = await Builder().build(project, src, cand.files, dict(case.dtypes), soc(SOC))
    inputs = make_inputs(project.spec, case, 0)
    run = await run_case(
        runner, project, case, inputs, {"z": SHAPE}, soc(SOC), work / "run", src, Limits(), trace=True
    )
    if run.error or run.trace is None or not run.result.block_dim:
        raise RuntimeError(run.error or "the twin wrote no trace")
    return run.trace, run.result.block_dim


def median_time(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--synthetic", action="store_true", help="use synth.py instead of the twin")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ascendopt-speed-") as tmp:
        work = Path(tmp)
        source = "CPU twin, add_custom"
        trace: Path | None = None
        block_dim = 40
        if not args.synthetic:
            try:
                trace, block_dim = asyncio.run(twin_trace(work))
            except (CompileError, RuntimeError, OSError) as exc:
                print(f"twin trace unavailable ({str(exc)[:120]}); using synth.py")
        if trace is None:
            source = "synth.elementwise"
            trace = synth.elementwise(
                work / "synth.jsonl", SHAPE[0] * SHAPE[1], "float16", block_dim, tile_elems=TILE
            )
        parsed = parse_trace(trace, SOC)
        size = trace.stat().st_size / 1e6
        print(f"trace: {source}, fp16 {SHAPE[0]}x{SHAPE[1]}, tile {TILE}, {block_dim} blocks")
        print(f"       {parsed.records} records ({size:.1f} MB)")
        parse_s = median_time(lambda: parse_trace(trace, SOC), args.runs)
        sim_s = median_time(lambda: simulate(parsed, SOC, block_dim, DEFAULT_CONSTANTS), args.runs)
        total_s = median_time(lambda: estimate(trace, SOC, block_dim), args.runs)
        est = estimate(trace, SOC, block_dim)
    print(f"median of {args.runs}:")
    print(f"  parse_trace   {parse_s * 1e3:8.1f} ms")
    print(f"  simulate      {sim_s * 1e3:8.1f} ms")
    print(f"  estimate()    {total_s * 1e3:8.1f} ms   (target <= 1000 ms)")
    print(
        f"  {parsed.records / total_s / 1e3:.0f} k records/s; "
        f"estimated duration {est.duration_us:.1f} µs ({est.bound})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
