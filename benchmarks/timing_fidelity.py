"""Fidelity of twin + timing model: OUR templates' estimates vs CANN's measured kernels on 910B.

    .venv/bin/python benchmarks/timing_fidelity.py [--max-elems 16777216] [--jobs 2] [--ops add,mul,...]

msopmodeling ships real 910B profiling records of CANN's own operators
(tilesim/tests/st/ops_accuracy/eng_ops_classic/<op>/*profiling*.csv; measured time =
`profiling_time`, Task Duration in µs). For every record whose operator maps onto one
of our templates and whose shape/dtype the template supports, this script runs OUR
template at that shape and dtype on the CPU twin (g++; builds cached by content, at
most --jobs cases at once), feeds the trace to the timing model for the SoC the record
was measured on, and prints estimate vs measured.

    add (Add, two equal shapes)   -> add_custom         mul (Mul, two equal shapes) -> mul_custom
    mul (Muls, one input)         -> muls_custom        rms_norm (RmsNorm)          -> rms_norm_custom
    softmax_v2 (SoftmaxV2)        -> softmax_custom     layer_norm_v3 (LayerNormV3) -> layer_norm_custom
    add_rms_norm (AddRmsNorm)     -> add_rms_norm_custom

Records are deduplicated by (operator, shapes, dtype, platform): measured = median of
the repeats, block dim = the most common one. Cases above --max-elems elements per
tensor are skipped (counted). The cases are built in memory from the template's spec
(its inputs, dtypes and attrs; one case with the record's shapes); templates/ is only
read. SoC model: records taken on "910B4_1" use the Ascend910B4 model, the one the
model's constants were chosen with on these same Add/Mul records
(benchmarks/timing_calibration.py: 18 % median error vs 39 % for Ascend910B4-1); the
Ascend910B4-1 model (910B4 cores and clocks, twice its GM bandwidth table) is shown
alongside. "910B1" records use Ascend910B1 (48 vector cores) for twin and model.

THIS COMPARES OUR KERNEL'S ESTIMATE WITH THEIR (CANN'S) KERNEL'S MEASUREMENT: the
ratio mixes the quality of our template against CANN's tuned kernel with the timing
model's own error. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/timing_fidelity.py --ops-repo PATH [--ops-repo PATH …]

runs CANN's OWN open-source kernels instead (the user's checkout of ops-nn / ops-math /
cann-ops: each record's operator is looked up there by its folder name, e.g.
`norm/rms_norm` or cann-ops' `src/norm/rms_norm`, and built where it sits, with its own
tiling program), so the ratio is the timing model's error alone: same kernel, same
tiling, same shapes. Each repository is its own pass over the same records, and the
closing table is operator × platform × repository, so the repositories' versions of a
kernel can be compared. Only operators whose open kernel has a 910B variant can be
compared (the others are listed with the reason); the spec (tensors, dtypes, attrs) and
the NumPy reference come from the tables below, written from the operators' documented
signatures. Nothing of the checkout is copied or written.

A record measured more than 20 % faster than a record of the same operator, platform and
dtype with no more rows and no longer a last dimension "contradicts" it (as much data or more
in every respect, less time). The twin runs each record's own tiling, so a contradiction is
explained where the two take different tiling keys (`key` column: another kernel path) and
is suspect where they take the same one; the held-out figure is printed with and without
the contradicted records.

--set NAME=VALUE estimates with a cost constant changed (a before/after comparison);
--keep-traces DIR keeps every case's trace with its measurement, which
benchmarks/timing_fit.py fits constants on.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import csv
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

from ascendopt.evaluation.compare import compare
from ascendopt.evaluation.cpu_twin.build import Builder
from ascendopt.evaluation.cpu_twin.harness import read_outputs, run_case
from ascendopt.evaluation.reference import load_reference, run_reference
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.tensors import make_inputs
from ascendopt.evaluation.timing import calibration
from ascendopt.evaluation.timing.costs import DEFAULT_CONSTANTS, CostConstants, constants_with
from ascendopt.evaluation.timing.model import TimingEstimate, estimate
from ascendopt.operators.candidate import baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import CompileError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.repository import is_arch_variant
from ascendopt.operators.soc import soc
from ascendopt.operators.spec import AttrSpec, CaseSpec, OperatorSpec, ResolvedCase, TensorSpec

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"
TORCH = {
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.float32": "float32",
    "torch.int32": "int32",
    "torch.int64": "int64",
}
FLOATS = {"float16", "float32", "bfloat16"}
# record folders under eng_ops_classic
FOLDERS = ("add", "mul", "rms_norm", "softmax_v2", "layer_norm_v3", "add_rms_norm")
# Records the timing model's constants were fitted on (costs.py: pipe_barrier_cycles on the 910B1
# RmsNorm records); the summary reports the others apart, as held out.
FITTED_ON = {("RmsNorm", "910B1")}
RANK = ["Add", "Mul", "Muls", "RmsNorm", "SoftmaxV2", "LayerNormV3", "AddRmsNorm"]


@dataclass(frozen=True)
class OpenOp:
    """A CANN operator as the open repositories have it: its folder name, its OpDef's tensors in
    order (an output's fixed dtype, or None for the case's), its float attrs, its reference."""

    folder: str
    inputs: tuple[str, ...]
    outputs: tuple[tuple[str, str | None], ...]
    attrs: tuple[tuple[str, float], ...]


# The records' operators whose open kernels have a 910B variant (ops-nn `norm/`); Add, Mul,
# SoftmaxV2 and LayerNormV3 have only `arch35` (950) kernels there, which a 910B record cannot time.
OPEN_OPS = {
    "RmsNorm": OpenOp("rms_norm", ("x", "gamma"), (("y", None), ("rstd", "float32")), (("epsilon", 1e-6),)),
    "AddRmsNorm": OpenOp(
        "add_rms_norm",
        ("x1", "x2", "gamma"),
        (("y", None), ("rstd", "float32"), ("x", None)),
        (("epsilon", 1e-6),),
    ),
}
OPEN_FOLDERS = {
    "Add": "add",
    "Mul": "mul",
    "Muls": "muls",
    "SoftmaxV2": "softmax_v2",
    "LayerNormV3": "layer_norm_v3",
}
# NumPy references, in float64, from the operators' documented formulas (rstd = 1/sqrt(mean(x²)+eps));
# AddRmsNorm rounds as CANN's own golden does: x = x1 + x2 in the input dtype, x * rstd rounded before gamma.
OPEN_REFERENCE = """
import numpy as np


