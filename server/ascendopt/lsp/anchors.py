"""Where an operator can be acted on: its kernel entry, its tiling function, its ascendopt.toml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ascendopt.lsp.buffers import Documents, Span
from ascendopt.lsp.index import Folders
from ascendopt.lsp.locations import path_to_uri
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.model import OperatorProject

AnchorKind = Literal["kernel", "tiling", "spec"]


@dataclass(frozen=True)
class Anchor:
    op: OperatorProject
    kind: AnchorKind
    start_line: int  # 0-based, inclusive
    end_line: int  # 0-based, inclusive

    def args(self) -> list[dict[str, str]]:
        return [{"operatorRoot": str(self.op.root), "name": self.op.name}]


def _buffer_spans(ls: AscendServer, path: Path) -> dict[str, Span] | None:
    """Function spans from the open document's text (None when the file is not open)."""
    uri = path_to_uri(path)
    doc = ls.workspace.text_documents.get(uri)
    if doc is None or path.suffix == ".toml":
        return None
    return ls.state(Documents).outlines.spans(uri, doc.version or 0, path, doc.source)


def anchors_in(ls: AscendServer, path: Path) -> list[Anchor]:
    """Anchors on the lines the buffer has them now when the file is open (a function the user is
    typing above moves its lens at once), else where discovery read them on disk."""
    out: list[Anchor] = []
    spans: dict[str, Span] | None = None
    for op in ls.state(Folders).index.owner_of(path):
        placed: list[tuple[AnchorKind, str, int, int]] = []
        if op.root / op.files.kernel == path:
            r = op.kernel.range
            placed.append(("kernel", op.kernel.name, r.start_line - 1, r.end_line - 1))
        if op.tiling is not None and op.root / op.tiling.range.file == path:
            r = op.tiling.range
            placed.append(("tiling", op.tiling.function, r.start_line - 1, r.end_line - 1))
        if placed and spans is None:
            spans = _buffer_spans(ls, path)
        for kind, name, start, end in placed:
            if spans is not None:
                found = spans.get(name) or spans.get(name.rsplit("::", 1)[-1])
                if found is None:
                    continue  # deleted or renamed in the buffer: no lens on a stale line
                start, end = found
            out.append(Anchor(op, kind, start, end))
        if op.external_spec == path or (op.files.spec and op.root / op.files.spec == path):
            out.append(Anchor(op, "spec", 0, 1_000_000))
    return out


def signature_lines(lines: list[str], anchor: Anchor) -> range:
    """The kernel entry's declaration: from its first line to the one that opens the body."""
    for i in range(anchor.start_line, min(anchor.end_line + 1, len(lines))):
        if "{" in lines[i]:
            return range(anchor.start_line, i + 1)
    return range(anchor.start_line, anchor.start_line + 1)
