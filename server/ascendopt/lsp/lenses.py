"""Code lenses above the kernel entry, the tiling function and in ascendopt.toml."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from ascendopt.lsp import protocol, render
from ascendopt.lsp.anchors import Anchor, anchors_in
from ascendopt.lsp.buffers import Documents
from ascendopt.lsp.index import op_key
from ascendopt.lsp.locations import uri_to_path
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer


def mining_available(ls: AscendServer) -> bool:
    """Mine experience is offered only when its command is registered: a lens must never point at a
    missing command."""
    return protocol.MINE in ls.protocol.fm.commands


def commands_for(ls: AscendServer, anchor: Anchor) -> list[types.Command]:
    """The actions of one anchor, in lens order; the optimize title carries the last duration."""
    key = op_key(anchor.op)
    args = anchor.args()
    if ls.jobs.running(key, "episode") is not None:
        optimize = "⚡ Optimizing… (progress in the notification)"
    else:
        profiled = ls.state(Runs).last_profiles.get(key)
        duration = render.lens_duration(profiled) if profiled else None
        optimize = f"⚡ Optimize · {duration}" if duration else "⚡ Optimize operator"
    out = [
        types.Command(
            title=optimize,
            command=protocol.OPTIMIZE,
            arguments=args,
            tooltip="Tune tiling and rewrite the kernel; suggests a paired edit",
        ),
        types.Command(title="Tune tiling only", command=protocol.TUNE_TILING, arguments=args),
        types.Command(title="Verify", command=protocol.VERIFY, arguments=args),
        types.Command(title="Profile", command=protocol.PROFILE, arguments=args),
    ]
    if mining_available(ls):
        out.append(types.Command(title="Mine experience", command=protocol.MINE, arguments=args))
    return out


EARLY_WAIT_S = 2.0  # an open document's own operator is discovered in tens of ms


async def _early_discovery(ls: AscendServer, path: Path) -> None:
    """Wait (briefly) for the open document's operator when it is being discovered on its own."""
    pending = [f for root, f in ls.state(Documents).early.items() if not f.done() and root in path.parents]
    if pending:
        await asyncio.wait(pending, timeout=EARLY_WAIT_S)


def register(ls: AscendServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: AscendServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        # Never waits for the workspace index: an open document's operator is discovered first
        # (sync.index_open_document), anything else gets its lenses on the refresh after indexing.
        path = uri_to_path(params.text_document.uri)
        if path is None:
            return []
        await _early_discovery(ls, path)
        lenses = []
        for anchor in anchors_in(ls, path):
            pos = types.Position(line=anchor.start_line if anchor.kind != "spec" else 0, character=0)
            for cmd in commands_for(ls, anchor):
                lenses.append(types.CodeLens(range=types.Range(start=pos, end=pos), command=cmd))
        return lenses
