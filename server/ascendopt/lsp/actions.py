"""Code actions: the same operator actions as the lenses, for clients (and users) that prefer them."""

from __future__ import annotations

from lsprotocol import types

from ascendopt.lsp import protocol
from ascendopt.lsp.anchors import anchors_in
from ascendopt.lsp.lenses import commands_for
from ascendopt.lsp.locations import uri_to_path
from ascendopt.lsp.server import AscendServer

# Optimize/Tune rewrite code (after confirmation); Verify/Profile/Mine only look at it.
KIND_REWRITE = types.CodeActionKind.RefactorRewrite
KIND_SOURCE = types.CodeActionKind.Source


def register(ls: AscendServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[KIND_REWRITE, KIND_SOURCE]),
    )
    def code_action(ls: AscendServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        path = uri_to_path(params.text_document.uri)
        if path is None:
            return []
        line = params.range.start.line
        out: list[types.CodeAction] = []
        for anchor in anchors_in(ls, path):
            if not anchor.start_line <= line <= anchor.end_line:
                continue
            for cmd in commands_for(ls, anchor):
                kind = (
                    KIND_REWRITE if cmd.command in (protocol.OPTIMIZE, protocol.TUNE_TILING) else KIND_SOURCE
                )
                if params.context.only and not any(
                    kind.value.startswith(str(o.value if isinstance(o, types.CodeActionKind) else o))
                    for o in params.context.only
                ):
                    continue
                out.append(types.CodeAction(title=f"AscendOptimizer: {cmd.title}", kind=kind, command=cmd))
        return out
