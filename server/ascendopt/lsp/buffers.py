"""Where functions are in an open document's text: lenses and hovers follow the buffer while the
user types, not the file on disk (which only changes on save). One parse per document version."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from ascendopt.lsp.feature import FeatureState
from ascendopt.operators.cpp_source import CppSource

Span = tuple[int, int]  # 0-based first and last line of a function definition


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


@dataclass
class BufferOutlines:
    """Function spans per open document, keyed by URI and cached for the document's version."""

    _cache: dict[str, tuple[int, dict[str, Span]]] = field(default_factory=dict)

    def spans(self, uri: str, version: int, path: Path, text: str) -> dict[str, Span]:
        hit = self._cache.get(uri)
        if hit is not None and hit[0] == version:
            return hit[1]
        src = CppSource.parse(path.name, text)
        out: dict[str, Span] = {}
        for name, fn in src.functions():
            span = (fn.start_point[0], fn.end_point[0])
            out.setdefault(name, span)
            out.setdefault(_short(name), span)
        self._cache[uri] = (version, out)
        return out

    def forget(self, uri: str) -> None:
        self._cache.pop(uri, None)


class Documents(FeatureState):
    """The open documents (written by sync.py): their outlines, their operators found ahead of the
    workspace index, and the debounced refresh each change schedules."""

    def __init__(self) -> None:
        self.outlines = BufferOutlines()  # function spans of open documents, per version
        self.early: dict[Path, asyncio.Future[None]] = {}  # open documents' operators, found first
        self.pending_refresh: dict[str, asyncio.TimerHandle] = {}  # debounced re-index/re-verify
