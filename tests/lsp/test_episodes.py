"""Optimize from the editor: progress, cancel, one episode per operator, and the suggestion flow
(offer → accept / stale / reject). Episodes are scripted (tests/lsp/scripted_server.py): these
tests are about the server's plumbing; test_twin.py runs the real episode service."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import TEMPLATES
from tests.lsp.conftest import HOST, KERNEL, OP, plain, uri, wait_for


async def _run(client: LanguageClient, command: str, *args: Any) -> Any:
    return plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(args))
        )
    )


def _reports(client: LanguageClient) -> dict[Any, list[Any]]:
    return client.progress_reports


def _token_with(client: LanguageClient, title: str) -> Any:
    for token, values in client.progress_reports.items():
        if values and isinstance(values[0], types.WorkDoneProgressBegin) and values[0].title == title:
            return token
    return None


def _decisions(workspace: Path) -> list[dict[str, str]]:
    path = workspace / ".ascendopt" / "scripted-decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.lsp_init({"ascendopt": {"budget": 400}})
async def test_progress_then_cancel_stops_the_episode(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    started = await _run(scripted, "ascendopt.optimize", {"uri": uri(root / KERNEL)})
    assert started["status"] == "started"

    token = await wait_for(lambda: _token_with(scripted, f"Optimize {OP}"), what="the progress token")
    await wait_for(
        lambda: any(isinstance(v, types.WorkDoneProgressReport) for v in scripted.progress_reports[token]),
        what="a progress report",
    )
    begin = scripted.progress_reports[token][0]
    assert begin.cancellable is True
    report = next(v for v in scripted.progress_reports[token] if isinstance(v, types.WorkDoneProgressReport))
    assert report.message.startswith("1/400 evaluations · best 1.01× · tiling search")
    assert report.percentage == 0

    scripted.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    ended = await wait_for(lambda: scripted.seen.episodes, what="the episode to end")  # type: ignore[attr-defined]
    assert ended[0]["cancelled"] is True and ended[0]["suggestion"] is None
    used = int(ended[0]["message"].split()[2].split("/")[0])
    assert used < 100  # stopped early: 400 steps would take 20 s
    assert isinstance(scripted.progress_reports[token][-1], types.WorkDoneProgressEnd)
    assert not scripted.seen.suggestions  # type: ignore[attr-defined]

    # Cancelled means gone: the operator can be optimized again at once.
    again = await _run(scripted, "ascendopt.optimize", {"operatorRoot": str(root), "name": OP})
    assert again["status"] == "started"


@pytest.mark.lsp_config({"budget": 400})
async def test_second_optimize_of_the_same_operator_is_refused_while_running(
    scripted: LanguageClient, workspace: Path
):
    # The budget came from workspace/configuration, not from initializationOptions (4).
    shutil.copytree(TEMPLATES / "mul_custom", workspace / "mul_custom")
    root = workspace / OP
    first = await _run(scripted, "ascendopt.optimize", {"uri": uri(root / KERNEL)})
    assert first["status"] == "started"
    second = await _run(scripted, "ascendopt.tuneTiling", {"uri": uri(root / HOST)})
    assert second["status"] == "already-running"
    assert any("already running" in m.message for m in scripted.messages)

    # Another operator runs alongside.
    other = await _run(
        scripted, "ascendopt.optimize", {"operatorRoot": str(workspace / "mul_custom"), "name": "mul_custom"}
    )
    assert other["status"] == "started"
    await wait_for(lambda: _token_with(scripted, "Optimize mul_custom"), what="the second episode's progress")
    token = _token_with(scripted, f"Optimize {OP}")
    begin = scripted.progress_reports[token][0]
    assert "budget 400" in begin.message

    # The lens shows the running episode.
    lenses = await scripted.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(root / KERNEL)))
    )
    assert lenses[0].command and lenses[0].command.title.startswith("⚡ Optimizing…")

    for t in list(scripted.progress_reports):
        scripted.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=t))
    await wait_for(lambda: len(scripted.seen.episodes) == 2, what="both episodes to stop")  # type: ignore[attr-defined]


async def _suggestion(client: LanguageClient, workspace: Path) -> dict[str, Any]:
    await _run(client, "ascendopt.optimize", {"uri": uri(workspace / OP / KERNEL)})
    got = await wait_for(lambda: client.seen.suggestions, what="the suggestion")  # type: ignore[attr-defined]
    return got[-1]


async def test_suggestion_is_offered_as_notification_and_confirm_first_edit(
    scripted: LanguageClient, workspace: Path
):
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    assert s["operator"] == OP and s["geomean"] == pytest.approx(1.33)
    assert s["title"] == "add_custom: 1.33× faster (geomean of 1 case)"
    by_path = {f["path"]: f for f in s["files"]}
    assert set(by_path) == {HOST, KERNEL}
    assert by_path[KERNEL]["uri"] == uri(root / KERNEL)
    assert by_path[KERNEL]["current"] == (root / KERNEL).read_text()
    assert "BUFFER_NUM = 3" in by_path[KERNEL]["proposed"]

    edit = (await wait_for(lambda: scripted.seen.apply_edits, what="workspace/applyEdit"))[0]  # type: ignore[attr-defined]
    changes = edit.edit.document_changes
    assert {c.text_document.uri for c in changes} == {uri(root / HOST), uri(root / KERNEL)}
    annotations = edit.edit.change_annotations
    assert len(annotations) == 1 and next(iter(annotations.values())).needs_confirmation is True
    kernel_edit = next(c for c in changes if c.text_document.uri == uri(root / KERNEL))
    (only,) = kernel_edit.edits
    assert only.annotation_id in annotations
    line = next(i for i, t in enumerate((root / KERNEL).read_text().splitlines()) if "BUFFER_NUM = 2" in t)
    assert (only.range.start.line, only.range.end.line) == (line, line + 1)
    assert "BUFFER_NUM = 3" in only.new_text
    # The client declined the preview: nothing changed on disk.
    assert "BUFFER_NUM = 2" in (root / KERNEL).read_text()


async def test_accept_writes_both_files_and_journals_it(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    result = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert result["applied"] is True
    for rel in (HOST, KERNEL):
        assert "BUFFER_NUM = 3" in (root / rel).read_text()
    assert _decisions(workspace) == [{"suggestion": s["id"], "decision": "accepted"}]
    again = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert again["applied"] is False


async def test_accept_of_a_stale_suggestion_refuses_and_writes_nothing(
    scripted: LanguageClient, workspace: Path
):
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    edited = (root / KERNEL).read_text() + "\n// edited meanwhile\n"
    (root / KERNEL).write_text(edited)
    host_before = (root / HOST).read_text()

    scripted.seen.message_request_answer = None  # type: ignore[attr-defined]
    result = await _run(scripted, "ascendopt.acceptSuggestion", {"id": s["id"]})
    assert result["applied"] is False and result["stale"] == [KERNEL]
    assert (root / KERNEL).read_text() == edited
    assert (root / HOST).read_text() == host_before
    request = (await wait_for(lambda: scripted.seen.message_requests, what="the stale message"))[0]  # type: ignore[attr-defined]
    assert "stale" in request.message and [a.title for a in request.actions] == ["Re-run optimization"]
    assert _decisions(workspace) == []


async def test_accept_of_files_that_already_hold_the_suggestion_says_so(
    scripted: LanguageClient, workspace: Path
):
    """Made by hand (or accepted from the terminal, `ascendopt accept`): nothing to re-run for."""
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    for rel in (HOST, KERNEL):
        (root / rel).write_text((root / rel).read_text().replace("BUFFER_NUM = 2", "BUFFER_NUM = 3"))
    result = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert result["applied"] is False and "already applied" in result["message"]
    said = await wait_for(lambda: [m for m in scripted.messages if "already applied" in m.message], what="it")
    assert said[0].type == types.MessageType.Info
    assert not scripted.seen.message_requests  # type: ignore[attr-defined]  # no "Re-run optimization"


async def test_unsaved_editor_changes_make_a_suggestion_stale(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    text = (root / HOST).read_text()
    scripted.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(root / HOST), language_id="cpp", version=3, text=text + "// typing"
            )
        )
    )
    result = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert result["applied"] is False and result["stale"] == [HOST]
    assert (root / HOST).read_text() == text and "BUFFER_NUM = 2" in (root / KERNEL).read_text()


async def test_stale_rerun_action_starts_a_new_episode(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    s = await _suggestion(scripted, workspace)
    (root / KERNEL).write_text((root / KERNEL).read_text() + "\n")
    scripted.seen.message_request_answer = "Re-run optimization"  # type: ignore[attr-defined]
    await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    fresh = await wait_for(lambda: scripted.seen.suggestions[1:], what="the re-run's suggestion")  # type: ignore[attr-defined]
    assert fresh[0]["id"] != s["id"]
    assert fresh[0]["files"][1]["current"] == (root / KERNEL).read_text()


async def test_reject_writes_nothing_and_journals_it(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    before = {rel: (root / rel).read_text() for rel in (HOST, KERNEL)}
    s = await _suggestion(scripted, workspace)
    result = await _run(scripted, "ascendopt.rejectSuggestion", s["id"])
    assert result["rejected"] is True
    assert {rel: (root / rel).read_text() for rel in (HOST, KERNEL)} == before
    assert _decisions(workspace) == [{"suggestion": s["id"], "decision": "rejected"}]
    late = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert late["applied"] is False
    assert {rel: (root / rel).read_text() for rel in (HOST, KERNEL)} == before


@pytest.mark.lsp_caps({"ascendopt": {"suggestionView": True}})
async def test_a_client_with_its_own_diff_view_gets_no_apply_edit(scripted: LanguageClient, workspace: Path):
    await _suggestion(scripted, workspace)
    assert scripted.seen.apply_edits == []  # type: ignore[attr-defined]


async def test_a_confirmed_preview_counts_as_accepted(scripted: LanguageClient, workspace: Path):
    scripted.seen.apply_edit_answer = True  # type: ignore[attr-defined]
    s = await _suggestion(scripted, workspace)
    await wait_for(lambda: _decisions(workspace), what="the journaled decision")
    assert _decisions(workspace) == [{"suggestion": s["id"], "decision": "accepted"}]
    # The client applied the edit to its buffers; the server wrote nothing itself.
    assert "BUFFER_NUM = 2" in (workspace / OP / KERNEL).read_text()
    late = await _run(scripted, "ascendopt.rejectSuggestion", s["id"])
    assert late == {"rejected": False, "message": f"suggestion {s['id']} was already accepted"}
