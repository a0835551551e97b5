"""What one evaluation costs, in units of the machine's compile: issue 27's ratio and its phases.

    .venv/bin/python benchmarks/evaluation_cost.py [template or operator folder ...] [--budget 12] [--units 3]

The unit: the CPU seconds of one plain `g++ -O1 -c` of a file that only includes the twin's
`kernel_operator.h` (the twin's own flags: -std=c++17 -O1 and the CPU-debug defines), median of
`--units` compiles in the same run. Then per template (default add_custom and softmax_custom) one
no-LLM episode at `--budget` (like benchmarks/episode_speedup.py) on a fresh build cache (its own
XDG_CACHE_HOME), after the twin's shared objects (the runtime, and whatever else is built once per
twin rather than per operator: `Builder.prepare_shared`) are built outside the measure.

CPU is measured, not wall (the machine is shared): `getrusage(RUSAGE_SELF)` + `RUSAGE_CHILDREN`
around the episode, plus what ran inside the sandbox: bwrap never hands that CPU to our
RUSAGE_CHILDREN, so each sandboxed command runs under a small wrapper (WRAPPER: wait4 on the
command, its CPU seconds on a stderr line the benchmark takes out before the product reads it).
The wrapper's own start-up is in neither figure; the wall time includes it (some 20 ms a process).

Prints per template: evaluations, CPU and wall seconds per evaluation, both over the unit (the
ratio; the issue's goal is <= 1.2 in CPU). Then the phase breakdown in CPU seconds per evaluation:
each subprocess put in a phase by its argv (g++ kernel, host, launcher, runtime, PCH, link, case
runs; "bwrap" is the sandbox's own CPU); the product's Python steps timed with the CPU clock of
the thread they run on (inputs+reference, compare, timing model); "python other" is the rest of
this process's CPU (the episode's own work, the event loop, pydantic, the journal). Last, one kernel
and one host compile in units: the least an evaluation of a candidate changing that side can cost.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"
DEFAULT_TEMPLATES = ["add_custom", "softmax_custom"]

CPU: dict[str, float] = defaultdict(float)  # phase -> CPU seconds
COUNT: dict[str, int] = defaultdict(int)


def _cpu_now() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _self_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def unit_seconds(runs: int) -> list[float]:
    """CPU seconds of `g++ <twin flags> -c` of a file that only includes kernel_operator.h."""
    from ascendopt.evaluation.cpu_twin.build import CXX, CXXFLAGS, INCLUDE_DIR

    out = []
    with tempfile.TemporaryDirectory(prefix="ascendopt-unit-") as tmp:
        src = Path(tmp) / "unit.cpp"
        src.write_text('#include "kernel_operator.h"\n', encoding="utf-8")
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [CXX, *CXXFLAGS, "-I", str(INCLUDE_DIR), "-c", str(src), "-o", f"{tmp}/unit.o"], check=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return out


def phase_of(argv: list[str]) -> str:
    """A sandboxed command's phase, from its argv (bwrap's options come first)."""
    if any(a.endswith("manifest.txt") for a in argv):
        return "case runs"
    if "c++-header" in argv or any(
        a.endswith(".gch") or a.endswith(".pch") for a in argv if "{out}" not in a
    ):
        return "g++ pch"
    if "-c" not in argv and "-r" not in argv:
        return "link" if any(a.endswith(".o") for a in argv) else "other commands"
    src = argv[argv.index("-c") + 1] if "-c" in argv else ""
    if "ascendopt_twin/seal.h" in argv:
        return "g++ kernel"
    if "/runtime/" in src:
        return "g++ runtime"
    if "ascendopt_launch_" in src or "ascendopt_standin_" in src:
        return "g++ launcher"
    return "g++ host"


# Inside the sandbox, bwrap (pid 1 of its namespace) reaps the command, and the outer bwrap never
# reports that CPU to us: RUSAGE_CHILDREN misses every sandboxed compile and run. So the benchmark
# runs each sandboxed command under this wrapper, which reaps it with wait4 and prints its CPU
# seconds on stderr (the line is taken out of the result before the product reads it).
CPU_LINE = "ASCENDOPT_BENCH_CPU"
WRAPPER = (
    "import os,sys,signal\n"
    "pid=os.fork()\n"
    "if pid==0:\n"
    "    os.execvp(sys.argv[1],sys.argv[1:])\n"
    "_,st,ru=os.wait4(pid,0)\n"
    f"os.write(2,b'\\n{CPU_LINE} %.6f\\n'%(ru.ru_utime+ru.ru_stime))\n"
    "if os.WIFSIGNALED(st):\n"
    "    signal.signal(os.WTERMSIG(st),signal.SIG_DFL);os.kill(os.getpid(),os.WTERMSIG(st))\n"
    "os._exit(os.waitstatus_to_exitcode(st))\n"
)
INSIDE: list[float] = [0.0]  # CPU of sandboxed commands, reported by the wrapper


def install_probes() -> None:
    """The wrapper in the sandbox and wait4 outside it (each child's own rusage), and CPU clocks
    around the product's Python steps."""
    from ascendopt.evaluation import sandbox

    original_argv = sandbox.sandbox_argv
    original_run = sandbox._run_limited

    def sandbox_argv(argv: list[str], *args: Any, **kwargs: Any) -> list[str]:
        return original_argv(["/usr/bin/python3", "-S", "-c", WRAPPER, *argv], *args, **kwargs)

    async def run_limited(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        result = await original_run(argv, *args, **kwargs)
        lines = result.stderr.splitlines()
        mine = [ln for ln in lines if ln.startswith(CPU_LINE + " ")]
        if mine:
            seconds = sum(float(ln.split()[1]) for ln in mine)
            phase = phase_of(argv)
            CPU[phase] += seconds
            COUNT[phase] += 1
            INSIDE[0] += seconds
            kept = [ln for ln in lines if not ln.startswith(CPU_LINE + " ")]
            while kept and not kept[-1].strip():
                kept.pop()
            result.stderr = "\n".join(kept) + ("\n" if kept else "")
        return result

    sandbox.sandbox_argv = sandbox_argv  # type: ignore[assignment]
    sandbox._run_limited = run_limited  # type: ignore[assignment]

    async def wait_exit(proc: subprocess.Popen[bytes]) -> int:
        loop = asyncio.get_running_loop()
        pidfd = os.pidfd_open(proc.pid)
        gone: asyncio.Future[None] = loop.create_future()
        loop.add_reader(pidfd, lambda: gone.done() or gone.set_result(None))
        try:
            await gone
        finally:
            loop.remove_reader(pidfd)
            os.close(pidfd)
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        args = [str(a) for a in proc.args]  # type: ignore[union-attr]
        if "-c" in args and WRAPPER in args:
            phase = "bwrap"  # the sandbox itself; what ran inside is reported by the wrapper
        else:
            phase = phase_of(args)
            COUNT[phase] += 1
        CPU[phase] += ru.ru_utime + ru.ru_stime
        return proc.returncode

    sandbox.wait_exit = wait_exit  # type: ignore[assignment]

    outermost = threading.local()  # a probed step inside another (make_inputs in _prepare_case) counts once

    def timed(phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        if getattr(fn, "_timed", False):
            return fn

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if getattr(outermost, "busy", False):
                return fn(*args, **kwargs)
            outermost.busy = True
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                outermost.busy = False
                CPU[phase] += time.thread_time() - t0
                COUNT[phase] += 1

        wrapper._timed = True  # type: ignore[attr-defined]
        return wrapper

    import importlib

    probes = {
        # Before issue 27's point 2 the steps were called one by one; since, through the outer ones.
        "inputs+reference": [
            ("ascendopt.evaluation.toolchain_evaluator", "_prepare_case"),
            ("ascendopt.evaluation.toolchain_evaluator", "make_inputs"),
            ("ascendopt.evaluation.toolchain_evaluator", "run_reference"),
        ],
        "compare": [
            ("ascendopt.evaluation.toolchain_evaluator", "_check_outputs"),
            ("ascendopt.evaluation.toolchain_evaluator", "compare"),
            ("ascendopt.evaluation.toolchain_evaluator", "decode_raw"),
        ],
        # The trace's bytes went through a temporary file (_profile_from_bytes) before speed4; since, in.
        "timing model": [
            ("ascendopt.evaluation.cpu_twin.twin_toolchain", "_profile_from_bytes"),
            ("ascendopt.evaluation.cpu_twin.twin_toolchain", "profile_from_trace"),
        ],
    }
    for phase, where in probes.items():
        for module_name, attr in where:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            if hasattr(module, attr):
                setattr(module, attr, timed(phase, getattr(module, attr)))


@contextlib.contextmanager
def fresh_cache() -> Iterator[Path]:
    old = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory(prefix="ascendopt-cost-") as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp
        try:
            yield Path(tmp)
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old


async def warm_shared(project: Any) -> None:
    """What is built once per twin, not per operator or candidate: left out of the measure."""
    from ascendopt.evaluation.cpu_twin.build import Builder
    from ascendopt.operators.soc import resolve_soc

    builder = Builder()
    prepare = getattr(builder, "prepare_shared", None)
    if prepare is not None:
        await prepare(resolve_soc(None, None, project.spec))
    else:
        await builder.runtime_objects()


def operator_dir(name: str) -> Path:
    """A template's name, or an operator folder with its spec (an official sample after `init-spec`)."""
    return Path(name).resolve() if os.sep in name else TEMPLATES / name


async def episode(name: str, budget: int, seed: int) -> tuple[int, int, str]:
    from ascendopt.agent.llm import LLMSettings
    from ascendopt.agent.service import Optimizer
    from ascendopt.agent.settings import EpisodeSettings
    from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator
    from ascendopt.operators.discovery import load_operator

    calls = 0
    original = ToolchainEvaluator.evaluate

    async def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return await original(self, *args, **kwargs)

    source = operator_dir(name)
    with tempfile.TemporaryDirectory(prefix=f"ascendopt-cost-{source.name}-") as tmp:
        workspace = Path(tmp)
        root = workspace / source.name
        shutil.copytree(source, root)
        project = load_operator(root)
        ToolchainEvaluator.evaluate = counting  # type: ignore[method-assign]
        try:
            outcome = await Optimizer(workspace, llm=LLMSettings()).optimize(
                project, EpisodeSettings(budget=budget, seed=seed)
            )
        finally:
            ToolchainEvaluator.evaluate = original  # type: ignore[method-assign]
    return outcome.evaluations, calls, outcome.message


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "templates",
        nargs="*",
        help=f"template names or operator folders (default: {' '.join(DEFAULT_TEMPLATES)})",
    )
    ap.add_argument("--budget", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--units", type=int, default=3, help="plain compiles for the unit (median)")
    args = ap.parse_args()
    from ascendopt.operators.discovery import load_operator

    install_probes()
    units = unit_seconds(args.units)
    unit = statistics.median(units)
    load = os.getloadavg()[0]
    each = ", ".join(f"{u:.2f}" for u in units)
    print(f"unit: g++ -O1 -c of kernel_operator.h alone: {unit:.2f} CPU s (runs {each})")
    print(f"episode: budget {args.budget}, seed {args.seed}, no LLM, fresh build cache; load {load:.1f}")
    header = (
        f"{'template':<18} {'evals':>5} {'calls':>5} {'CPU s/ev':>9} {'wall s/ev':>9} "
        f"{'CPU ratio':>9} {'wall ratio':>10}"
    )
    rows = []
    for name in args.templates or DEFAULT_TEMPLATES:
        with fresh_cache():
            asyncio.run(warm_shared(load_operator(operator_dir(name))))
            CPU.clear()
            COUNT.clear()
            INSIDE[0] = 0.0
            cpu0, self0, t0 = _cpu_now(), _self_cpu(), time.perf_counter()
            evals, calls, message = asyncio.run(episode(name, args.budget, args.seed))
            cpu, me, wall = _cpu_now() - cpu0 + INSIDE[0], _self_cpu() - self0, time.perf_counter() - t0
        n = max(evals, 1)
        phases = dict(CPU)
        python = sum(v for k, v in phases.items() if k in ("inputs+reference", "compare", "timing model"))
        phases["python other"] = max(0.0, me - python)
        rows.append((Path(name).name, evals, calls, cpu / n, wall / n, phases, COUNT.copy(), message))
    print(header)
    for name, evals, calls, cpu_ev, wall_ev, _, _, message in rows:
        print(
            f"{name:<18} {evals:>5} {calls:>5} {cpu_ev:>9.2f} {wall_ev:>9.2f} "
            f"{cpu_ev / unit:>9.2f} {wall_ev / unit:>10.2f}  {message}"
        )
    print("\nphases, CPU seconds per evaluation (share of the evaluation's CPU) [processes or calls]")
    for name, evals, _, cpu_ev, _, phases, counts, _ in rows:
        n = max(evals, 1)
        print(f"  {name}:")
        for phase, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
            share = seconds / n / cpu_ev if cpu_ev else 0.0
            print(f"    {phase:<18} {seconds / n:>7.3f}  ({share:>4.0%})  [{counts.get(phase, 0)}]")
    # The floor under the ratio: a candidate that changes a side needs that side's compiles, whatever else
    # gets cheaper (the kernel's once per dtype combination).
    print("\none compile, in units (CPU s per process / unit)")
    for name, _, _, _, _, phases, counts, _ in rows:
        each = [
            f"{phase} {phases[phase] / counts[phase] / unit:.2f}"
            for phase in ("g++ kernel", "g++ host")
            if counts.get(phase)
        ]
        print(f"  {name}: {', '.join(each) or 'none ran'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
