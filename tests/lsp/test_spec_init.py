"""init-spec and resuming an episode from the editor (`ascendopt.initSpec`, Verify's offer on an operator
with no spec, `ascendopt.resumeEpisode`): the CLI's paths, then the spec opened and the next step said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ascendopt.journal.events import StartEvent
from ascendopt.journal.store import EpisodeJournal
from tests.lsp.conftest import OP, wait_for


async def _run(client: LanguageClient, command: str, *args: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(args))
    )


async def test_an_existing_spec_is_not_overwritten_unasked(scripted: LanguageClient, workspace: Path):
    spec = workspace / OP / "ascendopt.toml"
    before = spec.read_text()
    result = await _run(scripted, "ascendopt.initSpec", {"operatorRoot": str(workspace / OP), "name": OP})
    assert result["status"] == "exists" and result["path"] == str(spec) and result["name"] == OP
    assert spec.read_text() == before


@pytest.mark.slow
async def test_verify_without_a_spec_offers_init_spec_which_writes_and_opens_it(
    scripted: LanguageClient, workspace: Path
):
    spec = workspace / OP / "ascendopt.toml"
    spec.unlink()
    (workspace / OP / "reference.py").unlink()
    scripted.seen.message_request_answer = "Write a starting spec"  # type: ignore[attr-defined]
    answer = await _run(scripted, "ascendopt.verify", {"operatorRoot": str(workspace / OP), "name": OP})
    assert answer["status"] == "error" and "no ascendopt.toml" in answer["message"]
    [asked] = await wait_for(lambda: scripted.seen.message_requests, what="the offer")  # type: ignore[attr-defined]
    assert "init-spec" in asked.message
    await wait_for(lambda: scripted.shown_documents, timeout=240, what="the written spec opened")
    assert [d.uri for d in scripted.shown_documents] == [spec.as_uri()]
    assert 'name = "add_custom"' in spec.read_text()
    # the next step, as the CLI says it: the reference and its signature
    said = lambda: [m.message for m in scripted.messages if "next:" in m.message]  # noqa: E731
    [step] = await wait_for(said, what="the next step")
    assert step.startswith("add_custom: next: write reference.py with def add_custom(x: np.ndarray"), step
    state = await scripted.protocol.send_request_async("ascendopt/workspaceState", {})
    assert state.operators[0].spec == "ok"


async def test_an_interrupted_episode_is_resumed_on_its_operator(scripted: LanguageClient, workspace: Path):
    """`ascendopt.resumeEpisode` reads the operator from the episode's journal and continues it (the
    scripted service records the id it was asked to resume)."""
    journal = EpisodeJournal.create(workspace, "20261205-010203-add_custom-beef")
    journal.append(StartEvent(operator=OP, root=str(workspace / OP), settings={"budget": 4}, baseline="b0"))
    answer = await _run(scripted, "ascendopt.resumeEpisode", {"episode": journal.id})
    assert answer["status"] == "started", answer
    ended = await wait_for(lambda: scripted.seen.episodes, what="the episode's end")  # type: ignore[attr-defined]
    assert ended[0]["episode"] == journal.id and ended[0]["operator"] == OP
    unknown = await _run(scripted, "ascendopt.resumeEpisode", {"episode": "nope"})
    assert unknown["status"] == "error" and "nope" in unknown["message"]
