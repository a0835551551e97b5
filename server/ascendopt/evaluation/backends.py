"""Backend strings → an Evaluator. The CLI, the episode and the language server all go through here.

    cpu-twin | local | local:cpu-twin    the CPU twin on this machine (the default)
    local:cann | cann                    CANN on this machine (an Ascend box you are logged into)
    ssh:HOST[,HOST…][:TOOLCHAIN]         a pool of SSH hosts; TOOLCHAIN is cpu-twin or cann
    ssh                                  every host in the settings

Without `:TOOLCHAIN`, an SSH backend uses each host's `toolchain` setting (default cpu-twin).
We never switch to CANN because a probe found it: the backend string names what produced
a number (it keys the evaluation cache and labels estimate vs measured), so it must not
depend on what a host happens to have today. `ascendopt remote check` says when a host
has CANN and which string to use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.cpu_twin.precheck import TilingPrecheck
from ascendopt.evaluation.cpu_twin.twin_toolchain import CpuTwinToolchain
from ascendopt.evaluation.evaluator import Evaluator, Precheck
from ascendopt.evaluation.remote.settings import RemoteSettings, ToolchainName, load_settings
from ascendopt.evaluation.timing.calibration import CalibrationError, calibration_chip
from ascendopt.evaluation.toolchain import Toolchain
from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase

if TYPE_CHECKING:
    from ascendopt.evaluation.remote.ssh_runner import SshRunner

TOOLCHAINS: tuple[ToolchainName, ...] = ("cpu-twin", "cann")


class BackendError(ValueError):
    pass


class BackendSpec(BaseModel):
    runner: str  # "local" | "ssh"
    hosts: list[str] = []
    toolchain: ToolchainName | None = None


def parse_backend(spec: str, settings: RemoteSettings | None = None) -> BackendSpec:
    text = (spec or "cpu-twin").strip()
    if text in ("cpu-twin", "local", "local:cpu-twin"):
        return BackendSpec(runner="local", toolchain="cpu-twin")
    if text in ("cann", "local:cann"):
        return BackendSpec(runner="local", toolchain="cann")
    if text == "ssh" or text.startswith("ssh:"):
        rest = text[4:] if text.startswith("ssh:") else ""
        hosts_part, _, tc = rest.partition(":")
        if tc and tc not in TOOLCHAINS:
            raise BackendError(f"backend {spec!r}: unknown toolchain {tc!r} (cpu-twin or cann)")
        hosts = [h for h in hosts_part.split(",") if h]
        if not hosts:
            hosts = [h.name for h in (settings.hosts if settings else [])]
        if not hosts:
            raise BackendError(f"backend {spec!r}: no host named and none in the settings")
        return BackendSpec(runner="ssh", hosts=hosts, toolchain=tc or None)
    raise BackendError(f"unknown backend {spec!r}; use cpu-twin, local:cann or ssh:HOST[:cpu-twin|cann]")


def make_evaluator(
    spec: str = "cpu-twin",
    soc: str | None = None,
    settings: RemoteSettings | None = None,
    workspace: Path | None = None,
) -> Evaluator:
    """`settings` default: `.ascendopt/remote.toml` of `workspace` (default: the current folder;
    see remote/settings.py), read only for a backend that needs it. The caller closes it."""
    parsed = parse_backend(spec, settings)
    if soc is not None and parsed.toolchain == "cpu-twin":
        _check_twin_soc(soc)
    if parsed.runner == "local" and parsed.toolchain == "cpu-twin":
        return CpuTwinEvaluator(soc=soc)
    settings = settings or load_settings(workspace=workspace)
    if parsed.runner == "local":
        from ascendopt.evaluation.cann.cann_toolchain import local_cann_evaluator

        return local_cann_evaluator(settings, soc=soc)
    try:
        return ssh_evaluator(parsed.hosts, parsed.toolchain, settings, soc=soc)
    except ValueError as exc:
        raise BackendError(str(exc)) from exc


def _check_twin_soc(soc: str) -> None:
    """Before any build: the twin times only the SoCs its calibration covers (CANN on a real
    machine takes whatever SoC the machine has)."""
    try:
        calibration_chip(soc)
    except CalibrationError as exc:
        raise BackendError(f"--soc {soc}: the CPU twin cannot model it ({exc})") from None


def ssh_evaluator(
    hosts: list[str],
    toolchain: ToolchainName | None,
    settings: RemoteSettings,
    soc: str | None = None,
    runners: dict[str, SshRunner] | None = None,
) -> ToolchainEvaluator:
    """A toolchain on a pool of SSH hosts: the Evaluator behind `ssh:HOST[,HOST…][:toolchain]`."""
    from ascendopt.evaluation.remote.ssh_pool import hosts_toolchain, ssh_pool  # asyncssh: loaded on use

    kind = hosts_toolchain(hosts, toolchain, settings)
    tc: Toolchain
    if kind == "cann":
        from ascendopt.evaluation.cann.cann_toolchain import CannToolchain

        tc = CannToolchain(settings, soc=soc)
    else:  # the twin on each host: as many cases at once as that host's `case_parallel` allows
        tc = CpuTwinToolchain(soc=soc, case_parallel=lambda slot: settings.host(slot.host).case_parallel)
    return ToolchainEvaluator(f"ssh:{','.join(hosts)}:{kind}", tc, ssh_pool(hosts, settings, runners))


def make_precheck(
    spec: str, project: OperatorProject, cases: list[ResolvedCase], soc: str | None = None
) -> Precheck:
    """The tiling pre-check for an episode on backend `spec`. The tiling program is host code under
    every toolchain, so the twin's g++ build of it, here, is faithful whatever `spec` names."""
    del spec  # the same check for every backend, for the reason above
    return TilingPrecheck(project, cases, soc=soc)
