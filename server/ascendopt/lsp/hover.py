"""Hover on the kernel entry: the last profile per case (labelled estimate or measured), the pipes
that were busiest, the bound, and the lines on the critical path."""

from __future__ import annotations

from lsprotocol import types

from ascendopt.lsp import render
from ascendopt.lsp.anchors import anchors_in, signature_lines
from ascendopt.lsp.diagnostics import current_lines
from ascendopt.lsp.index import op_key
from ascendopt.lsp.locations import uri_to_path
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.model import OperatorProject


def markdown(ls: AscendServer, op: OperatorProject) -> str:
    key = op_key(op)
    lines = [f"**{op.name}** ({op.layout}, {len(op.knobs)} knob{'s' if len(op.knobs) != 1 else ''})"]
    profiled = ls.last_profiles.get(key)
    if profiled is None:
        lines.append("No profile yet: run **Profile** for per-case durations.")
    else:
        lines.append(f"Last profile on {profiled.hardware}:")
        for case in profiled.cases:
            if case.profile is None:
                lines.append(f"- `{case.name}`: {case.status} {case.message}".rstrip())
                continue
            lines.append(f"- `{case.name}`: {render.case_line(case.profile)}")
            if case.profile.hot_lines:
                lines.append(f"  - hot lines: {', '.join(case.profile.hot_lines[:3])}")
    run = ls.last_runs.get(key)
    if run is not None:
        lines.append(f"Last {run.action}: {render.verdict(run.evaluation)}")
    return "\n".join(lines)


def register(ls: AscendServer) -> None:
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
        return None
