"""A server as users have it: OpenSSH's default MaxSessions (10) and MaxStartups, and a stricter one.

More parallel work than one connection's sessions allow must still pass: channels are bounded
per connection, more connections are opened (one handshake at a time), and a refused open is
retried with a smaller limit instead of marking the host down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from ascendopt.evaluation.backends import ssh_evaluator
from ascendopt.evaluation.pool import PoolStats
from ascendopt.evaluation.remote.settings import RemoteSettings
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.remote.transport import ChannelStats
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import discover
from tests.evaluation.remote.conftest import settings_for
from tests.evaluation.remote.sshd_server import LoopbackSshd, SshdUnavailable

TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "operators"
MAX_SESSIONS = 10  # OpenSSH's default, which the test server keeps
LIMITS = Limits(wall_seconds=30, no_network=False)


@pytest.fixture
def strict_sshd(remote_dir: str) -> Iterator[LoopbackSshd]:
    """A server stricter than the default: three sessions per connection."""
    try:
        server = LoopbackSshd(remote_dir=remote_dir, extra=("MaxSessions 3",)).start()
    except SshdUnavailable as exc:
        pytest.skip(f"no loopback sshd: {exc}")
    yield server
    server.cleanup()


async def _verify_at_once(settings: RemoteSettings, n: int) -> tuple[ChannelStats, PoolStats]:
    """`n` verifies of add_custom at once (fresh seeds); every one must pass."""
    evaluator = ssh_evaluator(["loopback"], None, settings)
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    runner = evaluator.pool.hosts[0].runner
    assert isinstance(runner, SshRunner)
    try:
        results = await asyncio.gather(*(verify(evaluator, op, seed=s) for s in range(n)))
    finally:
        await evaluator.close()
    assert all(r.status == "ok" and r.correct for r in results), [r.message for r in results]
    assert evaluator.pool.stats.completed == n and not evaluator.pool.stats.hosts_down
    return runner.transport.stats, evaluator.pool.stats


@pytest.mark.slow
async def test_more_parallel_evaluations_than_max_sessions(own_sshd: LoopbackSshd) -> None:
    # 6 devices x 2 cases at once = 12 jobs, plus uploads and downloads: more than one
    # connection's 10 sessions.
    settings = settings_for(own_sshd, devices="0-5", case_parallel=2)
    stats, _ = await _verify_at_once(settings, 8)
    # Within 8 + 1 of 10 sessions; a rare refusal remains when the server frees a closed session
    # late (a loaded machine), and it is retried, never a failure.
    assert stats.refused == own_sshd.refusals() <= 2
    assert 2 <= stats.peak_connections <= settings.ssh.max_connections
    assert own_sshd.connections() == stats.connects == stats.peak_connections
    # Seen from the server: never more sessions on one connection than it allows.
    peaks = own_sshd.peak_sessions()
    assert peaks and max(peaks.values()) <= settings.ssh.channels_per_connection + 1 < MAX_SESSIONS


@pytest.mark.slow
async def test_a_stricter_server_is_learnt_from_its_refusals(strict_sshd: LoopbackSshd) -> None:
    settings = settings_for(strict_sshd, devices="0-3", case_parallel=2)
    settings.ssh.max_connections = 2
    stats, pool = await _verify_at_once(settings, 4)
    assert stats.refused >= 1 and strict_sshd.refusals() >= 1  # it did say no, and we listened
    assert stats.limit <= 2  # three sessions: two for work, one kept for stopping a job
    assert max(strict_sshd.peak_sessions().values()) <= 3
    assert pool.retried == 0  # a refusal is no failure of the host


async def test_jobs_beyond_the_channel_limit_wait_and_can_still_be_cancelled(
    own_sshd: LoopbackSshd,
) -> None:
    settings = settings_for(own_sshd)
    settings.ssh.max_connections = 1
    runner = SshRunner(settings.hosts[0], settings)
    try:
        folder = await runner.workdir("many")
        jobs = [
            asyncio.create_task(runner.shell("sleep 0.3; echo $0", cwd=folder, limits=LIMITS))
            for _ in range(3 * settings.ssh.channels_per_connection)
        ]
        done = await asyncio.gather(*jobs[:-1])
        assert all(d.returncode == 0 for d in done)
        stuck = asyncio.create_task(runner.shell("sleep 300", cwd=folder, limits=LIMITS))
        await asyncio.sleep(0.5)
        stuck.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stuck
        await jobs[-1]
    finally:
        await runner.close()
    assert runner.transport.stats.peak_connections == 1
    assert max(own_sshd.peak_sessions().values()) <= settings.ssh.channels_per_connection + 1
    assert own_sshd.refusals() == runner.transport.stats.refused <= 2  # late frees only, retried
    assert not [p for p in own_sshd.remote_processes() if "sleep 300" in p]
