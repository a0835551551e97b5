"""pytest-lsp fixtures: a real LSP client spawning the server over stdio on a temp workspace.

`scripted` talks to tests/lsp/scripted_server.py (episodes scripted, test-only); `twin` talks to
`ascendopt serve` itself (the CPU twin, the real episode service). Markers set what the client
sends: `lsp_init(options)` → initializationOptions, `lsp_config(section)` → what it answers to
workspace/configuration for "ascendopt", `lsp_caps(experimental)` → capabilities.experimental.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import TEMPLATES

HERE = Path(__file__).parent
OP = "add_custom"
KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"


def pytest_configure(config: pytest.Config) -> None:
    for name in ("lsp_init", "lsp_config", "lsp_caps"):
        config.addinivalue_line("markers", f"{name}(value): what the test LSP client sends (tests/lsp)")


@dataclass
class Seen:
    """What the client received besides the pytest-lsp defaults."""

    indexed: list[dict[str, Any]] = field(default_factory=list)
    evaluated: list[dict[str, Any]] = field(default_factory=list)
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    campaigns: list[dict[str, Any]] = field(default_factory=list)
    apply_edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    message_requests: list[types.ShowMessageRequestParams] = field(default_factory=list)
    lens_refreshes: int = 0
    apply_edit_answer: bool = False  # the user declines the preview unless a test says otherwise
    message_request_answer: str | None = None


async def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.05)


def uri(path: Path) -> str:
    return path.as_uri()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    shutil.copytree(TEMPLATES / OP, ws / OP)
    return ws


def _marker(request: pytest.FixtureRequest, name: str, default: Any) -> Any:
    m = request.node.get_closest_marker(name)
    return m.args[0] if m else default


def plain(value: Any) -> Any:
    """pygls hands custom notifications over as namedtuples; tests read them as JSON."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _attach(client: LanguageClient) -> Seen:
    seen = Seen()

    @client.feature("ascendopt/indexed")
    def on_indexed(params: Any) -> None:
        seen.indexed.append(plain(params))

    @client.feature("ascendopt/evaluated")
    def on_evaluated(params: Any) -> None:
        seen.evaluated.append(plain(params))

    @client.feature("ascendopt/suggestion")
    def on_suggestion(params: Any) -> None:
        seen.suggestions.append(plain(params))

    @client.feature("ascendopt/episodeEnded")
    def on_episode(params: Any) -> None:
        seen.episodes.append(plain(params))

    @client.feature("ascendopt/campaignEnded")
    def on_campaign(params: Any) -> None:
        seen.campaigns.append(plain(params))

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        seen.apply_edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=seen.apply_edit_answer)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_message_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        seen.message_requests.append(params)
        answer = seen.message_request_answer
        return types.MessageActionItem(title=answer) if answer else None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: None) -> None:
        seen.lens_refreshes += 1

    return seen


def capabilities(experimental: Any = None) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            configuration=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True),
            ),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
        ),
        experimental=experimental,
    )


async def _start(client: LanguageClient, request: pytest.FixtureRequest, workspace: Path) -> Seen:
    seen = _attach(client)
    client.set_configuration(_marker(request, "lsp_config", {}), section="ascendopt")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(_marker(request, "lsp_caps", None)),
            workspace_folders=[types.WorkspaceFolder(uri=uri(workspace), name="ws")],
            initialization_options=_marker(request, "lsp_init", {"ascendopt": {"budget": 4}}),
        )
    )
    await wait_for(lambda: seen.indexed, what="the workspace index")
    return seen


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
    return {**env, **extra}


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, str(HERE / "scripted_server.py")],
        server_env=_env(ASCENDOPT_SCRIPTED_STEP_S="0.05"),
    )
)
async def scripted(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.seen = await _start(lsp_client, request, workspace)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "ascendopt", "serve"], server_env=_env())
)
async def twin(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.seen = await _start(lsp_client, request, workspace)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()
