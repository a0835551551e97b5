"""How long a campaign's planning takes over a benchmark's tasks, by --jobs: each answer's spec is
derived by running its task's Python in the sandbox, which is most of it.

    PYTHONPATH=server:. .venv/bin/python benchmarks/campaign_planning.py TASKS [--jobs 1 2] [--limit N]

For each --jobs value, plans a campaign over TASKS (the first N task folders with --limit) in a
scratch workspace of its own and runs no episode; prints the wall time, the operators found and
usable, the load average around it, and whether every plan agrees with the first (each operator,
whether it is usable and why not, its derived spec's text).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from ascendopt.agent.strategies import STRATEGIES
from ascendopt.campaign.records import CampaignRecord, CampaignSettings
from ascendopt.campaign.service import CampaignService


def task_folders(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("validation") if (p / "test_cases.csv").is_file())


def plan_view(record: CampaignRecord) -> list[tuple[str, str, bool, str, str]]:
    return [
        (o.name, str(o.root), o.usable, o.reason, o.spec.read_text(encoding="utf-8") if o.spec else "")
        for o in record.operators
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--limit", type=int, default=None, help="plan over the first N task folders only")
    args = parser.parse_args()
    paths = task_folders(args.tasks.resolve())[: args.limit] if args.limit else [args.tasks.resolve()]
    settings = CampaignSettings(
        paths=paths, budget=12, strategies=[s for s in STRATEGIES if s in ("ours", "random", "tpe")]
    )
    first: list[tuple[str, str, bool, str, str]] | None = None
    print(
        f"{'jobs':>4}  {'wall s':>8}  {'operators':>9}  {'usable':>6}  {'tasks':>5}  "
        "load before → after  same plan"
    )
    for jobs in args.jobs:
        with tempfile.TemporaryDirectory(prefix="ascendopt-plan-") as ws:
            load = os.getloadavg()[0]
            started = time.monotonic()
            record = CampaignService(Path(ws)).plan(settings, jobs=jobs)
            wall = time.monotonic() - started
            view = plan_view(record)
        first = first or view
        usable = sum(1 for o in record.operators if o.usable)
        print(
            f"{jobs:>4}  {wall:>8.1f}  {len(record.operators):>9}  {usable:>6}  {len(record.tasks):>5}  "
            f"{load:>6.2f} → {os.getloadavg()[0]:<6.2f}     {'yes' if view == first else 'NO'}",
            flush=True,
        )


if __name__ == "__main__":
    main()
