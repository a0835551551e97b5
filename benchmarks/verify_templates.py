"""Median wall time of `ascendopt verify` per template, cold (empty build cache) and warm.

    .venv/bin/python benchmarks/verify_templates.py [--runs 3] [NAME ...]

Prints figures; asserts nothing. Target (issue 3): cold median <= 3 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    rc = subprocess.run(cmd, env=env, capture_output=True).returncode
    return time.perf_counter() - start, rc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    exe = [sys.executable, "-m", "ascendopt", "verify"]
    print(f"{'template':24} {'cold median s':>14} {'warm median s':>14} {'cases':>6}  result")
    colds_all = []
    for name in names:
        cmd = [*exe, str(TEMPLATES / name)]
        colds, warms, rc = [], [], 0
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "XDG_CACHE_HOME": cache}
                t, rc = _time(cmd, env)
                colds.append(t)
                t, rc = _time(cmd, env)
                warms.append(t)
        cases = (TEMPLATES / name / "ascendopt.toml").read_text().count("[[cases]]")
        colds_all.append(statistics.median(colds))
        print(
            f"{name:24} {statistics.median(colds):14.2f} {statistics.median(warms):14.2f} {cases:6}  "
            f"{'ok' if rc == 0 else f'exit {rc}'}"
        )
    print(f"{'median over templates':24} {statistics.median(colds_all):14.2f}")


if __name__ == "__main__":
    main()
