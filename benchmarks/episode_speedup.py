"""Whole-episode speedup per template: one no-LLM episode each on the CPU twin.

    .venv/bin/python benchmarks/episode_speedup.py [template ...] [--budget 40] [--seed 0]

Each template is copied to a fresh temp workspace (the templates are never touched) and
optimized by `Optimizer(workspace).optimize(..., EpisodeSettings(budget, seed))` with the LLM
switched off (host search and the bank's mechanical lessons only). Prints per template the
re-checked geomean speedup (1.00 when the episode suggests nothing), the evaluations used, wall
seconds and seconds per evaluation; then the geometric mean of speedups and the median seconds
per evaluation. Durations are the twin's timing-model estimates. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import DEFAULT_BUDGET, EpisodeSettings
from ascendopt.operators.discovery import load_operator

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


async def one(name: str, budget: int, seed: int) -> tuple[float, int, float, str]:
    with tempfile.TemporaryDirectory(prefix=f"ascendopt-ep-{name}-") as tmp:
        workspace = Path(tmp)
        root = workspace / name
        shutil.copytree(TEMPLATES / name, root)
        project = load_operator(root)
        t0 = time.perf_counter()
        outcome = await Optimizer(workspace, llm=LLMSettings()).optimize(
            project, EpisodeSettings(budget=budget, seed=seed)
        )
        wall = time.perf_counter() - t0
    speedup = outcome.suggestion.geomean_speedup if outcome.suggestion else 1.0
    return speedup, outcome.evaluations, wall, outcome.message


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("templates", nargs="*", help="template names (default: all)")
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    names = args.templates or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    print(f"episode speedup: budget {args.budget}, seed {args.seed}, no LLM, CPU-twin estimates")
    print(f"{'template':<22} {'speedup':>8} {'evals':>6} {'wall s':>8} {'s/eval':>7}  outcome")
    rows: list[tuple[str, float, int, float]] = []
    for name in names:
        if not (TEMPLATES / name / "ascendopt.toml").exists():
            print(f"{name:<22} no such template")
            continue
        try:
            speedup, evals, wall, message = asyncio.run(one(name, args.budget, args.seed))
        except Exception as exc:  # one template's failure should not hide the others' figures
            print(f"{name:<22} failed: {type(exc).__name__}: {exc}")
            continue
        per = wall / evals if evals else float("nan")
        print(f"{name:<22} {speedup:>7.3f}x {evals:>6} {wall:>8.1f} {per:>7.2f}  {message}")
        sys.stdout.flush()
        rows.append((name, speedup, evals, wall))
    if not rows:
        print("no template ran")
        return 0
    geo = math.exp(statistics.fmean(math.log(r[1]) for r in rows))
    per_eval = statistics.median(r[3] / r[2] for r in rows if r[2])
    print(
        f"\ngeomean speedup over {len(rows)} templates: {geo:.3f}x; "
        f"median seconds per evaluation: {per_eval:.2f}; total wall {sum(r[3] for r in rows):.0f} s"
    )
    improved = sum(1 for r in rows if r[1] > 1.0)
    print(f"templates with a suggestion: {improved}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
