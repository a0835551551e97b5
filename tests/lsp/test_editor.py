"""What the editor shows beyond lenses and diagnostics: lenses that follow the open buffer, the
sidebar's ascendopt/workspaceState, and documentation links on findings. Scripted server (no
compiling); test_twin.py applies a quick fix on the real twin."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from ascendopt.experience.bank import Bank
from ascendopt.journal.store import episodes_dir
from tests.lsp.conftest import KERNEL, OP, plain, uri, wait_for


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri(path), language_id="cpp", version=version, text=text)
        )
    )


async def _lens_lines(client: LanguageClient, path: Path) -> set[int]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(path)))
    )
    return {lens.range.start.line for lens in lenses}


def _entry(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if 'extern "C" __global__' in line)


async def test_lenses_follow_the_buffer_before_it_is_saved(scripted: LanguageClient, workspace: Path):
    kernel = workspace / OP / KERNEL
    disk = kernel.read_text()
    assert await _lens_lines(scripted, kernel) == {_entry(disk)}  # closed: where the disk has it

    typed = "// three lines typed\n// above the entry\n// not saved yet\n" + disk
    _open(scripted, kernel, typed)
    assert await _lens_lines(scripted, kernel) == {_entry(disk) + 3}
    assert kernel.read_text() == disk  # nothing was saved

    scripted.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(kernel), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n" + typed)],
        )
    )
    assert await _lens_lines(scripted, kernel) == {_entry(disk) + 4}

    # The entry renamed away in the buffer: no lens left on a line that no longer holds it.
    scripted.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(kernel), version=3),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text=typed.replace(f"{OP}(", "renamed("))
            ],
        )
    )
    assert await _lens_lines(scripted, kernel) == set()


async def _state(client: LanguageClient) -> dict[str, Any]:
    answer = await client.protocol.send_request_async("ascendopt/workspaceState", {})
    return plain(answer)


async def test_workspace_state_lists_operators_episodes_suggestions_and_lessons(
    scripted: LanguageClient, workspace: Path
):
    state = await _state(scripted)
    (op,) = state["operators"]
    assert (op["name"], op["spec"], op["lastVerify"], op["running"]) == (OP, "ok", None, False)
    assert op["kernel"] == uri(workspace / OP / KERNEL)
    assert state["episodes"] == [] and state["suggestions"] == [] and state["lessons"] == []

    # An ended episode as the episode service records it, and the workspace's bank.
    ended = episodes_dir(workspace) / f"20261201-100000-{OP}-abcdef"
    ended.mkdir(parents=True)
    outcome = {
        "episode": ended.name,
        "operator": OP,
        "suggestion": None,
        "message": "cancelled after 6 evaluations",
        "cancelled": True,
        "evaluations": 6,
    }
    (ended / "summary.json").write_text(json.dumps(outcome))
    (episodes_dir(workspace) / f"20261201-110000-{OP}-123456").mkdir()  # no summary: running or interrupted
    with Bank.open(workspace) as bank:
        seeded = len(bank.all())

    started = plain(
        await scripted.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="ascendopt.optimize", arguments=[{"uri": uri(workspace / OP / KERNEL)}]
            )
        )
    )
    assert started["status"] == "started"
    offered = await wait_for(lambda: scripted.seen.suggestions, what="the suggestion")  # type: ignore[attr-defined]

    state = await _state(scripted)
    assert [(e["ended"], e["cancelled"], e["evaluations"]) for e in state["episodes"]] == [
        (False, False, 0),
        (True, True, 6),
    ]
    assert [s["id"] for s in state["suggestions"]] == [offered[0]["id"]]
    assert state["suggestions"][0]["operatorRoot"] == str(workspace / OP)
    assert len(state["lessons"]) == seeded > 0
    lesson = state["lessons"][0]
    assert lesson["markdown"].startswith(f"# {lesson['title']}\n")

    # Decided: no longer pending.
    await scripted.workspace_execute_command_async(
        types.ExecuteCommandParams(command="ascendopt.rejectSuggestion", arguments=[offered[0]["id"]])
    )
    assert (await _state(scripted))["suggestions"] == []


async def test_workspace_state_says_which_spec_is_missing(scripted: LanguageClient, workspace: Path):
    (workspace / OP / "ascendopt.toml").unlink()
    scripted.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri(workspace / OP / KERNEL))
        )
    )

    for _ in range(200):  # the re-discovery is debounced and runs in a thread
        if (await _state(scripted))["operators"][0]["spec"] == "missing":
            break
        await asyncio.sleep(0.05)
    op = (await _state(scripted))["operators"][0]
    assert op["spec"] == "missing" and "init-spec" in op["specProblem"]
    json.dumps(op)  # plain JSON all the way
