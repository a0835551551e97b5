"""CANN as a toolchain: build + install the operator once per source hash on a host, run each case
through a test driver on the slot's device, profile with `msprof op` and parse its CSVs.

Every step is a template (templates.py) run under bash after `source {cann}/set_env.sh`.
Inputs go up as raw `.bin` files named in a manifest (the CPU twin's format), outputs come
back the same way; the comparison with the reference happens locally.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from pydantic import BaseModel

from ascendopt.evaluation import build_output
from ascendopt.evaluation.cann import msprof
from ascendopt.evaluation.cann.driver import driver_source
from ascendopt.evaluation.cann.templates import defaults, render
from ascendopt.evaluation.diagnostics import map_diagnostics
from ascendopt.evaluation.manifest import manifest_files
from ascendopt.evaluation.pool import PoolHost, SlotPool
from ascendopt.evaluation.remote.settings import RemoteSettings, operator_commands
from ascendopt.evaluation.runner import LocalRunner, Runner
from ascendopt.evaluation.sandbox import Limits, RunResult
from ascendopt.evaluation.toolchain import CaseJob, CaseOutcome, Combo, Slot
from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.issues import CompileError, Issue
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc, resolve_soc
from ascendopt.processes import LineSink

BUILD_LIMITS = Limits(wall_seconds=1800, cpu_seconds=3600, memory_mb=16384, file_mb=4096, no_network=False)
RUN_LIMITS = Limits(wall_seconds=600, cpu_seconds=1200, memory_mb=65536, file_mb=8192, no_network=False)


class CannBuild(BaseModel):
    """Where one built candidate lives on a host (shared by every device there)."""

    values: dict[str, str]
    commands: dict[str, str]


class CannToolchain:
    name = "cann"
    sandboxed = False  # CANN's build and the NPU need the host itself: LLM code runs only on opt-in

    def __init__(
        self,
        settings: RemoteSettings,
        soc: str | None = None,
        launch_count: int = 5,
        warm_up: int = 2,
        on_line: LineSink | None = None,
    ) -> None:
        self.settings = settings
        self.soc = soc
        self.launch_count = launch_count
        self.warm_up = warm_up
        self.on_line = on_line
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._built: set[tuple[str, str]] = set()
        self._versions: dict[str, str | None] = {}

    def case_parallel(self, slot: Slot) -> int:
        return 1  # one device, one kernel at a time: measurements must not share the NPU

    def soc_for(self, slot: Slot, project: OperatorProject) -> Soc:
        return resolve_soc(self.soc, self.settings.host(slot.host).soc, project.spec)

    def hardware(self, slot: Slot, soc: Soc) -> str:
        return f"Ascend NPU {soc.name}, device {slot.device} on {slot.runner.name} (CANN)"

    def _commands(self, project: OperatorProject) -> dict[str, str]:
        cmds = defaults(project.layout)
        cmds.update(operator_commands(self.settings, project.name, project.root))
        return cmds

    async def _step(
        self,
        runner: Runner,
        cmds: dict[str, str],
        step: str,
        values: dict[str, str],
        cwd: str,
        limits: Limits,
        env: dict[str, str] | None = None,
    ) -> RunResult:
        # `app` (the driver command) exists only once a case folder does: run and profile.
        app = render(cmds["app"], {**values, "app": ""}) if step in ("run", "profile") else ""
        filled = {**values, "app": app}
        script = "set -e\n" + render(cmds["env"], filled) + "\nset +e\n"
        if step in ("run", "profile"):
            script += render(cmds["run_env"], filled) + "\n"
        script += render(cmds[step], filled)
        # Streamed while it runs: a CANN build takes minutes (to the CLI's panel, the editor's channel).
        on_line = build_output.sink_for(f"{runner.name} {step}", self.on_line)
        return await runner.shell(script, cwd=cwd, limits=limits, env=env, on_line=on_line)

    async def build(
        self,
        slot: Slot,
        project: OperatorProject,
        candidate: Candidate,
        src_dir: str,
        combos: list[Combo],
        soc: Soc,
    ) -> dict[Combo, Any]:
        runner = slot.runner
        cmds = self._commands(project)
        key = hashlib.sha256(
            json.dumps([candidate.files, cmds, project.layout, soc.name], sort_keys=True).encode()
        ).hexdigest()[:20]
        base = f"{await runner.cache_dir('cann')}/{key}"
        host = self.settings.host(slot.host)
        values = {
            "cann": host.cann,
            "soc": soc.name,
            "src": src_dir,
            "build": f"{base}/project",
            "install": f"{base}/opp",
            "driver": f"{base}/driver",
            "op": project.name,
            "op_type": project.op_type,
            "launch_count": str(self.launch_count),
            "warm_up": str(self.warm_up),
        }
        lock = self._locks.setdefault((runner.name, key), asyncio.Lock())
        async with lock:  # devices of one host share the build: it runs once
            if (runner.name, key) not in self._built and (await runner.get(base, [".built"]))[
                ".built"
            ] is None:
                tree = project.tree_files(candidate.files)
                await runner.put(values["build"], {p: t.encode() for p, t in tree.items()})
                if project.layout != "kernel_launch" and project.spec is not None:
                    await runner.put(
                        values["driver"], {"ascendopt_driver.cpp": driver_source(project).encode()}
                    )
                else:
                    await runner.put(values["driver"], {".keep": b""})
                for step in ("build", "install", "driver_build"):
                    done = await self._step(runner, cmds, step, values, values["build"], BUILD_LIMITS)
                    if done.returncode != 0:
                        raise CompileError(_build_issues(step, done, values["build"], candidate, project))
                await runner.put(base, {".built": b""})
            self._built.add((runner.name, key))
        build = CannBuild(values=values, commands=cmds)
        return {combo: build for combo in combos}

    async def _version(self, runner: Runner, build: CannBuild, cwd: str) -> str | None:
        if runner.name not in self._versions:
            got = await self._step(
                runner, build.commands, "version", build.values, cwd, Limits(wall_seconds=30)
            )
            text = got.stdout.strip().splitlines()[0] if got.returncode == 0 and got.stdout.strip() else ""
            self._versions[runner.name] = text.split("=", 1)[-1].strip() or None
        return self._versions[runner.name]

    async def run_case(self, slot: Slot, artifact: Any, job: CaseJob) -> CaseOutcome:
        build: CannBuild = artifact
        output_shapes, work = job.output_shapes, job.work
        runner = slot.runner
        soc = job.soc.name
        values = {
            **build.values,
            "work": work,
            "manifest": f"{work}/manifest.txt",
            "device": str(slot.device if slot.device is not None else 0),
            "prof_out": f"{work}/prof",
        }
        files = manifest_files(job)  # untraced: msprof profiles on the device
        in_pattern = build.commands.get("input_file")
        out_pattern = build.commands.get("output_file", "out_{name}.bin")
        if in_pattern:  # kernel-launch samples read fixed file names
            for name, data in job.input_bytes().items():
                files[in_pattern.format(name=name)] = data
        await runner.put(work, files)
        if "output_file" in build.commands:
            await runner.put(
                work, {out_pattern.format(name=n).rsplit("/", 1)[0] + "/.keep": b"" for n in output_shapes}
            )
        env = {"ASCEND_RT_VISIBLE_DEVICES": values["device"]}
        done = await self._step(runner, build.commands, "run", values, work, RUN_LIMITS, env)
        outcome = CaseOutcome(seconds=0.0)
        if done.returncode != 0 or done.killed_reason:
            outcome.error = done.killed_reason or f"run failed ({done.returncode}): {_tail(done)}"
            return outcome
        names = {n: out_pattern.format(name=n) for n in output_shapes}
        got = await runner.get(work, list(names.values()))
        outcome.outputs = {n: blob for n, path in names.items() if (blob := got[path]) is not None}
        if job.profile:
            prof = await self._step(runner, build.commands, "profile", values, work, RUN_LIMITS, env)
            if prof.returncode != 0:
                outcome.error = f"msprof op failed ({prof.returncode}): {_tail(prof)}"
                return outcome
            listing = [p for p in await runner.listdir(values["prof_out"]) if p.endswith(".csv")]
            csvs = await runner.get(values["prof_out"], listing)
            launches = msprof.parse_opprof({k: v for k, v in csvs.items() if v is not None})
            mine = msprof.select(launches, job.project.op_type, slot.device) or msprof.select(
                launches, job.project.name, slot.device
            )
            try:
                outcome.profile = msprof.to_profile(
                    mine, soc, slot.device, await self._version(runner, build, work)
                )
            except msprof.MsprofError as exc:
                outcome.error = str(exc)
            if mine:
                outcome.block_dim = mine[0].block_dim
        return outcome


def _tail(done: RunResult, lines: int = 6) -> str:
    text = (done.stderr.strip() or done.stdout.strip()).splitlines()[-lines:]
    return " | ".join(text)


def _build_issues(
    step: str, done: RunResult, build_dir: str, candidate: Candidate, project: OperatorProject
) -> list[Issue]:
    """Compiler errors on the user's lines where the output names them (paths made relative)."""
    text = (done.stdout + "\n" + done.stderr).replace(build_dir + "/", "")
    fallback = Issue(
        file=project.files.kernel, line=1, message=f"CANN {step} failed ({done.returncode}): {_tail(done)}"
    )
    issues = map_diagnostics(text, set(candidate.files), fallback)
    return issues or [fallback]


def local_cann_evaluator(
    settings: RemoteSettings, soc: str | None = None, runner: Runner | None = None
) -> ToolchainEvaluator:
    """CANN on this machine (`local:cann`): the host entry named "local", if any, gives devices and CANN."""
    config = settings.host("local")
    devices: list[int | None] = list(config.device_ids)
    pool = SlotPool(
        [
            PoolHost(
                name="local",
                runner=runner or LocalRunner(),
                devices=devices,
                max_parallel=config.max_parallel or len(devices),
            )
        ],
        settings.retry,
    )
    return ToolchainEvaluator("local:cann", CannToolchain(settings, soc=soc), pool)
