"""Where an operator can be acted on: its kernel entry, its tiling function, its ascendopt.toml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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


def anchors_in(ls: AscendServer, path: Path) -> list[Anchor]:
    out: list[Anchor] = []
    for op in ls.index.owner_of(path):
        if op.root / op.files.kernel == path:
            r = op.kernel.range
            out.append(Anchor(op, "kernel", r.start_line - 1, r.end_line - 1))
        if op.tiling is not None and op.root / op.tiling.range.file == path:
            r = op.tiling.range
            out.append(Anchor(op, "tiling", r.start_line - 1, r.end_line - 1))
        if op.files.spec and op.root / op.files.spec == path:
            out.append(Anchor(op, "spec", 0, 1_000_000))
    return out


def signature_lines(lines: list[str], anchor: Anchor) -> range:
    """The kernel entry's declaration: from its first line to the one that opens the body."""
    for i in range(anchor.start_line, min(anchor.end_line + 1, len(lines))):
        if "{" in lines[i]:
            return range(anchor.start_line, i + 1)
    return range(anchor.start_line, anchor.start_line + 1)
