"""The end of an episode in the editor: offer the paired edit, then accept it (both files or none)
or reject it (no file touched). Decisions are journaled by the episode service.

Accept writes the files itself through the episode service's `accept` rather than asking the client
to apply a WorkspaceEdit: that one path is shared with the CLI, checks staleness against the exact bytes
the episode started from, and rolls back a half-done write, whereas a client applies an edit per its
own failure handling (possibly file by file) and against buffers we cannot see. Files open with
unsaved changes count as stale, so a write on disk never races an editor buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import logging
from typing import Any

from lsprotocol import types

from ascendopt.agent.outcome import Outcome
from ascendopt.agent.service import accept as accept_suggestion
from ascendopt.agent.suggestion import StaleSuggestion, Suggestion
from ascendopt.lsp import diagnostics, protocol
from ascendopt.lsp.episodes import Decision, EpisodeService
from ascendopt.lsp.evaluate import refresh_lenses
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.locations import path_to_uri
from ascendopt.lsp.offers import Offers
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.targets import TargetError, fresh

log = logging.getLogger(__name__)

RERUN = "Re-run optimization"


def register(ls: AscendServer) -> None:
    @ls.command(protocol.ACCEPT)
    async def accept_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await accept(ls, _id(args))

    @ls.command(protocol.REJECT)
    async def reject_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return reject(ls, _id(args))


def _id(args: tuple[Any, ...]) -> str:
    first = args[0] if args else None
    if isinstance(first, dict):
        first = first.get("id")
    return str(first or "")


def outcome_summary(outcome: Outcome | None) -> protocol.OutcomeSummary | None:
    if outcome is None:
        return None
    return protocol.OutcomeSummary(
        status=outcome.status, title=outcome.title, headline=outcome.headline, details=outcome.details
    )


def title(s: Suggestion, outcome: Outcome | None = None) -> str:
    """The operator's name once, then the outcome's headline (per-case regressions included)."""
    if outcome is not None:
        return f"{s.operator}: {outcome.headline}"
    cases = len(s.speedups)
    return (
        f"{s.operator}: {s.geomean_speedup:.2f}× faster (geomean of {cases} case{'s' if cases != 1 else ''})"
    )


def payload(s: Suggestion, outcome: Outcome | None = None) -> protocol.SuggestionParams:
    return protocol.SuggestionParams(
        id=s.id,
        operator=s.operator,
        operatorRoot=str(s.root),
        title=title(s, outcome),
        outcome=outcome_summary(outcome),
        summary=s.summary,
        geomean=s.geomean_speedup,
        speedups=[protocol.Speedup(**sp.model_dump()) for sp in s.speedups],
        files=[
            protocol.SuggestionFile(
                path=c.path, uri=path_to_uri(s.root / c.path), current=c.base_text, proposed=c.proposed_text
            )
            for c in s.changes
        ],
    )


def offer(ls: AscendServer, s: Suggestion, outcome: Outcome | None = None) -> None:
    """Tell the client: a notification for the diff view, and a confirm-first applyEdit for others."""
    ls.state(Offers).suggestions[s.id] = s
    ls.protocol.notify(protocol.SUGGESTION, payload(s, outcome).wire())
    if client_has_view(ls):
        return  # its own notification offers Review / Accept / Reject
    ls.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Info, message=f"{title(s, outcome)} — {s.summary}")
    )
    if _client_confirms_edits(ls):
        # In the background: the user may keep the preview open for as long as they like, and
        # the episode (and the operator's episode slot) is over already.
        ls.background(_preview(ls, s))
    # Without confirmation support a client would apply the edit at once, and the files must not
    # change before the user accepts: such clients use the accept/reject commands instead.


async def _preview(ls: AscendServer, s: Suggestion) -> None:
    try:
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit(ls, s), label=title(s))
        )
    except Exception:
        log.warning("workspace/applyEdit for suggestion %s failed", s.id, exc_info=True)
        return
    if result.applied and s.id in ls.state(Offers).suggestions:
        # The user confirmed the preview and the client applied it into its buffers.
        _journal(ls, s, "accepted")


def workspace_edit(ls: AscendServer, s: Suggestion) -> types.WorkspaceEdit:
    """One TextDocumentEdit per file, line-granular, every edit under one confirm-first annotation."""
    annotation = f"ascendopt-{s.id}"
    edits = []
    for c in s.changes:
        uri = path_to_uri(s.root / c.path)
        doc = ls.workspace.text_documents.get(uri)
        edits.append(
            types.TextDocumentEdit(
                # The version pins the edit to the buffer the user sees: a changed buffer refuses it.
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=doc.version if doc is not None else None
                ),
                edits=line_edits(c.base_text, c.proposed_text, annotation),
            )
        )
    return types.WorkspaceEdit(
        document_changes=edits,
        change_annotations={
            annotation: types.ChangeAnnotation(label=title(s), needs_confirmation=True, description=s.summary)
        },
    )


def line_edits(
    old: str, new: str, annotation: str
) -> list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit]:
    # Whole lines only: character 0 is the same in every position encoding.
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        out.append(
            types.AnnotatedTextEdit(
                range=types.Range(
                    start=types.Position(line=i1, character=0), end=types.Position(line=i2, character=0)
                ),
                new_text="".join(b[j1:j2]),
                annotation_id=annotation,
            )
        )
    return out


def _client_confirms_edits(ls: AscendServer) -> bool:
    ws = ls.client_capabilities.workspace
    we = ws.workspace_edit if ws else None
    return bool(ws and ws.apply_edit and we and we.document_changes and we.change_annotation_support)


def client_has_view(ls: AscendServer) -> bool:
    exp = ls.client_capabilities.experimental
    section = exp.get(protocol.EXPERIMENTAL_KEY) if isinstance(exp, dict) else None
    return bool(isinstance(section, dict) and section.get(protocol.SUGGESTION_VIEW))


def _find(ls: AscendServer, suggestion_id: str) -> Suggestion | None:
    if suggestion_id in ls.state(Offers).decided:
        return None
    if suggestion_id in ls.state(Offers).suggestions:
        return ls.state(Offers).suggestions[suggestion_id]
    # Offered by an earlier session: the episode service keeps suggestions in .ascendopt/.
    for folder in ls.state(Folders).index.folders:
        try:
            return ls.service_for(folder).load_suggestion(suggestion_id)
        except (KeyError, OSError, ValueError):
            continue
    return None


def _not_pending(ls: AscendServer, suggestion_id: str) -> str:
    if suggestion_id in ls.state(Offers).decided:
        return f"suggestion {suggestion_id} was already {ls.state(Offers).decided[suggestion_id]}"
    return f"no pending suggestion {suggestion_id!r} (unknown in this workspace)"


def _service(ls: AscendServer, s: Suggestion) -> EpisodeService:
    return ls.service_for(ls.state(Folders).index.folder_of(s.root) or s.root)


def _decided(ls: AscendServer, s: Suggestion, decision: Decision) -> None:
    ls.state(Offers).suggestions.pop(s.id, None)
    ls.state(Offers).decided[s.id] = decision


def _journal(ls: AscendServer, s: Suggestion, decision: Decision) -> None:
    _decided(ls, s, decision)
    try:
        _service(ls, s).record_decision(s.id, decision)
    except (KeyError, OSError, ValueError):
        # The decision stands (files are written or left); only its journal line is missing.
        log.warning("could not journal the %s decision on %s", decision, s.id, exc_info=True)


def _unsaved(ls: AscendServer, s: Suggestion) -> list[str]:
    """Files open in the editor whose buffer differs from the disk."""
    out = []
    for c in s.changes:
        path = s.root / c.path
        doc = ls.workspace.text_documents.get(path_to_uri(path))
        if doc is None:
            continue
        try:
            on_disk = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if doc.source != on_disk:
            out.append(c.path)
    return out


async def accept(ls: AscendServer, suggestion_id: str) -> dict[str, Any]:
    s = _find(ls, suggestion_id)
    if s is None:
        message = _not_pending(ls, suggestion_id)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return {"applied": False, "message": message}
    try:
        written = await asyncio.to_thread(
            accept_suggestion, s, _service(ls, s).record_decision, _unsaved(ls, s)
        )
    except StaleSuggestion as exc:
        if exc.applied:  # nothing to re-run for: the files hold the suggestion already
            message = f"{s.operator}: {exc}"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        else:
            ls.background(_offer_rerun(ls, s, exc.files))
        return {"applied": False, "stale": exc.files, "message": str(exc)}
    except OSError as exc:
        message = f"{s.operator}: could not write the suggestion ({exc}); no file was changed"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
        return {"applied": False, "message": message}
    _decided(ls, s, "accepted")
    with contextlib.suppress(TargetError):  # the operator may be gone; the files are written
        op = await fresh(ls, s.root, s.operator)
        # The last verify/profile described the files as they were: lenses and hovers must not
        # keep showing those µs. The client asks for lenses again on the refresh; hovers are
        # asked for on demand and read the same (now empty) record.
        ls.state(Runs).last_profiles.pop(op_key(op), None)
        ls.state(Runs).last_runs.pop(op_key(op), None)
    diagnostics.publish(ls)
    refresh_lenses(ls)
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Info, message=f"{title(s)}: applied to {len(written)} file(s)"
        )
    )
    return {"applied": True, "files": [str(p) for p in written]}


async def _offer_rerun(ls: AscendServer, s: Suggestion, files: list[str]) -> None:
    message = (
        f"{s.operator}: the suggestion is stale ({', '.join(files)} changed since the episode started); "
        "not applied"
    )
    try:
        choice = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=RERUN)],
            )
        )
    except Exception:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return
    if choice is not None and choice.title == RERUN:
        from ascendopt.lsp import optimize  # the optimize feature; imported here to keep modules acyclic

        await optimize.launch(ls, s.root, s.operator, tiling_only=False)


def reject(ls: AscendServer, suggestion_id: str) -> dict[str, Any]:
    s = _find(ls, suggestion_id)
    if s is None:
        return {"rejected": False, "message": _not_pending(ls, suggestion_id)}
    _journal(ls, s, "rejected")
    return {"rejected": True}
