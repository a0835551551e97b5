"""Code actions: quick fixes for the sanitizer's findings where the fix is mechanical
(operators/quickfix.py), and the same operator actions as the lenses, for clients (and users) that
prefer them."""

from __future__ import annotations

from lsprotocol import types

from ascendopt.lsp import protocol
from ascendopt.lsp.anchors import anchors_in
from ascendopt.lsp.diagnostics import current_lines
from ascendopt.lsp.lenses import commands_for
from ascendopt.lsp.locations import uri_to_path, utf16_len
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.quickfix import Fix, fixes_for

# Optimize/Tune rewrite code (after confirmation); Verify/Profile/Mine only look at it.
KIND_REWRITE = types.CodeActionKind.RefactorRewrite
KIND_SOURCE = types.CodeActionKind.Source
KIND_FIX = types.CodeActionKind.QuickFix


def _wanted(kind: types.CodeActionKind, params: types.CodeActionParams) -> bool:
    only = params.context.only
    return not only or any(
        kind.value.startswith(str(o.value if isinstance(o, types.CodeActionKind) else o)) for o in only
    )


def _edit(uri: str, lines: list[str], fix: Fix) -> types.WorkspaceEdit:
    def pos(line: int, col: int) -> types.Position:
        text = lines[line] if line < len(lines) else ""
        return types.Position(line=line, character=utf16_len(text[:col]))

    edits = [
        types.TextEdit(range=types.Range(start=pos(e.line, e.start), end=pos(e.line, e.end)), new_text=e.text)
        for e in fix.edits
    ]
    return types.WorkspaceEdit(changes={uri: edits})


def quick_fixes(ls: AscendServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """One action per fix of each of our diagnostics in the range, computed on the buffer's text."""
    path = uri_to_path(params.text_document.uri)
    ours = [d for d in params.context.diagnostics if (d.source or "").startswith("ascendopt") and d.code]
    if path is None or not ours or not _wanted(KIND_FIX, params):
        return []
    lines = current_lines(ls, path)
    out = []
    for diag in ours:
        for fix in fixes_for(str(diag.code), diag.message, diag.range.start.line, lines):
            out.append(
                types.CodeAction(
                    title=fix.title,
                    kind=KIND_FIX,
                    diagnostics=[diag],
                    is_preferred=True,
                    edit=_edit(params.text_document.uri, lines, fix),
                )
            )
    return out


def register(ls: AscendServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[KIND_FIX, KIND_REWRITE, KIND_SOURCE]),
    )
    def code_action(ls: AscendServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        path = uri_to_path(params.text_document.uri)
        if path is None:
            return []
        line = params.range.start.line
        out: list[types.CodeAction] = quick_fixes(ls, params)
        for anchor in anchors_in(ls, path):
            if not anchor.start_line <= line <= anchor.end_line:
                continue
            for cmd in commands_for(ls, anchor):
                kind = (
                    KIND_REWRITE if cmd.command in (protocol.OPTIMIZE, protocol.TUNE_TILING) else KIND_SOURCE
                )
                if not _wanted(kind, params):
                    continue
                out.append(types.CodeAction(title=f"AscendOptimizer: {cmd.title}", kind=kind, command=cmd))
        return out
