"""Median wall time of `ascendopt verify` per template on this machine.

    .venv/bin/python benchmarks/verify_templates.py [--runs 3] [NAME ...]

Three figures per template, each the median over --runs:
  first use   empty build cache: the twin's own runtime is compiled too (once per install)
  cold        the twin runtime cached, nothing of this operator: what a new or edited
              operator costs (target, issue 3: <= 3 s)
  warm        everything cached: only the runs and comparisons
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


def _time(cmd: list[str], cache: Path) -> tuple[float, int]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    start = time.perf_counter()
    rc = subprocess.run(cmd, env=env, capture_output=True).returncode
    return time.perf_counter() - start, rc


def _runtime_only_cache(folder: Path) -> None:
    os.environ["XDG_CACHE_HOME"] = str(folder)
    from ascendopt.evaluation.cpu_twin.build import Builder

    asyncio.run(Builder().runtime_objects())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    exe = [sys.executable, "-m", "ascendopt", "verify"]
    with tempfile.TemporaryDirectory() as tmp:
        seeded = Path(tmp) / "runtime-only"
        _runtime_only_cache(seeded)
        print(f"{'template':24} {'cases':>5} {'first use s':>12} {'cold s':>8} {'warm s':>8}  result")
        cold_all, warm_all = [], []
        for name in names:
            cmd = [*exe, str(TEMPLATES / name)]
            first, rc = _time(cmd, Path(tmp) / f"{name}-empty")
            colds, warms = [], []
            for n in range(args.runs):
                cache = Path(tmp) / f"{name}-{n}"
                shutil.copytree(seeded, cache)
                t, rc = _time(cmd, cache)
                colds.append(t)
                t, rc = _time(cmd, cache)
                warms.append(t)
            cases = (TEMPLATES / name / "ascendopt.toml").read_text().count("[[cases]]")
            cold_all.append(statistics.median(colds))
            warm_all.append(statistics.median(warms))
            print(
                f"{name:24} {cases:5} {first:12.2f} {statistics.median(colds):8.2f} "
                f"{statistics.median(warms):8.2f}  {'ok' if rc == 0 else f'exit {rc}'}",
                flush=True,
            )
        print(
            f"{'median over templates':24} {'':5} {'':12} {statistics.median(cold_all):8.2f} "
            f"{statistics.median(warm_all):8.2f}"
        )


if __name__ == "__main__":
    main()
