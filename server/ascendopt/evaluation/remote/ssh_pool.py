"""A toolchain on a pool of SSH hosts: the Evaluator behind `ssh:HOST[,HOST…][:toolchain]`."""

from __future__ import annotations

from ascendopt.evaluation.cpu_twin.twin_toolchain import CpuTwinToolchain
from ascendopt.evaluation.pool import PoolHost, SlotPool
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, Toolchain
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.runner import Runner
from ascendopt.evaluation.toolchain import Slot
from ascendopt.evaluation.toolchain import Toolchain as ToolchainProtocol
from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator


class SshTwinToolchain(CpuTwinToolchain):
    """The twin on an SSH host: as many cases at once as the host's `case_parallel` allows."""

    def __init__(self, settings: RemoteSettings, soc: str | None = None) -> None:
        super().__init__(soc=soc)
        self.settings = settings

    def case_parallel(self, slot: Slot) -> int:
        return self.settings.host(slot.host).case_parallel


def pool_host(config: HostConfig, runner: Runner) -> PoolHost:
    devices: list[int | None] = list(config.device_ids)
    return PoolHost(
        name=config.name,
        runner=runner,
        devices=devices,
        max_parallel=config.max_parallel or len(devices),
    )


def ssh_evaluator(
    hosts: list[str],
    toolchain: Toolchain | None,
    settings: RemoteSettings,
    soc: str | None = None,
    runners: dict[str, SshRunner] | None = None,
) -> ToolchainEvaluator:
    """`toolchain` None: each host's configured one (they must agree: one evaluator, one meaning)."""
    configs = [settings.host(h) for h in hosts]
    chosen = {toolchain or c.toolchain for c in configs}
    if len(chosen) != 1:
        raise ValueError(f"hosts {', '.join(hosts)} are configured with different toolchains: name one")
    kind = chosen.pop()
    made = runners or {}
    pool = SlotPool(
        [pool_host(c, made.get(c.name) or SshRunner(c, settings)) for c in configs], settings.retry
    )
    tc: ToolchainProtocol
    if kind == "cann":
        from ascendopt.evaluation.cann.cann_toolchain import CannToolchain

        tc = CannToolchain(settings, soc=soc)
    else:
        tc = SshTwinToolchain(settings, soc=soc)
    return ToolchainEvaluator(f"ssh:{','.join(hosts)}:{kind}", tc, pool)
