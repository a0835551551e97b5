"""A pool of SSH hosts as slots: one per device, with the host's retry policy.

Which toolchain runs on them is chosen by `evaluation/backends.py` (`ssh_evaluator`).
"""

from __future__ import annotations

from ascendopt.evaluation.pool import PoolHost, SlotPool
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, ToolchainName
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.runner import Runner


def pool_host(config: HostConfig, runner: Runner) -> PoolHost:
    devices: list[int | None] = list(config.device_ids)
    return PoolHost(
        name=config.name,
        runner=runner,
        devices=devices,
        max_parallel=config.max_parallel or len(devices),
    )


def hosts_toolchain(
    hosts: list[str], toolchain: ToolchainName | None, settings: RemoteSettings
) -> ToolchainName:
    """`toolchain` None: each host's configured one (they must agree: one evaluator, one meaning)."""
    chosen = {toolchain or settings.host(h).toolchain for h in hosts}
    if len(chosen) != 1:
        raise ValueError(f"hosts {', '.join(hosts)} are configured with different toolchains: name one")
    return chosen.pop()


def ssh_pool(
    hosts: list[str], settings: RemoteSettings, runners: dict[str, SshRunner] | None = None
) -> SlotPool:
    """`runners`: already-made runners by host name (tests pass their own); the rest are made here."""
    made = runners or {}
    configs = [settings.host(h) for h in hosts]
    return SlotPool(
        [pool_host(c, made.get(c.name) or SshRunner(c, settings)) for c in configs], settings.retry
    )
