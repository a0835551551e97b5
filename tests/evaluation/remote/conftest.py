"""A real sshd on 127.0.0.1 (see sshd_server.py) and settings that point the client at it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, SshOptions
from tests.evaluation.remote.sshd_server import LoopbackSshd, SshdUnavailable


def _start(remote_dir: str) -> LoopbackSshd:
    try:
        return LoopbackSshd(remote_dir=remote_dir).start()
    except SshdUnavailable as exc:
        pytest.skip(f"no loopback sshd: {exc}")


@pytest.fixture(scope="session")
def remote_dir() -> Iterator[str]:
    """One remote folder per test worker, shared by its servers so the remote g++ cache stays warm."""
    folder = Path(f"/tmp/ascendopt-remote-tests-{os.getpid()}")
    yield str(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def sshd(remote_dir: str) -> Iterator[LoopbackSshd]:
    """One server per test worker, shared (tests that kill it use `own_sshd`)."""
    server = _start(remote_dir)
    yield server
    server.cleanup()


@pytest.fixture
def own_sshd(remote_dir: str) -> Iterator[LoopbackSshd]:
    server = _start(remote_dir)
    yield server
    server.cleanup()


def settings_for(server: LoopbackSshd, **host: object) -> RemoteSettings:
    return RemoteSettings(
        remote_dir=server.remote_dir,
        workspace_id="tests",
        hosts=[HostConfig(name=server.alias, **host)],  # type: ignore[arg-type]
        ssh=SshOptions(ssh_config=server.client_config, connect_timeout_s=5, reconnect_backoff_s=0.2),
    )


@pytest.fixture
def ssh_settings(sshd: LoopbackSshd) -> RemoteSettings:
    return settings_for(sshd, devices="0-1")
