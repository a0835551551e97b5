"""Host-search efficiency: evaluations to reach within 2 % of the exhaustive best, ours vs random vs TPE.

    .venv/bin/python benchmarks/host_search_efficiency.py [OP ...] [--seeds 9] [--budget 48]
        [--points 160] [--min-points 100] [--cache DIR] [--tolerance 0.02]

OP is a template name (templates/operators), an operator folder, or FOLDER=SPEC for an operator
whose ascendopt.toml lies elsewhere (an open-repo operator read in its repository).

For each operator its knob space (the non-region knobs' values as the knob finder gives them) is
evaluated exhaustively on the CPU twin with profiling, on a reduced spec (its smallest and largest
case). A space larger than --points is thinned to a subspace first (a tile's or core grain's values
within 8x of its current value, then each knob keeps evenly spaced values and its current one, the
widest domain thinned first) and the output says so; a space
smaller than --min-points is reported and skipped. The table (per point: the score relative to the
baseline, None if it fails, and the profile signals `ours` reads) is cached as JSON under --cache,
keyed by the operator's digest (its files, the reduced spec, the knob domains, the SoC), so reruns
compile nothing.

Then, with no more compiles, each strategy's own search class runs against the table at the same
budget for --seeds seeds, in batches of 4 (propose 4, tell 4, as the episode does), evaluation 1
being the baseline. The twin is deterministic, so looking a point up equals evaluating it again.
Printed per operator and strategy: the evaluations until a point scores <= (1 + tolerance) x the
exhaustive best (median over seeds, a miss counted as budget + 1) and how many seeds missed; then
the ratios ours/random and ours/tpe. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import math
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.agent.scoring import relative_score
from ascendopt.agent.strategies.guided import GuidedSearch
from ascendopt.agent.strategies.knobs import Assignment, HostSearch, key_of
from ascendopt.agent.strategies.random_search import RandomSearch
from ascendopt.agent.strategies.signals import Signals
from ascendopt.agent.strategies.tpe import TpeSearch
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.candidate import baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.domains import knob_role
from ascendopt.operators.model import Knob, OperatorProject
from ascendopt.operators.soc import Soc, resolve_soc

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"
BATCH = 4
WINDOW = 8

Key = tuple[tuple[str, int], ...]


class Point:
    """One point of the table: its score and the signals of its profile."""

    def __init__(self, score: float | None, signals: Signals | None) -> None:
        self.score, self.signals = score, signals

    def dump(self) -> dict:
        return {"score": self.score, "signals": None if self.signals is None else self.signals.__dict__}

    @classmethod
    def load(cls, d: dict) -> Point:
        return cls(d["score"], None if d["signals"] is None else Signals(**d["signals"]))


Table = dict[Key, Point]


# -- the operator, its reduced spec and its (thinned) space ----------------------------------------


def _elements(shapes: dict) -> int:
    """Elements over every tensor of a case (a list input holds one shape per tensor)."""

    def count(shape: list) -> int:
        return sum(count(s) for s in shape) if shape and isinstance(shape[0], list) else math.prod(shape)

    return sum(count(s) for s in shapes.values())


def reduced_spec(root: Path, spec: Path, dest: Path) -> tuple[Path, list[str]]:
    """A copy of `spec` (and its reference file) in `dest` keeping its smallest and largest case."""
    project = load_operator(root, spec=spec)
    assert project.spec is not None, f"{root}: no spec"
    cases = sorted(project.spec.cases, key=lambda c: (_elements(c.shapes), c.name))
    keep = list(dict.fromkeys([cases[-1].name, cases[0].name]))
    dest.mkdir(parents=True)
    kept = []
    for chunk in re.split(r"(?m)^(?=\[)", spec.read_text(encoding="utf-8")):
        if chunk.startswith("[[cases]]"):
            m = re.search(r'(?m)^name\s*=\s*"([^"]*)"', chunk)
            if m is None or m.group(1) not in keep:
                continue
        kept.append(chunk)
    out = dest / "ascendopt.toml"
    out.write_text("".join(kept), encoding="utf-8")
    ref = project.spec.reference.split(":", 1)[0]
    if (spec.parent / ref).exists():
        shutil.copy(spec.parent / ref, dest / ref)
    return out, keep


def search_knobs(project: OperatorProject) -> list[Knob]:
    return [k for k in project.knobs if k.kind != "region" and k.values]


def _window(k: Knob) -> list[int]:
    """A tile's or core grain's values within WINDOW x of its current value: a tile of 16 elements
    on the largest case is millions of instructions for the timing model to replay (a table of
    such points took hours on this machine), and no search would stay there."""
    if knob_role(k) not in ("tile_elems", "tile_bytes", "core_grain") or not isinstance(k.current, int):
        return list(k.values)
    return [v for v in k.values if k.current / WINDOW <= v <= k.current * WINDOW]


def thin(knobs: list[Knob], points: int) -> list[Knob]:
    """A subspace of at most `points` points: tiles and grains windowed around their current value,
    then the widest domain loses values first, each keeping evenly spaced ones and the current one."""
    kept = {k.name: _window(k) for k in knobs}
    current = {k.name: k.current for k in knobs}
    shrinkable = set(kept)
    while shrinkable and math.prod(len(v) for v in kept.values()) > points:
        name = max(shrinkable, key=lambda n: (len(kept[n]), n))
        values = kept[name]
        n = max(2, len(values) * 2 // 3)
        picked = {values[round(i * (len(values) - 1) / (n - 1))] for i in range(n)}
        fewer = sorted(picked | ({int(current[name])} if current[name] in values else set()))
        if len(fewer) < len(values):
            kept[name] = fewer
        else:
            shrinkable.discard(name)
    return [k.model_copy(update={"values": kept[k.name]}) for k in knobs]


def space(knobs: list[Knob]) -> list[Assignment]:
    names = [k.name for k in knobs]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(k.values for k in knobs))]


def digest(project: OperatorProject, spec: Path, knobs: list[Knob], soc: Soc) -> str:
    payload = json.dumps(
        [
            baseline(project).id,
            spec.read_text(encoding="utf-8"),
            [(k.name, k.values) for k in knobs],
            soc.name,
        ]
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


async def build_table(project: OperatorProject, knobs: list[Knob], soc: Soc) -> Table:
    """Every point of the space, evaluated one at a time (the machine's cores are shared)."""
    evaluator = CpuTwinEvaluator(parallel=1)
    base_assignment = {k.name: int(k.current) for k in knobs}
    base_eval = await verify(evaluator, project, profile=True)
    base_us = base_eval.durations()
    if base_us is None:
        raise RuntimeError(f"the baseline fails on the twin ({base_eval.failure_reason()})")
    table: Table = {key_of(base_assignment): Point(1.0, Signals.of(base_eval, soc))}
    for a in space(knobs):
        if key_of(a) in table:
            continue
        ev = await verify(evaluator, project, profile=True, assignment=dict(a))
        d = ev.durations()
        table[key_of(a)] = Point(None if d is None else relative_score(d, base_us), Signals.of(ev, soc))
    return table


def cached_table(cache: Path, name: str, project: OperatorProject, spec: Path, knobs: list[Knob]) -> Table:
    soc = resolve_soc(None, None, project.spec)
    path = cache / f"{name}-{digest(project, spec, knobs, soc)}.json"
    if path.exists():
        rows = json.loads(path.read_text(encoding="utf-8"))
        return {tuple((k, v) for k, v in row["key"]): Point.load(row) for row in rows}
    table = asyncio.run(build_table(project, knobs, soc))
    cache.mkdir(parents=True, exist_ok=True)
    rows = [{"key": [list(kv) for kv in k], **p.dump()} for k, p in table.items()]
    path.write_text(json.dumps(rows), encoding="utf-8")
    return table


# -- the strategies against the table -------------------------------------------------------------

SEARCHES: dict[str, type] = {"ours": GuidedSearch, "random": RandomSearch, "tpe": TpeSearch}


def evaluations_to(
    cls: type, knobs: list[Knob], table: Table, seed: int, target: float, budget: int
) -> int | None:
    """How many evaluations (the baseline first) until one scores <= target; None: not within budget."""
    search: HostSearch = cls(knobs, seed)
    base = {k.name: int(k.current) for k in knobs}

    def tell(a: Assignment) -> None:
        p = table[key_of(a)]
        search.tell(a, p.score, p.signals)  # every search is told the signals; only ours reads them

    tell(base)
    used, hit = 1, None
    if (table[key_of(base)].score or math.inf) <= target:
        return 1
    while used < budget and hit is None:
        batch = search.propose(min(BATCH, budget - used))
        if not batch:
            return None
        for a in batch:
            used += 1
            s = table[key_of(a)].score
            if hit is None and s is not None and s <= target:
                hit = used
        for a in batch:  # the whole batch is told, as the episode does
            tell(a)
    return hit


# -- main ------------------------------------------------------------------------------------------


def operator_arg(arg: str) -> tuple[str, Path, Path]:
    """(name, folder, spec) from a template name, a folder, or FOLDER=SPEC."""
    folder, _, spec = arg.partition("=")
    root = TEMPLATES / folder if (TEMPLATES / folder).is_dir() else Path(folder)
    spec_path = Path(spec) if spec else root / "ascendopt.toml"
    if not spec_path.exists():
        raise SystemExit(f"{arg}: no spec at {spec_path}")
    return root.name, root.resolve(), spec_path.resolve()


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "operators", nargs="*", help="template names, folders, or FOLDER=SPEC (default: templates)"
    )
    ap.add_argument("--seeds", type=int, default=9)
    ap.add_argument(
        "--budget", type=int, default=48, help="evaluations each strategy may spend, baseline included"
    )
    ap.add_argument("--points", type=int, default=160, help="thin larger spaces to at most this many points")
    ap.add_argument("--min-points", type=int, default=100, help="skip spaces smaller than this")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--cache", type=Path, default=REPO / "benchmarks" / ".cache" / "host_search_tables")
    args = ap.parse_args()

    ops = args.operators or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    seeds = list(range(args.seeds))
    print(
        f"host search efficiency: evaluations until a point within {args.tolerance:.0%} of the "
        f"exhaustive best, budget {args.budget} each (evaluation 1 = the baseline), "
        f"{len(seeds)} seeds, batches of {BATCH}.\n"
        "The tables are CPU-twin estimates; the twin is deterministic, so a table lookup equals "
        "re-evaluating the point."
    )
    rows: dict[str, dict[str, tuple[float, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="ascendopt-hse-") as tmp:
        for i, arg in enumerate(ops):
            name, root, spec = operator_arg(arg)
            reduced, cases = reduced_spec(root, spec, Path(tmp) / str(i))
            project = load_operator(root, spec=reduced)
            full = search_knobs(project)
            size = math.prod(len(k.values) for k in full) if full else 0
            if size < args.min_points:
                print(f"\n{name}: {size} point(s) in its knob space (< {args.min_points}): skipped")
                continue
            knobs = thin(full, args.points)
            points = math.prod(len(k.values) for k in knobs)
            t0 = time.perf_counter()
            try:
                table = cached_table(args.cache, name, project, reduced, knobs)
            except RuntimeError as exc:
                print(f"\n{name}: {exc}: skipped")
                continue
            valid = {k: p.score for k, p in table.items() if p.score is not None}
            best_key = min(valid, key=lambda k: (valid[k], k))
            target = valid[best_key] * (1 + args.tolerance)
            near = sum(1 for s in valid.values() if s <= target)
            print(
                f"\n{name} ({root}): {size} points"
                + (f", thinned to {points}" if points < size else "")
                + f" ({len(valid)} valid; cases {', '.join(cases)}; table {time.perf_counter() - t0:.0f} s)"
            )
            print(
                "  knobs: "
                + "; ".join(f"{k.name} ({k.role or k.kind}) {len(k.values)} values" for k in knobs)
            )
            print(
                f"  exhaustive best {1 / valid[best_key]:.3f}x at "
                + " ".join(f"{k}={v}" for k, v in best_key)
                + f"; {near} point(s) within {args.tolerance:.0%}"
            )
            rows[name] = {}
            for sname, cls in SEARCHES.items():
                counts = [evaluations_to(cls, knobs, table, s, target, args.budget) for s in seeds]
                med = statistics.median(args.budget + 1 if c is None else c for c in counts)
                missed = sum(c is None for c in counts)
                rows[name][sname] = (med, missed)
                shown = " ".join("-" if c is None else str(c) for c in counts)
                print(f"  {sname:<7} median {med:>5.1f}  missed {missed}/{len(seeds)}  per seed: {shown}")
            sys.stdout.flush()

    if not rows:
        print("no operator measured")
        return 0
    print(
        f"\nsummary: median evaluations to within {args.tolerance:.0%} (missed seeds), budget {args.budget}"
    )
    print(f"{'operator':<26} {'ours':>11} {'random':>11} {'tpe':>11} {'ours/random':>12} {'ours/tpe':>9}")
    for name, r in rows.items():
        cells = " ".join(f"{r[s][0]:>6.1f} ({r[s][1]})" for s in SEARCHES)
        print(f"{name:<26} {cells} {r['ours'][0] / r['random'][0]:>12.2f} {r['ours'][0] / r['tpe'][0]:>9.2f}")
    geo = {s: math.exp(statistics.mean(math.log(r[s][0]) for r in rows.values())) for s in SEARCHES}
    print(
        f"geomean over {len(rows)} space(s): "
        + ", ".join(f"{s} {v:.1f}" for s, v in geo.items())
        + f"; ours/random {geo['ours'] / geo['random']:.2f}, ours/tpe {geo['ours'] / geo['tpe']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
