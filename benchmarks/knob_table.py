"""The knobs `ascendopt knobs` finds on real operators, as a Markdown table, and what another
version of the finder found on the same folders (issue 26's before/after table).

    PYTHONPATH=server:. .venv/bin/python benchmarks/knob_table.py [--before SERVER_DIR] FOLDER ...

Every operator under each folder (as `ascendopt discover` finds them): its knobs, each with its role
(from the dataflow: what its value decides) or its kind (from the name), the number of constants
considered and refused, and with a spec the points its knob space holds. `--before` runs this
script again with `PYTHONPATH=SERVER_DIR` (e.g. another checkout's `server/`) and adds its knobs as
a column; a finder without roles or refusals shows kinds only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from ascendopt.operators.discovery import discover


def _rows(folders: list[Path]) -> dict[str, dict[str, object]]:
    """operator folder → {knobs: ["NAME role", …], refused: n, points: n or None}."""
    out: dict[str, dict[str, object]] = {}
    for folder in folders:
        for op in discover(folder).operators:
            knobs = [f"{k.name} {getattr(k, 'role', None) or k.kind}" for k in op.knobs if k.kind != "region"]
            points = None
            if op.spec is not None:
                points = 1
                for k in op.knobs:
                    points *= max(1, len(k.values))
            refused = getattr(op, "refused", None)
            out[f"{op.root}#{op.name}"] = {
                "knobs": knobs,
                "refused": None if refused is None else len(refused),
                "points": points,
            }
    return out


def _before(server: Path, folders: list[Path]) -> dict[str, dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": f"{server}{os.pathsep}{Path(__file__).resolve().parent.parent}"}
    run = subprocess.run(
        [sys.executable, __file__, "--json", *map(str, folders)], env=env, capture_output=True, text=True
    )
    if run.returncode != 0:
        sys.exit(f"--before {server}: {run.stderr.strip()[-2000:]}")
    data: dict[str, dict[str, object]] = json.loads(run.stdout)
    return data


def _cell(knobs: object) -> str:
    return ", ".join(str(k) for k in knobs) if isinstance(knobs, list) and knobs else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--before", type=Path, help="another finder's server/ folder, for a before column")
    parser.add_argument("--json", action="store_true", help="the rows as JSON (what --before reads)")
    args = parser.parse_args()
    rows = _rows(args.folders)
    if args.json:
        print(json.dumps(rows))
        return
    before = _before(args.before, args.folders) if args.before else None
    head = ["operator", *(["before"] if before is not None else []), "after", "refused", "points"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key, row in rows.items():
        root, name = key.rsplit("#", 1)
        cells = [f"{name} ({os.path.relpath(root)})"]
        if before is not None:
            cells.append(_cell(before.get(key, {}).get("knobs")))
        points = row["points"]
        cells += [_cell(row["knobs"]), str(row["refused"]), "-" if points is None else str(points)]
        print("| " + " | ".join(cells) + " |")
    found = sum(1 for r in rows.values() if r["knobs"])
    print(f"\n{found} of {len(rows)} operators with at least one knob", end="")
    if before is not None:
        was = sum(1 for r in before.values() if r.get("knobs"))
        print(f" (before: {was})", end="")
    print()


if __name__ == "__main__":
    main()
