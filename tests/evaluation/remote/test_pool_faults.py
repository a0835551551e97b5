"""Hosts that drop: retried with backoff, marked down, work requeued, nothing lost or counted twice."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ascendopt.evaluation.backends import ssh_evaluator
from ascendopt.evaluation.pool import PoolHost, RetryPolicy, SlotPool
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, SshOptions
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.runner import LocalRunner, TransportError
from ascendopt.evaluation.sandbox import RunResult
from ascendopt.evaluation.toolchain import Slot
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import discover
from tests.evaluation.remote.conftest import settings_for
from tests.evaluation.remote.sshd_server import LoopbackSshd, _free_port

TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "operators"
FAST = RetryPolicy(attempts=4, host_failures=2, backoff_s=0.05, backoff_max_s=0.2)


async def test_pool_requeues_and_counts_each_job_once() -> None:
    flaky, good = LocalRunner(), LocalRunner()
    pool = SlotPool(
        [
            PoolHost(name="flaky", runner=flaky, devices=[0, 1], max_parallel=2),
            PoolHost(name="good", runner=good, devices=[0], max_parallel=1),
        ],
        FAST.model_copy(update={"host_failures": 1}),
    )
    assert pool.slots == 3
    ran: list[tuple[str, int]] = []

    async def job(slot: Slot, n: int) -> int:
        await asyncio.sleep(0.01)
        if slot.host == "flaky":
            raise TransportError("connection lost")
        ran.append((slot.host, n))
        return n

    results = await asyncio.gather(*(pool.run(lambda s, n=n: job(s, n)) for n in range(6)))
    assert sorted(results) == list(range(6))
    assert sorted(n for _, n in ran) == list(range(6))  # each job completed exactly once
    assert {h for h, _ in ran} == {"good"}
    assert pool.stats.completed == 6 and pool.stats.hosts_down == ["flaky"]
    assert pool.slots == 1


async def test_per_host_concurrency_limit() -> None:
    pool = SlotPool([PoolHost(name="h", runner=LocalRunner(), devices=[0, 1, 2, 3], max_parallel=2)])
    running, peak = 0, 0
    devices: list[int | None] = []

    async def job(slot: Slot) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        devices.append(slot.device)
        await asyncio.sleep(0.02)
        running -= 1

    await asyncio.gather(*(pool.run(job) for _ in range(8)))
    assert peak == 2 and pool.slots == 2
    assert set(devices) <= {0, 1, 2, 3}


class DroppingRunner(SshRunner):
    """Pulls the plug on the host (sshd and its sessions) when the first case is about to run,
    after the upload and the build; the server comes back a second later."""

    def __init__(self, server: LoopbackSshd, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.server = server
        self.runs = 0

    async def run(self, argv: Sequence[str], **kw: Any) -> RunResult:
        self.runs += 1
        if self.runs == 1:
            self.server.drop()
            asyncio.get_running_loop().call_later(1.0, self.server.start)
        return await super().run(argv, **kw)


@pytest.mark.slow
async def test_sshd_killed_mid_evaluation_is_retried_and_completed_once(own_sshd: LoopbackSshd) -> None:
    settings = settings_for(own_sshd, devices="0")
    settings.retry = RetryPolicy(attempts=4, host_failures=3, backoff_s=0.5, backoff_max_s=2)
    runner = DroppingRunner(own_sshd, settings.hosts[0], settings)
    evaluator = ssh_evaluator(["loopback"], None, settings, runners={"loopback": runner})
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    try:
        got = await verify(evaluator, op, case="0", seed=2)
    finally:
        await runner.close()
    assert got.status == "ok" and got.correct, got.message
    assert runner.runs == 2  # the dropped case ran again once, on the reconnected host
    assert runner.transport.connects == 2
    stats = evaluator.pool.stats
    assert stats.retried == 1 and stats.completed == 1 and stats.started == 1
    assert not stats.hosts_down


@pytest.mark.slow
async def test_work_moves_off_a_host_that_is_down(sshd: LoopbackSshd) -> None:
    dead_port = _free_port()  # nothing listens there
    sshd_alias_dead = "loopback-dead"
    config = sshd.dir / f"ssh_config_{dead_port}"
    config.write_text(
        sshd.client_config.read_text()
        + f"Host {sshd_alias_dead}\n  HostName 127.0.0.1\n  Port {dead_port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.client_key}\n  UserKnownHostsFile {sshd.known_hosts}\n"
    )
    settings = RemoteSettings(
        remote_dir=sshd.remote_dir,
        workspace_id="tests",
        hosts=[HostConfig(name=sshd_alias_dead, devices="0-1"), HostConfig(name=sshd.alias, devices="0")],
        ssh=SshOptions(ssh_config=config, connect_timeout_s=2, reconnect_attempts=1),
        retry=FAST,
    )
    evaluator = ssh_evaluator([sshd_alias_dead, sshd.alias], None, settings)
    assert evaluator.pool.slots == 3
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    try:
        results = await asyncio.gather(*(verify(evaluator, op, case="0", seed=s) for s in range(3)))
    finally:
        for h in evaluator.pool.hosts:
            await h.runner.close()
    assert all(r.correct for r in results), [r.message for r in results]
    assert all("loopback" in r.hardware and "dead" not in r.hardware for r in results)
    assert evaluator.pool.stats.hosts_down == [sshd_alias_dead]
    assert evaluator.pool.stats.completed == 3
    assert evaluator.pool.slots == 1


async def test_all_hosts_down_is_an_error_not_a_crash(tmp_path: Path) -> None:
    port = _free_port()
    cfg = tmp_path / "ssh_config"
    cfg.write_text(f"Host nowhere\n  HostName 127.0.0.1\n  Port {port}\n")
    settings = RemoteSettings(
        remote_dir="/tmp/x",
        hosts=[HostConfig(name="nowhere")],
        ssh=SshOptions(ssh_config=cfg, connect_timeout_s=1, reconnect_attempts=1),
        retry=FAST,
    )
    evaluator = ssh_evaluator(["nowhere"], None, settings)
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    got = await verify(evaluator, op, case="0")
    assert got.status == "error"
    assert "nowhere" in got.message and "down" in got.message
    with pytest.raises(AssertionError):
        assert got.correct
