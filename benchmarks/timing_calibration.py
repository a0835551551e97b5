"""Timing model vs real 910B measurements of CANN's own Add/Mul (msopmodeling's records).

    .venv/bin/python benchmarks/timing_calibration.py [--soc Ascend910B4] [--also Ascend910B4-1] [--rows]

msopmodeling ships profiling records of CANN operators measured on a "910B4_1"
platform (tilesim/tests/st/ops_accuracy/eng_ops_classic/{add,mul}/*profiling*.csv;
measured time = `profiling_time`, Task Duration in µs). For every record this model
can reproduce — elementwise Add/Mul with equal input shapes (or one input: the
Adds/Muls scalar form), dtype fp16/bf16/fp32/int32 — it writes the trace of a plain
double-buffered elementwise kernel (bf16 computed in fp32 with casts, as CANN does)
for that shape, dtype and block_dim, estimates it, and prints estimate vs measured
(median over repeated records of the same case) and the median absolute percentage
error. Broadcast and int64 cases are listed as skipped.

Prints figures; asserts nothing. Note: the model's fixed constants (costs.py) were
chosen with these records in view, so the error is in-sample.
"""

from __future__ import annotations

import argparse
import ast
import csv
import statistics
import sys
import tempfile
import time
from math import prod
from pathlib import Path

from ascendopt.evaluation.timing import calibration, synth
from ascendopt.evaluation.timing.costs import constants_with
from ascendopt.evaluation.timing.model import estimate

TORCH = {
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.float32": "float32",
    "torch.int32": "int32",
    "torch.int64": "int64",
}
SUPPORTED = {"float16", "bfloat16", "float32", "int32"}


def load_cases() -> tuple[dict[tuple, list[float]], list[str], list[Path]]:
    root = calibration.profiling_dir()
    files = sorted([*root.glob("add/*profiling*.csv"), *root.glob("mul/*profiling*.csv")])
    cases: dict[tuple, list[float]] = {}
    skipped: dict[str, int] = {}
    for f in files:
        with open(f, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                kt = row["kernel_type"]
                shapes = ast.literal_eval(row["inputs_shape"])
                dtypes = [TORCH.get(d, d) for d in ast.literal_eval(row["inputs_dtype"])]
                bd = int(row["block_dim"])
                try:
                    measured = float(row["profiling_time"])
                except ValueError:
                    continue
                why = None
                if len(set(dtypes)) != 1 or dtypes[0] not in SUPPORTED:
                    why = f"dtype {dtypes}"
                elif len(shapes) == 2 and shapes[0] != shapes[1]:
                    why = "broadcast"
                elif len(shapes) not in (1, 2):
                    why = f"{len(shapes)} inputs"
                if why:
                    key = f"{kt} {shapes} {dtypes[0]} bd={bd}: {why}"
                    skipped[key] = skipped.get(key, 0) + 1
                    continue
                op = kt if len(shapes) == 2 else f"{kt}s"
                cases.setdefault((op, tuple(shapes[0]), dtypes[0], bd), []).append(measured)
    return cases, [f"{k} (x{n})" for k, n in sorted(skipped.items())], files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", default="Ascend910B4")
    ap.add_argument("--also", default="Ascend910B4-1", help="second SoC model to compare ('' for none)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="evaluate with a cost constant changed (costs.CostConstants; repeatable)",
    )
    args = ap.parse_args()
    socs = [args.soc] + ([args.also] if args.also else [])
    try:
        constants = constants_with(args.set)
    except ValueError as exc:
        print(f"--set {exc}")
        return 2
    if args.set:
        print(f"constants changed: {', '.join(args.set)}")
    try:
        cases, skipped, files = load_cases()
    except calibration.CalibrationError as exc:
        print(f"cannot read msopmodeling's profiling records: {exc}")
        return 1
    if not files:
        print(
            f"no *profiling*.csv under {calibration.profiling_dir()}: "
            "this msopmodeling wheel does not ship them"
        )
        return 1
    print("records:", ", ".join(str(f.relative_to(calibration.tilesim_dir())) for f in files))
    for s in socs:
        print(f"{s}: {calibration.soc_calibration(s).label}")
    head = f"{'op':5} {'shape':>18} {'dtype':>8} {'bd':>3} {'n':>4} {'measured':>9}"
    for s in socs:
        head += f" {s[6:]:>10} {'err%':>6}"
    head += "  bound"
    print(head)
    errs: dict[str, list[float]] = {s: [] for s in socs}
    wall = []
    with tempfile.TemporaryDirectory() as tmp:
        for (op, shape, dtype, bd), measured_list in sorted(
            cases.items(), key=lambda kv: statistics.median(kv[1])
        ):
            measured = statistics.median(measured_list)
            total = prod(shape)
            path = synth.elementwise(
                Path(tmp) / "t.jsonl",
                total,
                dtype,
                bd,
                op=op,
                n_inputs=2 if op in ("Add", "Mul") else 1,
                compute_dtype="float32" if dtype == "bfloat16" else None,
            )
            dims = "x".join(map(str, shape))
            line = f"{op:5} {dims:>18} {dtype:>8} {bd:>3} {len(measured_list):>4} {measured:9.2f}"
            bound = ""
            for s in socs:
                t0 = time.perf_counter()
                est = estimate(path, s, bd, constants=constants)
                wall.append(time.perf_counter() - t0)
                err = (est.duration_us - measured) / measured * 100
                errs[s].append(abs(err))
                line += f" {est.duration_us:10.2f} {err:+6.1f}"
                bound = bound or est.bound
            print(line + f"  {bound}")
    print()
    for s in socs:
        e = errs[s]
        if e:
            print(
                f"{s}: {len(e)} cases, median |error| {statistics.median(e):.1f} %, "
                f"mean {statistics.fmean(e):.1f} %, max {max(e):.1f} %"
            )
    if wall:
        print(
            f"estimate() wall time: median {statistics.median(wall) * 1e3:.1f} ms, "
            f"max {max(wall) * 1e3:.1f} ms"
        )
    print(f"\nskipped ({len(skipped)} cases not reproducible by a plain elementwise trace):")
    for s in skipped:
        print("  ", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
