"""Host-search efficiency: evaluations to reach within 2 % of the optimum, ours vs random vs TPE.

    .venv/bin/python benchmarks/host_search_efficiency.py [template ...] [--seeds 7] [--cap 64]
        [--cache benchmarks/.cache/host_search] [--tolerance 0.02]

For each template (all of templates/operators by default) the knob space (every combination of
the non-region knobs' values, as the parser lists them) is enumerated exhaustively on the CPU
twin with profiling, on a reduced spec: a temp copy whose ascendopt.toml keeps only the smallest
and the largest case (by input elements). Spaces larger than --cap combinations are skipped.
Evaluations are cached on disk (CachedEvaluator), so reruns compile nothing.

That gives a table assignment -> score (geomean duration relative to the baseline, lower is
better; None if the candidate fails). Against the table, with no more compiles, each method is
run for --seeds seeds and we count the evaluations until one scores <= (1 + tolerance) x optimum.
Every method's evaluation 1 is the baseline (the episode always measures it first):

  ours    KnobSearch, batches of 4 (propose 4, tell 4) as the episode does
  random  uniform without replacement, seeded
  tpe     optuna's TPESampler (ask/tell), one categorical per knob; repeats of an already
          evaluated assignment are told again from the table and not counted

Prints a table per template and a summary; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ascendopt.agent.scoring import relative_score
from ascendopt.agent.strategies.knobs import Assignment, KnobSearch
from ascendopt.evaluation.cache import CachedEvaluator
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import Knob, OperatorProject

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"
BATCH = 4

Key = tuple[tuple[str, int], ...]
Table = dict[Key, float | None]


def _key(a: Assignment) -> Key:
    return tuple(sorted(a.items()))


# -- the reduced spec ----------------------------------------------------------------------------


def _elements(shapes: dict[str, list[int]]) -> int:
    return sum(math.prod(s) for s in shapes.values())


def _split_toml(text: str) -> list[str]:
    """Top-level chunks: the preamble, then one chunk per `[table]` / `[[array]]` header."""
    return re.split(r"(?m)^(?=\[)", text)


def reduced_copy(src: Path, dest: Path) -> tuple[Path, list[str]]:
    """Copy a template to `dest` keeping only its smallest and largest case; returns (root, names)."""
    project = load_operator(src)
    assert project.spec is not None, f"{src.name}: no ascendopt.toml"
    cases = sorted(project.spec.cases, key=lambda c: (_elements(c.shapes), c.name))
    keep = list(dict.fromkeys([cases[-1].name, cases[0].name]))
    root = dest / src.name
    shutil.copytree(src, root)
    spec_path = root / "ascendopt.toml"
    chunks = _split_toml(spec_path.read_text(encoding="utf-8"))
    kept = []
    for chunk in chunks:
        if chunk.startswith("[[cases]]"):
            m = re.search(r'(?m)^name\s*=\s*"([^"]*)"', chunk)
            if m is None or m.group(1) not in keep:
                continue
        kept.append(chunk)
    spec_path.write_text("".join(kept), encoding="utf-8")
    reduced = load_operator(root)
    assert reduced.spec is not None and sorted(c.name for c in reduced.spec.cases) == sorted(keep)
    return root, keep


# -- the table ------------------------------------------------------------------------------------


def search_knobs(project: OperatorProject) -> list[Knob]:
    return [k for k in project.knobs if k.kind != "region" and k.values]


def space(knobs: list[Knob]) -> list[Assignment]:
    names = [k.name for k in knobs]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(k.values for k in knobs))]


async def build_table(
    project: OperatorProject, knobs: list[Knob], evaluator: CachedEvaluator
) -> tuple[Table, Assignment]:
    base_assignment = {k.name: int(k.current) for k in knobs}
    base_eval = await verify(evaluator, project, profile=True)
    base_us = base_eval.durations()
    if base_us is None:
        raise RuntimeError(f"{project.name}: the baseline fails on the twin ({base_eval.status})")
    table: Table = {}

    async def one(a: Assignment) -> None:
        if a == base_assignment:
            table[_key(a)] = 1.0
            return
        ev = await verify(evaluator, project, profile=True, assignment=dict(a))
        d = ev.durations()
        table[_key(a)] = None if d is None else relative_score(d, base_us)

    # The evaluator runs cases on its own pool; evaluate candidates one at a time (2 cores shared).
    for a in space(knobs):
        await one(a)
    return table, base_assignment


# -- the methods ----------------------------------------------------------------------------------

Method = Callable[[list[Knob], Table, Assignment, int, float], int | None]


def run_ours(knobs: list[Knob], table: Table, base: Assignment, seed: int, target: float) -> int | None:
    search = KnobSearch(knobs, seed)
    search.tell(base, table[_key(base)])
    used = 1
    if (table[_key(base)] or math.inf) <= target:
        return used
    while True:
        batch = search.propose(BATCH)
        if not batch:
            return None  # converged without reaching the target
        hit = None
        for a in batch:
            used += 1
            s = table[_key(a)]
            if hit is None and s is not None and s <= target:
                hit = used
        for a in batch:  # tell the whole batch, as the episode does
            search.tell(a, table[_key(a)])
        if hit is not None:
            return hit


def run_random(knobs: list[Knob], table: Table, base: Assignment, seed: int, target: float) -> int | None:
    rest = [a for a in space(knobs) if a != base]
    random.Random(seed).shuffle(rest)
    for i, a in enumerate([base, *rest], start=1):
        s = table[_key(a)]
        if s is not None and s <= target:
            return i
    return None


def make_tpe() -> Method | None:
    try:
        import optuna
    except ImportError:
        return None
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def run_tpe(knobs: list[Knob], table: Table, base: Assignment, seed: int, target: float) -> int | None:
        sampler = optuna.samplers.TPESampler(seed=seed)
        study = optuna.create_study(direction="minimize", sampler=sampler)
        study.enqueue_trial(dict(base))
        seen: set[Key] = set()
        failures = 0
        while len(seen) < len(table) and failures < 2000:
            trial = study.ask()
            a = {k.name: int(trial.suggest_categorical(k.name, list(k.values))) for k in knobs}
            s = table[_key(a)]
            if s is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, s)
            if _key(a) in seen:
                failures += 1  # a repeat costs no evaluation: the real system would hit its cache
                continue
            seen.add(_key(a))
            if s is not None and s <= target:
                return len(seen)
        return None

    return run_tpe


# -- main -----------------------------------------------------------------------------------------


def fmt_assignment(a: Assignment) -> str:
    return " ".join(f"{k}={v}" for k, v in a.items())


def median_or_none(xs: list[int | None], penalty: int) -> float:
    """Median with failures counted as `penalty` (space size + 1): never reached = worst."""
    return statistics.median(penalty if x is None else x for x in xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("templates", nargs="*", help="template names (default: all)")
    ap.add_argument("--seeds", type=int, default=7)
    ap.add_argument("--cap", type=int, default=64, help="skip templates with a larger knob space")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--cache", type=Path, default=REPO / "benchmarks" / ".cache" / "host_search")
    args = ap.parse_args()

    names = args.templates or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    methods: dict[str, Method | None] = {"ours": run_ours, "random": run_random, "tpe": make_tpe()}
    if methods["tpe"] is None:
        print("optuna is not installed (.venv/bin/pip install -e '.[bench]'): TPE column skipped")
    evaluator = CachedEvaluator(CpuTwinEvaluator(parallel=2), args.cache)
    seeds = list(range(args.seeds))
    print(
        f"host search efficiency: evals to reach score <= {1 + args.tolerance:.2f} x optimum, "
        f"median over {len(seeds)} seeds (eval 1 = the baseline); CPU-twin estimates"
    )
    results: dict[str, dict[str, float]] = {}
    flat: list[str] = []
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ascendopt-hse-") as tmp:
        for name in names:
            src = TEMPLATES / name
            if not (src / "ascendopt.toml").exists():
                print(f"\n{name}: no such template")
                continue
            knobs = search_knobs(load_operator(src))
            size = math.prod(len(k.values) for k in knobs) if knobs else 0
            if not knobs or size > args.cap:
                print(f"\n{name}: knob space {size} > cap {args.cap} (or no knobs): skipped")
                skipped.append(name)
                continue
            root, cases = reduced_copy(src, Path(tmp))
            project = load_operator(root)
            knobs = search_knobs(project)
            t0 = time.perf_counter()
            misses0 = evaluator.misses
            try:
                table, base = asyncio.run(build_table(project, knobs, evaluator))
            except RuntimeError as exc:
                print(f"\n{name}: {exc}: skipped")
                skipped.append(name)
                continue
            took = time.perf_counter() - t0
            valid = {k: s for k, s in table.items() if s is not None}
            best_key = min(valid, key=lambda k: (valid[k], k))
            best = valid[best_key]
            target = best * (1 + args.tolerance)
            is_flat = target >= 1.0
            print(
                f"\n{name}: space {size} ({len(valid)} valid), cases {', '.join(cases)}; "
                f"table in {took:.0f} s ({evaluator.misses - misses0} evaluated, rest cached)"
            )
            print(f"  optimum {best:.4f} (speedup {1 / best:.2f}x) at {fmt_assignment(dict(best_key))}")
            near = sorted(fmt_assignment(dict(k)) for k, s in valid.items() if s <= target)
            print(f"  {len(near)} assignment(s) within {args.tolerance:.0%}: {'; '.join(near)}")
            if is_flat:
                print(f"  FLAT: the baseline is within {args.tolerance:.0%} of the optimum")
                flat.append(name)
            row: dict[str, float] = {}
            print(f"  {'method':<7} {'median':>6}  per seed")
            for mname, method in methods.items():
                if method is None:
                    continue
                counts = [method(knobs, table, base, seed, target) for seed in seeds]
                row[mname] = median_or_none(counts, size + 1)
                shown = " ".join("-" if c is None else str(c) for c in counts)
                print(f"  {mname:<7} {row[mname]:>6.1f}  {shown}")
            results[name] = row
            sys.stdout.flush()

    print("\nsummary (median evaluations to within 2 % of the optimum)")
    header = f"{'template':<22} {'ours':>6} {'random':>7} {'tpe':>6}  flat"
    print(header)
    for name, row in results.items():
        tpe = f"{row['tpe']:>6.1f}" if "tpe" in row else f"{'n/a':>6}"
        mark = "yes" if name in flat else ""
        print(f"{name:<22} {row['ours']:>6.1f} {row['random']:>7.1f} {tpe}  {mark}")
    scored = {n: r for n, r in results.items() if n not in flat}
    if not results:
        print("no template measured")
        return 0
    med = {m: statistics.median(r[m] for r in results.values()) for m in results[next(iter(results))]}
    print(
        "median over all templates: "
        + ", ".join(f"{m} {v:.1f}" for m, v in med.items())
        + f" ({len(results)} templates)"
    )
    print(f"flat spaces (excluded from the ratios): {len(flat)}" + (f" ({', '.join(flat)})" if flat else ""))
    if skipped:
        print(f"skipped: {', '.join(skipped)}")
    if scored:
        smed = {m: statistics.median(r[m] for r in scored.values()) for m in med}
        line = f"non-flat templates ({len(scored)}): " + ", ".join(f"{m} {v:.1f}" for m, v in smed.items())
        print(line)
        print(f"ratio ours/random = {smed['ours'] / smed['random']:.2f} (goal <= 0.33)")
        if "tpe" in smed:
            print(f"ratio ours/tpe    = {smed['ours'] / smed['tpe']:.2f} (goal < 1)")
    else:
        print("every measured space is flat: no ratio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
