"""The SSH transport and runner against a real sshd: streaming, cancel, host keys, hostile names."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import time
from pathlib import Path

import pytest

from ascendopt.evaluation.remote import hostkeys
from ascendopt.evaluation.remote.hostkeys import HostKeyError
from ascendopt.evaluation.remote.settings import RemoteSettings
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.runner import UnsafePath
from ascendopt.evaluation.sandbox import Limits
from tests.evaluation.remote.conftest import settings_for
from tests.evaluation.remote.sshd_server import LoopbackSshd

LIMITS = Limits(wall_seconds=30, no_network=False)
HOSTILE = [
    "with space.txt",
    "quote'single.txt",
    'quote"double.txt',
    "dollar$(touch PWNED).txt",
    "semi;touch PWNED2;.txt",
    "back`touch PWNED3`tick.txt",
    "dir with space/-leading-dash.txt",
]


async def _runner(settings: RemoteSettings) -> SshRunner:
    return SshRunner(settings.hosts[0], settings)


async def test_lines_stream_before_the_command_ends(ssh_settings: RemoteSettings) -> None:
    runner = await _runner(ssh_settings)
    seen: list[tuple[float, str]] = []
    start = time.monotonic()
    try:
        folder = await runner.workdir("stream")
        result = await runner.shell(
            "for i in 1 2 3; do echo line $i; sleep 0.3; done; echo oops >&2",
            cwd=folder,
            limits=LIMITS,
            on_line=lambda line: seen.append((time.monotonic() - start, line)),
        )
    finally:
        await runner.close()
    assert result.returncode == 0
    assert [line for _, line in seen] == ["line 1", "line 2", "line 3", "oops"]
    assert seen[0][0] < seen[2][0] - 0.4  # the first line came while the loop still ran


async def test_cancel_leaves_no_remote_process(ssh_settings: RemoteSettings, sshd: LoopbackSshd) -> None:
    runner = await _runner(ssh_settings)
    token = str(secrets.randbelow(10**6)).zfill(6)  # digits: it goes into a sleep duration
    marker = f"ascendopt-cancel-{token}"
    try:
        folder = await runner.workdir("cancel")
        # A process tree: a background child and a renamed foreground one; both must go.
        task = asyncio.create_task(
            runner.shell(f"sleep 300.{token[:3]}1 & exec -a {marker} sleep 301", cwd=folder, limits=LIMITS)
        )
        for _ in range(100):
            await asyncio.sleep(0.05)
            if len([p for p in sshd.remote_processes() if token[:3] in p]) >= 2:
                break
        assert [p for p in sshd.remote_processes() if marker in p]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await runner.close()
    assert [p for p in sshd.remote_processes() if token[:3] in p] == []


async def test_wall_time_limit_kills_the_group(ssh_settings: RemoteSettings, sshd: LoopbackSshd) -> None:
    runner = await _runner(ssh_settings)
    try:
        folder = await runner.workdir("timeout")
        token = str(secrets.randbelow(10**6)).zfill(6)  # digits: it goes into sleep durations
        result = await runner.shell(
            f"sleep 302.{token}1 & sleep 303.{token}1", cwd=folder, limits=Limits(wall_seconds=0.5)
        )
    finally:
        await runner.close()
    assert result.timed_out and result.killed_reason
    assert not [p for p in sshd.remote_processes() if token in p]


async def test_hostile_names_land_verbatim_and_run_nothing(ssh_settings: RemoteSettings) -> None:
    runner = await _runner(ssh_settings)
    try:
        folder = await runner.workdir("hostile $(touch PWNED0)", "x;y")
        files = {name: name.encode() for name in HOSTILE}
        await runner.put(folder, files)
        back = await runner.get(folder, HOSTILE)
        assert back == files
        listed = await runner.listdir(folder)
        assert sorted(listed) == sorted(HOSTILE)
        echoed = await runner.run(["printf", "%s\\n", *HOSTILE], cwd=folder, limits=LIMITS)
        assert echoed.stdout.splitlines() == HOSTILE
        root = await runner.root()
        pwned = await runner.transport.simple(f"find {root} -name 'PWNED*' | head -1")
        assert pwned.stdout.strip() == ""
        for bad in ("../escape.txt", "/etc/passwd", "a/../../b", "line\nbreak"):
            with pytest.raises(UnsafePath):
                await runner.put(folder, {bad: b"x"})
        with pytest.raises(UnsafePath):
            await runner.remove(root)
        with pytest.raises(UnsafePath):
            await runner.run(["true"], cwd=root + "/../elsewhere", limits=LIMITS)
        await runner.remove(folder)
        assert (await runner.get(folder, [HOSTILE[0]])) == {HOSTILE[0]: None}
    finally:
        await runner.close()


async def test_unknown_key_is_refused_until_trusted(own_sshd: LoopbackSshd) -> None:
    own_sshd.known_hosts.write_text("")
    settings = settings_for(own_sshd)
    runner = await _runner(settings)
    with pytest.raises(HostKeyError, match=r"unknown host key .*ascendopt remote trust loopback"):
        await runner.root()
    done = await hostkeys.trust(runner.transport)
    assert done.status == "added"
    assert done.fingerprint.startswith("SHA256:")
    assert f"[127.0.0.1]:{own_sshd.port} ssh-ed25519 " in own_sshd.known_hosts.read_text()
    assert (await runner.root()).startswith(own_sshd.remote_dir)
    await runner.close()


async def test_changed_key_is_refused_and_not_replaced_silently(
    own_sshd: LoopbackSshd, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    pub = Path(f"{other}.pub").read_text().split()
    own_sshd.known_hosts.write_text(f"[127.0.0.1]:{own_sshd.port} {pub[0]} {pub[1]}\n")
    settings = settings_for(own_sshd)
    runner = await _runner(settings)
    with pytest.raises(HostKeyError, match="CHANGED"):
        await runner.root()
    with pytest.raises(HostKeyError, match="--replace"):
        await hostkeys.trust(runner.transport)
    assert (await hostkeys.trust(runner.transport, replace=True)).status == "replaced"
    assert pub[1] not in own_sshd.known_hosts.read_text()
    assert (await runner.root()).startswith(own_sshd.remote_dir)
    await runner.close()
