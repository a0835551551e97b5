"""`init-spec` from the editor: the same drafting, pre-check and writing as the CLI
(evaluation/cpu_twin/spec_draft.py), then the written spec opened and the next step (the reference
it needs) said; Verify on an operator with no spec offers it."""

from __future__ import annotations

import contextlib
from typing import Any

from lsprotocol import types

from ascendopt.evaluation.cpu_twin.spec_draft import write_starting_spec
from ascendopt.lsp import diagnostics, protocol
from ascendopt.lsp.evaluate import refresh_lenses
from ascendopt.lsp.locations import path_to_uri
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.targets import TargetError, fresh, parse_target, resolve
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import SPEC_FILE
from ascendopt.operators.task import TaskSpecError

WRITE = "Write a starting spec"


def register(ls: AscendServer) -> None:
    @ls.command(protocol.INIT_SPEC)
    async def init_spec_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        """[{operatorRoot, name} | {uri}, {force?}] → {status: ok | exists | error, operatorRoot, name,
        path, notes, next | message}"""
        try:
            op = await resolve(ls, parse_target(args))
        except TargetError as exc:
            return {"status": "error", "message": str(exc)}
        force = len(args) > 1 and isinstance(args[1], dict) and bool(args[1].get("force"))
        return await init_spec(ls, op, force)


async def init_spec(ls: AscendServer, op: OperatorProject, force: bool = False) -> dict[str, Any]:
    target = op.root / SPEC_FILE
    which = {"operatorRoot": str(op.root), "name": op.name, "path": str(target)}
    if target.exists() and not force:
        return {"status": "exists", **which, "message": f"{target} exists"}
    try:
        written = await write_starting_spec(op, target, external=False)
    except OSError as exc:
        return {"status": "error", **which, "message": f"could not write {target}: {exc.strerror}"}
    except TaskSpecError as exc:
        return {"status": "error", **which, "message": f"the benchmark task gives no spec: {exc}"}
    after = written.next_step(lambda path: path.name)
    # The operator now has a spec: its lenses and checks change (a draft that does not validate
    # yet leaves the operator as it was; the spec's diagnostics say why).
    with contextlib.suppress(TargetError):
        await fresh(ls, op.root, op.name)
    diagnostics.publish(ls)
    refresh_lenses(ls)
    ls.window_show_document(types.ShowDocumentParams(uri=path_to_uri(target), take_focus=True))
    ls.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Info, message=f"{op.name}: {after}")
    )
    return {"status": "ok", **which, "notes": written.notes, "next": after}


async def offer(ls: AscendServer, op: OperatorProject) -> None:
    """Verify on an operator with no ascendopt.toml: offer to write one (what the sidebar says)."""
    message = f"{op.name} has no {SPEC_FILE}: write a starting one from the operator (init-spec)?"
    try:
        choice = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=WRITE)],
            )
        )
    except Exception:  # a client that cannot ask: say it
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return
    if choice is not None and choice.title == WRITE:
        await init_spec(ls, op)
