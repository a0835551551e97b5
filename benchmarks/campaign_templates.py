"""The campaign over our templates at several budgets, each strategy at the same budget.

    .venv/bin/python benchmarks/campaign_templates.py [--budgets 12,24,40]
        [--strategies ours,random,tpe] [--jobs 2] [--seed 0] [template ...]

Copies the templates to a temp folder (never touching them), runs one campaign per budget with
the LLM off (no kernel rewriting: host search and, for `ours`, the bank's mechanical lessons),
and prints per budget and strategy: operators correct, improved (suggestion after the re-check),
geomean speedup, fast_1.0/1.2/2.0, evaluations spent, and the campaign's wall seconds. Durations
are the CPU twin's timing-model estimates. Asserts nothing.

What to read into it: the templates' knob spaces are small (about 28 points: tile length x
buffer count), so random search reaches the optimum's neighbourhood in a few evaluations and the
strategies tie. A comparison that separates them needs larger spaces (evolve regions, tiling-key
choices) or kernel rewriting (an LLM).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path

from ascendopt.campaign.pools import LocalPool
from ascendopt.campaign.records import CampaignSettings
from ascendopt.campaign.service import CampaignService
from ascendopt.campaign.store import CampaignStore
from ascendopt.report.campaign import SUMMARY_HEADER, build_report, summary_rows, write_reports

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


async def campaign(lib: Path, ws: Path, budget: int, strategies: list[str], jobs: int, seed: int) -> None:
    service = CampaignService(ws)
    settings = CampaignSettings(paths=[lib], budget=budget, strategies=strategies, seed=seed)  # type: ignore[arg-type]
    record = service.plan(settings)
    pool = LocalPool(jobs)
    t0 = time.perf_counter()
    try:
        record = await service.run(record, pool)
    finally:
        pool.close()
    write_reports(record, CampaignStore(ws, record.id).folder, ws)
    wall = time.perf_counter() - t0
    print(f"\nbudget {budget}: {len(record.tasks)} episodes, wall {wall:.0f} s (campaign {record.id})")
    widths = [9, 8, 9, 9, 9, 9, 9, 7]
    print("".join(h.ljust(w) for h, w in zip(SUMMARY_HEADER, widths, strict=True)))
    for row in summary_rows(build_report(record)):
        print("".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("templates", nargs="*")
    ap.add_argument("--budgets", default="12,24,40")
    ap.add_argument("--strategies", default="ours,random,tpe")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for var in ("ASCENDOPT_LLM_BASE_URL", "ASCENDOPT_LLM_MODEL", "ASCENDOPT_LLM_API_KEY"):
        os.environ.pop(var, None)  # the comparison is of host searches alone
    names = args.templates or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    with tempfile.TemporaryDirectory(prefix="ascendopt-campaign-bench-") as tmp:
        lib = Path(tmp) / "lib"
        for name in names:
            shutil.copytree(TEMPLATES / name, lib / name)
        for budget in (int(b) for b in args.budgets.split(",")):
            ws = Path(tmp) / f"ws-{budget}"
            asyncio.run(campaign(lib, ws, budget, args.strategies.split(","), args.jobs, args.seed))
            keep = Path(tempfile.gettempdir()) / f"ascendopt-campaign-bench-{budget}"
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(ws / ".ascendopt" / "campaigns", keep)
            print(f"reports kept in {keep}")


if __name__ == "__main__":
    main()
