"""Fit timing-model constants on a named subset of same-kernel records; report the held-out rest.

    .venv/bin/python benchmarks/timing_fidelity.py --ops-repo PATH --keep-traces DIR   # once
    .venv/bin/python benchmarks/timing_fit.py --traces DIR/<repo> \\
        --fit "RmsNorm 910B1" --grid pipe_barrier_cycles=0,32,64 --grid first_fetch_cycles=0,20,40

Reads the traces `timing_fidelity.py --keep-traces` kept (CANN's own kernel run on the twin at
each record's shape, with the record's measured time). Every point of the grid (the product of
the `--grid` lists; other constants at their defaults in costs.py) is scored by the median
|estimate/measured − 1| over the FITTED records only (`--fit "Operator platform"`, repeatable);
ties go to the smaller mean. Only the chosen point is then scored on the held-out records, so
the held-out figure never steers the choice. Prints figures; changes nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ascendopt.evaluation.timing.costs import CostConstants
from ascendopt.evaluation.timing.model import estimate


def _ratio(job: tuple[Path, dict, dict[str, float]]) -> float:
    trace, meta, values = job
    est = estimate(trace, meta["soc"], meta["block_dim"], constants=CostConstants(**values))
    return est.duration_us / meta["measured_us"]


def _score(ratios: list[float]) -> tuple[float, float]:
    devs = [abs(r - 1) for r in ratios]
    return statistics.median(devs), statistics.fmean(devs)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--traces", type=Path, required=True, help="one source's folder under --keep-traces")
    ap.add_argument("--fit", action="append", required=True, help='"Operator platform", e.g. "RmsNorm 910B1"')
    ap.add_argument("--grid", action="append", required=True, help="name=v1,v2,... (CostConstants)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    fit = {tuple(f.split()) for f in args.fit}
    axes: dict[str, list[float]] = {}
    for g in args.grid:
        name, _, values = g.partition("=")
        if name not in CostConstants.model_fields:
            print(f"--grid {g}: {name} is not a constant of costs.CostConstants")
            return 2
        axes[name] = [float(v) for v in values.split(",")]
    cases = []
    for meta_path in sorted(args.traces.glob("*.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        cases.append((meta_path.with_suffix(".jsonl"), meta))
    fitted = [c for c in cases if (c[1]["op"], c[1]["platform"]) in fit]
    held = [c for c in cases if (c[1]["op"], c[1]["platform"]) not in fit]
    if not fitted:
        print(f"no kept trace under {args.traces} is in the fitted set {sorted(fit)}")
        return 1
    points = [dict(zip(axes, p, strict=True)) for p in itertools.product(*axes.values())]
    named = ", ".join(" ".join(f) for f in sorted(fit))
    print(f"fitted on {len(fitted)} records ({named}); {len(held)} held out")
    best: tuple[tuple[float, float], dict[str, float]] | None = None
    with ProcessPoolExecutor(args.jobs) as pool:
        for point in points:
            ratios = list(pool.map(_ratio, [(t, m, point) for t, m in fitted]))
            score = _score(ratios)
            print(
                f"  {point}: fitted median |r-1| {score[0] * 100:5.1f} %, mean {score[1] * 100:5.1f} %, "
                f"ratios {' '.join(f'{r:.2f}' for r in ratios)}"
            )
            if best is None or score < best[0]:
                best = (score, point)
        assert best is not None
        print(f"chosen: {best[1]} (fitted median |r-1| {best[0][0] * 100:.1f} %)")
        if held:
            ratios = list(pool.map(_ratio, [(t, m, best[1]) for t, m in held]))
            for (_, m), r in zip(held, ratios, strict=True):
                shape = "x".join(map(str, m["shape"]))
                print(f"    held out {m['op']:10} {shape:>12} {m['platform']:8} ratio {r:5.2f}")
            score = _score(ratios)
            within = sum(1 for r in ratios if abs(r - 1) <= 0.25) / len(ratios) * 100
            print(
                f"HELD OUT at the chosen point: {len(held)} records, median |r-1| {score[0] * 100:.0f} %, "
                f"within ±25 %: {within:.0f} %"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
