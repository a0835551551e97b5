"""Hover on the kernel entry: the last profile per case (labelled estimate or measured), the pipes
that were busiest, the bound, and the lines on the critical path."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

from lsprotocol import types

from ascendopt.lsp import edit_checks, protocol, render
from ascendopt.lsp.anchors import anchors_in, signature_lines
from ascendopt.lsp.diagnostics import current_lines
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.locations import path_to_uri, uri_to_path
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.model import OperatorProject
from ascendopt.report.blocks import md_literal

CASES_SHOWN = 3  # slowest first; the rest behind the "more" link, so the hover fits
HOT_LINES_SHOWN = 3
_HOT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+)(?P<rest>.*)$")


def hot_line_link(op: OperatorProject, hot: str) -> str:
    """`op_kernel/x.cpp:42 (31%)` → a link that opens the file at that line."""
    m = _HOT.match(hot)
    if m is None:
        return hot
    target = f"{path_to_uri(op.root / m.group('file'))}#L{m.group('line')}"
    return f"[{m.group('file')}:{m.group('line')}]({target}){m.group('rest')}"


def more_link(op: OperatorProject, hidden: int) -> str:
    args = quote(json.dumps([{"operatorRoot": str(op.root), "name": op.name}]))
    return f"[… {hidden} more case{'s' if hidden != 1 else ''}](command:{protocol.OPEN_PROFILE}?{args})"


def markdown(ls: AscendServer, op: OperatorProject, limit: int | None = CASES_SHOWN) -> str:
    """The hover (the slowest `limit` cases), or with `limit=None` the whole profile."""
    key = op_key(op)
    lines = [f"**{op.name}** ({op.layout}, {len(op.knobs)} knob{'s' if len(op.knobs) != 1 else ''})"]
    profiled = ls.state(Runs).last_profiles.get(key)
    if profiled is None:
        lines.append("No profile yet: run **Profile** for per-case durations.")
    else:
        lines.append(f"Last profile on {profiled.hardware}:")
        cases = sorted(profiled.cases, key=lambda c: -(c.profile.duration_us if c.profile else float("inf")))
        shown = cases if limit is None else cases[:limit]
        for case in shown:
            if case.profile is None:
                lines.append(f"- `{case.name}`: {case.status} {md_literal(case.message)}".rstrip())
                continue
            lines.append(f"- `{case.name}`: {render.case_line(case.profile)}")
            if case.profile.hot_lines:
                hot = case.profile.hot_lines if limit is None else case.profile.hot_lines[:HOT_LINES_SHOWN]
                lines.append(f"  - hot lines: {', '.join(hot_line_link(op, h) for h in hot)}")
        if len(shown) < len(cases):
            lines.append(more_link(op, len(cases) - len(shown)))
    run = ls.state(Runs).last_runs.get(key)
    if run is not None:
        lines.append(f"Last {run.action}: {render.verdict(run.evaluation)}")
    return "\n".join(lines)


def register(ls: AscendServer) -> None:
    @ls.command(protocol.SHOW_PROFILE)
    def show_profile(ls: AscendServer, *args: object) -> dict[str, str]:
        """The whole last profile of one operator as Markdown (the hover's "more" link)."""
        arg = args[0] if args and isinstance(args[0], dict) else {}
        root, name = arg.get("operatorRoot"), arg.get("name")
        op = (
            ls.state(Folders).index.find(Path(root).resolve(), name if isinstance(name, str) else None)
            if isinstance(root, str)
            else None
        )
        if op is None:
            return {"status": "error", "message": "no such operator in the workspace"}
        return {"status": "ok", "markdown": markdown(ls, op, limit=None)}

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: AscendServer, params: types.HoverParams) -> types.Hover | None:
        path = uri_to_path(params.text_document.uri)
        if path is None:
            return None
        for anchor in anchors_in(ls, path):
            if anchor.kind != "kernel":
                continue
            span = signature_lines(current_lines(ls, path), anchor)
            if params.position.line in span:
                return types.Hover(
                    contents=types.MarkupContent(
                        kind=types.MarkupKind.Markdown, value=markdown(ls, anchor.op)
                    ),
                    range=types.Range(
                        start=types.Position(line=span.start, character=0),
                        end=types.Position(line=span.stop - 1, character=0),
                    ),
                )
        lines = current_lines(ls, path)
        line = params.position.line
        if line < len(lines) and (ub := edit_checks.hover_markdown(ls, path, line + 1, lines[line])):
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=ub))
        return None
