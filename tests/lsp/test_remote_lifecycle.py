"""The real server (`ascendopt serve`) on an SSH backend (a stock OpenSSH server on loopback): one
connection serves every Verify and Profile of the workspace; it closes when the backend setting
changes and when the server shuts down. Counted in the sshd's own log."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.evaluation.remote.sshd_server import LoopbackSshd, SshdUnavailable
from tests.evaluation.remote.test_cann import FAKE_COMMANDS, _published_fakes
from tests.lsp.conftest import OP, plain, wait_for

pytestmark = pytest.mark.slow


def _remote_settings(workspace: Path, server: LoopbackSshd, host: str = "") -> None:
    settings = workspace / ".ascendopt" / "remote.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        f'remote_dir = "{server.remote_dir}"\nworkspace_id = "lsp"\n'
        f'[[hosts]]\nname = "loopback"\ndevices = "0"\n{host}'
        f'[ssh]\nssh_config = "{server.client_config}"\n'
    )


@pytest.fixture
def loopback(workspace: Path) -> Iterator[LoopbackSshd]:
    """Set up before the server (`twin`) and so torn down after it has shut down: then every
    connection the server opened must have been closed by it."""
    try:
        server = LoopbackSshd().start()
    except SshdUnavailable as exc:
        pytest.skip(f"no loopback sshd: {exc}")
    _remote_settings(workspace, server)
    yield server
    try:
        closed = wait_until(lambda: _closed(server) == server.connections(), timeout=30)
        assert closed, f"{server.connections()} connections, {_closed(server)} closed after shutdown"
    finally:
        server.cleanup()


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


async def _run(client: LanguageClient, command: str, *args: Any) -> Any:
    return plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(args))
        )
    )


def _closed(server: LoopbackSshd) -> int:
    return server.log().count(f"Disconnected from user {server.user} ")


@pytest.mark.lsp_init({"ascendopt": {"backend": "ssh:loopback", "budget": 4}})
async def test_one_connection_per_workspace_closed_on_a_new_backend_and_at_shutdown(
    loopback: LoopbackSshd, twin: LanguageClient, workspace: Path
) -> None:
    target = {"operatorRoot": str(workspace / OP), "name": OP, "case": "small-tail"}
    for command in ("ascendopt.verify", "ascendopt.profile", "ascendopt.verify"):
        result = await _run(twin, command, target)
        assert result["status"] == "ok" and result["correct"] is True, result
    assert loopback.connections() == 1 and _closed(loopback) == 0

    # Another backend: the SSH evaluator's connection goes.
    twin.set_configuration({"backend": "cpu-twin"}, section="ascendopt")
    twin.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: _closed(loopback) == 1, timeout=30, what="the old connection to close")
    assert (await _run(twin, "ascendopt.verify", target))["correct"] is True
    assert loopback.connections() == 1

    # Back to SSH: one new connection, closed when the server shuts down (checked by `loopback`).
    twin.set_configuration({"backend": "ssh:loopback"}, section="ascendopt")
    twin.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(10):  # the server pulls the new configuration on its own time
        assert (await _run(twin, "ascendopt.verify", target))["correct"] is True
        if loopback.connections() == 2:
            break
        await asyncio.sleep(0.5)
    assert loopback.connections() == 2 and _closed(loopback) == 1


@pytest.mark.lsp_init({"ascendopt": {"backend": "ssh:loopback:cann"}})
async def test_remote_build_output_streams_to_the_output_channel(
    loopback: LoopbackSshd, twin: LanguageClient, workspace: Path
) -> None:
    """CANN is the fake stand-in (tests/evaluation/remote/fakes): its build prints line by line."""
    commands = "".join(f"{k} = {json.dumps(v)}\n" for k, v in FAKE_COMMANDS.items())
    _remote_settings(workspace, loopback, f'cann = "{_published_fakes(loopback)}"\n[commands]\n{commands}')
    target = {"operatorRoot": str(workspace / OP), "name": OP, "case": "small-tail"}
    result = await _run(twin, "ascendopt.verify", target)
    assert result["status"] == "ok" and result["correct"] is True, result
    lines = [m.message for m in twin.log_messages if m.type == types.MessageType.Log]
    assert any(line.startswith("[ssh:loopback build] [fake build]") for line in lines), lines[-10:]
    assert any(line.startswith("[ssh:loopback install] [fake install]") for line in lines)