def _round(a, dtype):
    if dtype == "float16":
        return a.astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
        return u.astype(np.uint32).view(np.float32).astype(np.float64)
    return a


def _rstd(x, epsilon):
    return 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + epsilon)


def rms_norm(x, gamma, epsilon=1e-6):
    x = x.astype(np.float64)
    rstd = _rstd(x, epsilon)
    return x * rstd * gamma.astype(np.float64), rstd


def add_rms_norm(x1, x2, gamma, epsilon=1e-6, dtypes=None):
    dt = (dtypes or {}).get("x1", str(x1.dtype))
    x = _round(x1.astype(np.float64) + x2.astype(np.float64), dt)
    rstd = _rstd(x, epsilon)
    return _round(x * rstd, dt) * gamma.astype(np.float64), rstd, x
"""


def find_open_op(repos: list[Path], folder: str) -> Path | None:
    """`<repo>/<category>/<folder>` (ops-nn, ops-math) or `<repo>/src/<category>/<folder>` (cann-ops)."""
    for repo in repos:
        for pattern in (f"*/{folder}", f"src/*/{folder}"):
            for path in sorted(repo.glob(pattern)):
                if (path / "op_kernel").is_dir():
                    return path
    return None


def has_910b_kernel(path: Path) -> bool:
    """A kernel source the 910B family builds (discovery's own rule for per-architecture files)."""
    return any(
        not is_arch_variant(p.relative_to(path).as_posix()) for p in (path / "op_kernel").rglob("*.cpp")
    )


def open_spec(op: OpenOp, case: Case) -> OperatorSpec:
    floats = ["float16", "float32", "bfloat16"]
    fixed = {n: d for n, d in op.outputs if d}
    return OperatorSpec(
        name=op.folder,
        soc="Ascend910B1" if case.platform == "910B1" else "Ascend910B4",
        reference=f"reference.py:{op.folder}",
        inputs=[TensorSpec(name=n, dtypes=floats) for n in op.inputs],
        outputs=[TensorSpec(name=n, dtypes=[fixed[n]] if n in fixed else floats) for n, _ in op.outputs],
        attrs=[AttrSpec(name=a, type="float", default=v) for a, v in op.attrs],
        cases=[CaseSpec(name="record", shapes=case.shapes, dtype=case.dtype, dtypes=fixed)],
        tolerances={"bfloat16": {"rtol": 8e-3, "atol": 4e-3}},
    )


@dataclass
class Case:
    op: str  # CANN kernel type as we name it (Add, Mul, Muls, RmsNorm, ...)
    template: str
    shapes: dict[str, list[int]]  # our template's input name -> shape
    dtype: str
    platform: str  # "910B4_1" or "910B1"
    measured: list[float] = field(default_factory=list)
    block_dims: list[int] = field(default_factory=list)

    @property
    def key(self) -> tuple:
        return (self.op, tuple((k, tuple(v)) for k, v in self.shapes.items()), self.dtype, self.platform)

    @property
    def x_shape(self) -> list[int]:
        return next(iter(self.shapes.values()))

    @property
    def elems(self) -> int:
        return max(prod(s) for s in self.shapes.values())


@dataclass
class Outcome:
    case: Case
    block_dim: int | None = None
    tiling_key: int | None = None  # the key the tiling program chose on the twin
    est: dict[str, TimingEstimate] = field(default_factory=dict)  # soc -> estimate
    correct: bool = False
    flaw: str = ""  # why not correct: the first output off the reference, or the first sanitizer error
    error: str = ""
    seconds: float = 0.0


def _platform(path: Path) -> str | None:
    name = path.stem.replace("-", "_")
    if "910B4_1" in name:
        return "910B4_1"
    if "910B1" in name:
        return "910B1"
    return None


def _map(folder: str, kt: str, shapes: list[list[int]], dtypes: list[str]) -> tuple[str, str, dict] | str:
    """(op, template, our input shapes) or the reason the record is not reproducible."""
    if len(set(dtypes)) != 1 or dtypes[0] not in FLOATS:
        return f"dtype {'/'.join(sorted(set(dtypes)))}"
    if folder in ("add", "mul"):
        op = "Add" if folder == "add" else "Mul"
        if len(shapes) == 1:
            if op == "Add":
                return "Adds (tensor + scalar): no template"
            return ("Muls", "muls_custom", {"x": shapes[0]})
        if len(shapes) != 2:
            return f"{len(shapes)} inputs"
        if shapes[0] != shapes[1]:
            return "broadcast"
        return (op, f"{folder}_custom", {"x": shapes[0], "y": shapes[1]})
    row = shapes[0]
    last = [row[-1]]
    if folder == "rms_norm":
        if len(shapes) != 2 or shapes[1] != last:
            return "gamma not over the last dim"
        return ("RmsNorm", "rms_norm_custom", {"x": row, "gamma": last})
    if folder == "softmax_v2":
        if len(shapes) != 1:
            return f"{len(shapes)} inputs"
        return ("SoftmaxV2", "softmax_custom", {"x": row})
    if folder == "layer_norm_v3":
        if len(shapes) != 3 or shapes[1] != last or shapes[2] != last:
            return "normalized shape not the last dim"
        return ("LayerNormV3", "layer_norm_custom", {"x": row, "gamma": last, "beta": last})
    if folder == "add_rms_norm":
        if len(shapes) != 3 or shapes[0] != shapes[1] or shapes[2] != last:
            return "shapes not (x, x, last dim)"
        return ("AddRmsNorm", "add_rms_norm_custom", {"x1": row, "x2": row, "gamma": last})
    return "no template"


def load_cases(ops: set[str] | None) -> tuple[list[Case], Counter, list[Path]]:
    root = calibration.profiling_dir()
    files = [f for folder in FOLDERS for f in sorted((root / folder).glob("*profiling*.csv"))]
    cases: dict[tuple, Case] = {}
    skipped: Counter = Counter()  # (folder, reason) -> distinct cases
    seen_skip: set[tuple] = set()
    for f in files:
        folder = f.parent.name
        if ops and folder not in ops:
            continue
        platform = _platform(f)
        with open(f, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                try:
                    measured = float(row["profiling_time"])
                    shapes = ast.literal_eval(row["inputs_shape"])
                    dtypes = [TORCH.get(d, d) for d in ast.literal_eval(row["inputs_dtype"])]
                    bd = int(float(row["block_dim"]))
                except (ValueError, SyntaxError, KeyError):
                    continue
                if measured <= 0:
                    continue
                mapped = _map(folder, row.get("kernel_type") or "", shapes, dtypes)
                if platform is None:
                    mapped = f"platform of {f.name} unknown"
                if isinstance(mapped, str):
                    k = (folder, str(shapes), str(dtypes), mapped)
                    if k not in seen_skip:
                        seen_skip.add(k)
                        skipped[(folder, mapped)] += 1
                    continue
                op, template, ours = mapped
                c = Case(op, template, ours, dtypes[0], str(platform))
                c = cases.setdefault(c.key, c)
                c.measured.append(measured)
                c.block_dims.append(bd)
    return list(cases.values()), skipped, files


Loaded = tuple[OperatorProject, Path, dict[str, str], Callable[..., object]]


class Runner:
    """Runs a record's case on the twin: our template, or (`open_ops`) CANN's open kernel."""

    def __init__(
        self,
        jobs: int,
        work: Path,
        open_ops: dict[str, Path] | None = None,
        keep: Path | None = None,
        constants: CostConstants = DEFAULT_CONSTANTS,
    ) -> None:
        self.constants = constants
        self.builder = Builder()
        self.limits = Limits(wall_seconds=300, cpu_seconds=300, memory_mb=8192, file_mb=4096)
        self.sem = asyncio.Semaphore(jobs)
        self.work = work
        self.open_ops = open_ops
        self.keep = keep  # where each case's trace is kept, with what it was measured at (timing_fit.py)
        self.projects: dict[str, Loaded] = {}
        self.n = 0

    def _materialize(self, key: str, project: OperatorProject, ref: Callable[..., object]) -> Loaded:
        """The baseline's files laid out as the evaluator lays them out (inside a repository, in its
        shape: repo headers at their repo paths); the operator folder's place in that tree."""
        cand = baseline(project)
        tree = self.work / key / "src"
        for rel, text in project.tree_files(cand.files).items():
            p = tree / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        return project, Path(project.source_dir(str(tree))), cand.files, ref

    def project(self, case: Case) -> tuple[Loaded, OperatorSpec]:
        if self.open_ops is None:
            got = self.projects.get(case.template)
            if got is None:
                project = load_operator(TEMPLATES / case.template)
                assert project.spec is not None
                ref = load_reference(project.root, project.spec)
                got = self.projects[case.template] = self._materialize(case.template, project, ref)
            assert got[0].spec is not None
            return got, got[0].spec
        op = OPEN_OPS[case.op]
        spec = open_spec(op, case)
        got = self.projects.get(case.op)
        if got is None:
            project = load_operator(self.open_ops[case.op])
            ref = load_reference(self.work, spec, source=OPEN_REFERENCE)
            got = self.projects[case.op] = self._materialize(case.op, project, ref)
        return (got[0].model_copy(update={"spec": spec}), *got[1:]), spec

    async def run(self, case: Case) -> Outcome:
        out = Outcome(case)
        try:
            (project, src, files, ref), spec = self.project(case)
        except (KeyError, ValueError, OSError) as exc:  # the operator does not load: say so per case
            out.error = f"cannot load the operator: {exc}"[:300]
            return out
        one = (
            spec.cases[0]
            if self.open_ops is not None
            else CaseSpec(name="record", shapes=case.shapes, dtype=case.dtype)
        )
        rcase: ResolvedCase = spec.model_copy(update={"cases": [one]}).resolve_cases()[0]
        twin_soc = "Ascend910B1" if case.platform == "910B1" else "Ascend910B4"
        model_socs = ["Ascend910B1"] if case.platform == "910B1" else ["Ascend910B4", "Ascend910B4-1"]
        async with self.sem:
            t0 = time.perf_counter()
            self.n += 1
            work = self.work / f"case{self.n}"
            try:
                runner = await self.builder.build(project, src, files, dict(rcase.dtypes), soc(twin_soc))
            except CompileError as exc:
                out.error = f"compile error: {exc}"[:200]
                return out
            inputs = make_inputs(spec, rcase, 0)
            expected = await asyncio.to_thread(run_reference, ref, spec, rcase, inputs)
            shapes = {k: list(v.shape) for k, v in expected.items()}
            run = await run_case(
                runner,
                project,
                rcase,
                inputs,
                shapes,
                soc(twin_soc),
                work,
                src,
                self.limits,
                trace=True,
            )
            out.block_dim = run.result.block_dim
            out.tiling_key = run.result.tiling_key
            if run.error or run.trace is None or not run.result.block_dim:
                fatal = next((f for f in run.findings if f.severity == "error"), None)
                out.error = (run.error or "no trace") + (
                    f": {fatal.kind} at {Path(fatal.file or '?').name}:{fatal.line}" if fatal else ""
                )
                return out
            actual = read_outputs(project, rcase, shapes, work)
            checks = [
                compare(
                    t.name,
                    rcase.dtypes[t.name],
                    actual[t.name],
                    expected[t.name],
                    spec.tolerance(rcase.dtypes[t.name]),
                )
                for t in spec.outputs
            ]
            errors = [f for f in run.findings if f.severity == "error"]
            out.correct = all(c.passed for c in checks) and not errors
            wrong = [c for c in checks if not c.passed]
            if wrong:
                w = wrong[0]
                out.flaw = (
                    f"{w.name} off the reference: {w.mismatches} of {prod(w.shape)} elements, "
                    f"max rel error {w.max_rel_error:.2g}"
                )
            elif errors:
                out.flaw = f"{errors[0].kind} at {Path(errors[0].file or '?').name}:{errors[0].line}"
            bd = run.result.block_dim
            trace = run.trace
            for s in model_socs:
                out.est[s] = await asyncio.to_thread(estimate, trace, s, bd, constants=self.constants)
            if self.keep is not None:
                keep_trace(self.keep, case, model_socs[0], bd, out.correct, trace)
            for p in work.iterdir():
                p.unlink()
            work.rmdir()
            out.seconds = time.perf_counter() - t0
        return out


def _fmt_shape(shape: list[int]) -> str:
    return "x".join(map(str, shape))


def _share(ratios: list[float], tol: float) -> float:
    return sum(1 for r in ratios if abs(r - 1) <= tol) / len(ratios) * 100 if ratios else 0.0


def resolve_open_ops(repo: Path, cases: list[Case], skipped: Counter) -> dict[str, Path]:
    """The records' operators whose 910B kernel this repository has; the others go to `skipped`."""
    open_ops: dict[str, Path] = {}
    for op in sorted({c.op for c in cases}, key=RANK.index):
        folder = OPEN_OPS[op].folder if op in OPEN_OPS else OPEN_FOLDERS.get(op, op.lower())
        path = find_open_op([repo], folder)
        if path is None:
            why = f"no {folder}/ with op_kernel/ in {repo}"
        elif not has_910b_kernel(path):
            why = f"{path}: only arch35 (950) kernels, no 910B variant"
        elif op not in OPEN_OPS:
            why = f"{path}: no spec/reference table for {op} in this benchmark"
        else:
            open_ops[op] = path
            continue
        skipped[(op, why)] += sum(1 for c in cases if c.op == op)
    return open_ops


Row = tuple[str, str, str]  # (operator, platform, source: "templates" or the repository's name)


def contradicted(cases: list[Case]) -> dict[tuple, str]:
    """Records measured clearly slower (by more than 20 %) than a record of the same operator,
    platform and dtype with at least as many rows and as long a last dimension: more data in every
    respect, less time. Explained where the kernel takes another path (tiling key) for the two;
    otherwise which one is off (another build, the profiling itself) the records do not say."""
    out: dict[tuple, str] = {}
    for a in cases:
        rows_a, cols_a = prod(a.x_shape[:-1]), a.x_shape[-1]
        for b in cases:
            if b is a or (b.op, b.platform, b.dtype) != (a.op, a.platform, a.dtype):
                continue
            if prod(b.x_shape[:-1]) >= rows_a and b.x_shape[-1] >= cols_a:
                mb, ma = statistics.median(b.measured), statistics.median(a.measured)
                if mb < 0.8 * ma:
                    out[a.key] = f"{_fmt_shape(b.x_shape)}, more data, measures {mb:.2f}"
                    break
    return out


def print_results(
    results: list[Outcome], same_kernel: bool, contra: dict[tuple, str]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """One line per case; returns the ratios per (operator, platform) key `op platform`: all, and
    those of records no other record contradicts."""
    head = (
        f"{'op':11} {'shape':>16} {'dtype':>8} {'plat':>7} {'n':>4} {'bd':>3} {'measured':>9} "
        f"{'bd':>3} {'key':>4} {'estimate':>9} {'ratio':>6}  {'bound':7} {'910B4-1':>8} {'ratio':>6}"
    )
    print(head)
    ratios: dict[str, list[float]] = {}
    consistent: dict[str, list[float]] = {}
    for o in results:
        c = o.case
        m = statistics.median(c.measured)
        bd_their = Counter(c.block_dims).most_common(1)[0][0]
        line = (
            f"{c.op:11} {_fmt_shape(c.x_shape):>16} {c.dtype:>8} {c.platform:>7} {len(c.measured):4} "
            f"{bd_their:3} {m:9.2f} "
        )
        if o.error or not o.est:
            print(line + f"{o.block_dim or '-':>3} failed: {o.error}")
            continue
        primary = "Ascend910B1" if c.platform == "910B1" else "Ascend910B4"
        e = o.est[primary]
        ratio = e.duration_us / m
        ratios.setdefault(f"{c.op} {c.platform}", []).append(ratio)
        if c.key not in contra:
            consistent.setdefault(f"{c.op} {c.platform}", []).append(ratio)
        key = "-" if o.tiling_key is None else str(o.tiling_key)
        line += f"{o.block_dim:3} {key:>4} {e.duration_us:9.2f} {ratio:6.2f}  {e.bound:7}"
        if "Ascend910B4-1" in o.est:
            e4 = o.est["Ascend910B4-1"]
            line += f" {e4.duration_us:8.2f} {e4.duration_us / m:6.2f}"
        if not o.correct:
            line += f"  (not correct: {o.flaw})" if same_kernel else "  (our output WRONG or sanitizer error)"
        if c.key in contra:
            line += f"  (contradicted: {contra[c.key]})"
        print(line)
    return ratios, consistent


def _stats(rs: list[float]) -> str:
    dev = statistics.median(abs(x - 1) for x in rs) * 100
    return f"{len(rs):5} {dev:8.0f} % {_share(rs, 0.25):10.0f} % {statistics.median(rs):8.2f}"


def print_table(
    table: dict[str, dict[str, list[float]]], consistent: dict[str, dict[str, list[float]]]
) -> None:
    """The fidelity table: operator × platform × source, fitted-on rows marked, held-out totals per source."""
    print(
        f"{'operator':11} {'platform':8} {'source':12} {'set':8} {'cases':>5} {'|r-1| med':>10} "
        f"{'within 25%':>11} {'med ratio':>8}"
    )
    for source, ratios in table.items():
        for key in sorted(ratios, key=lambda k: (RANK.index(k.split()[0]), k)):
            op, plat = key.split()
            fitted = "fitted" if (op, plat) in FITTED_ON else "held out"
            print(f"{op:11} {plat:8} {source:12} {fitted:8} {_stats(ratios[key])}")
        held = [r for k, rs in ratios.items() if tuple(k.split()) not in FITTED_ON for r in rs]
        every = [r for rs in ratios.values() for r in rs]
        if held:
            print(f"{'all':11} {'':8} {source:12} {'held out':8} {_stats(held)}")
        if every and len(every) > len(held):
            print(f"{'all':11} {'':8} {source:12} {'all':8} {_stats(every)}")
        kept = [r for k, rs in consistent[source].items() if tuple(k.split()) not in FITTED_ON for r in rs]
        if kept and len(kept) < len(held):
            print(
                f"{'all':11} {'':8} {source:12} {'held out':8} {_stats(kept)}  without contradicted records"
            )


def keep_trace(keep: Path, case: Case, soc: str, block_dim: int, correct: bool, trace: Path) -> None:
    """The case's trace and a `<name>.json` beside it: the record's measurement and the SoC model to use."""
    keep.mkdir(parents=True, exist_ok=True)
    name = f"{case.op}_{_fmt_shape(case.x_shape)}_{case.dtype}_{case.platform}"
    shutil.copyfile(trace, keep / f"{name}.jsonl")
    meta = {
        "op": case.op,
        "platform": case.platform,
        "shape": case.x_shape,
        "dtype": case.dtype,
        "soc": soc,
        "block_dim": block_dim,
        "measured_us": statistics.median(case.measured),
        "records": len(case.measured),
        "correct": correct,
    }
    (keep / f"{name}.json").write_text(json.dumps(meta), encoding="utf-8")


async def run_pass(
    args: argparse.Namespace, cases: list[Case], open_ops: dict[str, Path] | None, keep: Path | None
) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="ascendopt-fidelity-") as tmp:
        r = Runner(args.jobs, Path(tmp), open_ops, keep, constants_with(args.set))
        return list(await asyncio.gather(*(r.run(c) for c in cases)))


async def amain(args: argparse.Namespace) -> int:
    ops = set(args.ops.split(",")) if args.ops else None
    try:
        constants_with(args.set)
    except ValueError as exc:
        print(f"--set {exc}")
        return 2
    if args.set:
        print(f"constants changed: {', '.join(args.set)}")
    try:
        cases, skipped, files = load_cases(ops)
    except calibration.CalibrationError as exc:
        print(f"cannot read msopmodeling's profiling records: {exc}")
        return 1
    if not files:
        print(f"no *profiling*.csv under {calibration.profiling_dir()}")
        return 1
    contra = contradicted(cases)  # over every record, the large ones too
    big = [c for c in cases if c.elems > args.max_elems]
    cases = [c for c in cases if c.elems <= args.max_elems]
    cases.sort(key=lambda c: (RANK.index(c.op), c.platform, c.dtype, c.elems))
    print("(their block dim and measured µs; our block dim and estimated µs; ratio = estimate / measured)")
    print("records:", ", ".join(str(f.relative_to(calibration.profiling_dir())) for f in files))
    start = time.perf_counter()
    table: dict[str, dict[str, list[float]]] = {}
    consistent: dict[str, dict[str, list[float]]] = {}
    failed = 0
    runs = 0
    # Each repository is its own pass over the same records, so their kernels can be compared.
    passes: list[tuple[str, dict[str, Path] | None]] = []
    per_repo_skips: dict[str, Counter] = {}
    for repo in args.ops_repo:
        skip: Counter = Counter()
        passes.append((repo.name, resolve_open_ops(repo, cases, skip)))
        per_repo_skips[repo.name] = skip
    if not args.ops_repo:
        passes.append(("templates", None))
    for source, open_ops in passes:
        mine = [c for c in cases if open_ops is None or c.op in open_ops]
        print()
        if open_ops is not None:
            print(
                f"== {source}. SAME KERNEL: CANN's own open-source kernel and tiling program, built where\n"
                "   it sits, at the record's shape; a ratio is the timing model's error alone. Kernels used:"
            )
            for op, path in open_ops.items():
                print(f"      {op}: {path}")
        else:
            print(
                "NOTE: this compares OUR template's ESTIMATED time with THEIR (CANN's) kernel's MEASURED\n"
                "      time; a ratio mixes the quality of our kernel vs CANN's with the model's own error."
            )
        keep = args.keep_traces / source if args.keep_traces else None
        results = await run_pass(args, mine, open_ops, keep)
        runs += len(results)
        failed += sum(1 for o in results if o.error or not o.est)
        table[source], consistent[source] = print_results(results, open_ops is not None, contra)
    wall = time.perf_counter() - start
    compared = {c.op for c in cases if any(oo is None or c.op in oo for _, oo in passes)}
    big = [c for c in big if c.op in compared]
    print()
    fitted = ", ".join(f"{o} {p}" for o, p in sorted(FITTED_ON))
    print(
        f"FIDELITY (ratio r = estimate / measured; platform's own SoC model; 'fitted': records a constant "
        f"was fitted on: {fitted}):"
    )
    print_table(table, consistent)
    print(
        "("
        + (
            "CANN's kernel estimated vs CANN's kernel measured: the model's error"
            if args.ops_repo
            else "OUR kernel's estimate vs CANN's kernel's measurement: kernel quality + model error"
        )
        + ")"
    )
    print(
        f"skipped: {len(big)} cases above {args.max_elems} elements per tensor"
        + (f" ({', '.join(f'{c.op} {_fmt_shape(c.x_shape)}' for c in big)})" if big else "")
        + f"; {failed} failed to run"
    )
    print(
        "not compared (distinct cases):"
        if args.ops_repo
        else "not reproducible by our templates (distinct cases):"
    )
    for (folder, why), n in sorted(skipped.items()):
        print(f"  {folder}: {why} x{n}")
    for source, skip in per_repo_skips.items():
        for (op, why), n in sorted(skip.items()):
            print(f"  {op} ({source}): {why} x{n}")
    print(f"wall time {wall:.0f} s for {runs} twin runs ({args.jobs} at a time)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--max-elems", type=int, default=16 * 1024 * 1024)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="estimate with a cost constant changed (costs.CostConstants; repeatable)",
    )
    ap.add_argument(
        "--keep-traces",
        type=Path,
        default=None,
        help="keep each case's trace under DIR/<source>/ with its measurement (for timing_fit.py)",
    )
    ap.add_argument("--ops", default="", help=f"comma-separated record folders ({','.join(FOLDERS)})")
    ap.add_argument(
        "--ops-repo",
        action="append",
        type=Path,
        default=[],
        help="a checkout of ops-nn / ops-math / cann-ops: time CANN's own kernels (repeatable)",
    )
    return asyncio.run(amain(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
