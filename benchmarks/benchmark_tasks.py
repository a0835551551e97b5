"""Verify every task of a KernelBench-style benchmark (NPUKernelBench) as it sits, one at a time.

For each task folder (`<level>/<category>/<task>/` with `answer/<n>/` and `validation/`):
`ascendopt verify <task>/answer/0 --json` (the spec derived from the task, nothing written), then
one line per task and the must-show table: tasks found, spec derived, verified, failures by cause.

    python benchmarks/benchmark_tasks.py TASKS_DIR|TASK... [--level level1] [--timeout 900]
        [--out results.jsonl]

Each argument is a benchmark's tasks folder or one task folder (it holds `validation/`).

Resumable: tasks already in `--out` are not run again.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def tasks_under(root: Path, level: str | None) -> list[Path]:
    """The tasks of a benchmark's tasks folder, or `root` itself when it is one task (has validation/)."""
    if (root / "validation").is_dir():
        return [root]
    found = sorted(p.parent for p in root.glob("*/*/*/validation") if p.is_dir())
    return [t for t in found if level is None or t.parts[len(root.parts)] == level]


def run_task(task: Path, timeout: float) -> dict[str, object]:
    answer = task / "answer" / "0"
    row: dict[str, object] = {"task": str(task), "answer": answer.is_dir()}
    if not answer.is_dir():
        row.update(status="no answer", cause="the task ships no answer/0")
        return row
    start = time.monotonic()
    cmd = ["nice", "-n", "10", sys.executable, "-m", "ascendopt", "verify", str(answer), "--json"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=os.environ.copy())
    except subprocess.TimeoutExpired:
        row.update(status="timeout", cause=f"verify ran past {timeout:.0f} s", seconds=timeout)
        return row
    row["seconds"] = round(time.monotonic() - start, 1)
    derived = "spec: derived" in done.stderr
    row["spec"] = derived
    try:
        ev = json.loads(done.stdout)
    except ValueError:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        row.update(status="no spec" if not derived else "error", cause=" ".join(lines[-3:])[-400:])
        return row
    cases = ev.get("cases") or []
    passed = [c["name"] for c in cases if c.get("status") == "passed"]
    row["cases"] = len(cases)
    if ev.get("unchecked_outputs"):  # outputs the task's Model gives no value for: said, not judged
        row["unchecked"] = ev["unchecked_outputs"]
    row["passed"] = len(passed)
    if ev.get("status") == "compile_error":
        first = (ev.get("compile_errors") or [{}])[0]
        row.update(
            status="compile_error", cause=f"{first.get('file')}:{first.get('line')}: {first.get('message')}"
        )
    elif cases and len(passed) == len(cases):
        row.update(status="verified", cause="")
    elif ev.get("status") != "ok":
        row.update(status="error", cause=str(ev.get("message"))[:400])
    else:
        bad = next(c for c in cases if c.get("status") != "passed")
        errors = [f for f in bad.get("findings") or [] if f.get("severity") == "error"]
        where = (
            f" {errors[0].get('file')}:{errors[0].get('line')} {errors[0].get('message')}" if errors else ""
        )
        row.update(status="failed", cause=f"{bad['name']}: {bad.get('message')}{where}"[:400])
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", type=Path, nargs="+", help="a benchmark's tasks folder, or task folders")
    ap.add_argument("--level")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out", type=Path, default=Path("benchmark_tasks.jsonl"))
    args = ap.parse_args()
    done: dict[str, dict[str, object]] = {}
    if args.out.exists():
        for line in args.out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[str(row["task"])] = row
    tasks = [t for root in args.tasks for t in tasks_under(root.resolve(), args.level)]
    for task in tasks:
        if str(task) in done:
            continue
        row = run_task(task, args.timeout)
        done[str(task)] = row
        with args.out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(
            f"{row['status']:14s} {'/'.join(task.parts[-3:])}  {row.get('cause', '')}",
            flush=True,
        )
    rows = [done[str(t)] for t in tasks]
    status = collections.Counter(str(r["status"]) for r in rows)
    print(
        f"\ntasks found {len(rows)}; with an answer {sum(bool(r['answer']) for r in rows)}; "
        f"spec derived {sum(bool(r.get('spec')) for r in rows)}; verified {status['verified']}"
    )
    for s, n in status.most_common():
        print(f"  {s:14s} {n}")


if __name__ == "__main__":
    main()
