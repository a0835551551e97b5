"""Map a TOML key path (as pydantic reports it) back to the line that wrote it.

tomllib gives values without positions; a validation error on
`cases[2].dtype` should still point at that line of ascendopt.toml.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"']+)\s*=")


class TomlLineIndex:
    def __init__(self, text: str) -> None:
        # (table path with array indices, key) -> 1-based line
        self._lines: dict[tuple[object, ...], int] = {}
        counts: dict[str, int] = {}
        table: tuple[object, ...] = ()
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0] if not raw.lstrip().startswith("[") else raw
            m = _HEADER.match(line)
            if m:
                name = m.group(2).replace('"', "").replace("'", "").strip()
                parts: tuple[object, ...] = tuple(name.split("."))
                if m.group(1) == "[[":
                    counts[name] = counts.get(name, -1) + 1
                    parts = (*parts, counts[name])
                table = parts
                self._lines.setdefault(table, lineno)
                continue
            k = _KEY.match(line)
            if k:
                self._lines.setdefault((*table, k.group(1).strip("\"'")), lineno)

    def exact(self, loc: tuple[object, ...]) -> int | None:
        return self._lines.get(loc)

    def line_of(self, loc: tuple[object, ...]) -> int:
        """The line of the longest prefix of `loc` that the file wrote; 1 if none."""
        for end in range(len(loc), 0, -1):
            if loc[:end] in self._lines:
                return self._lines[loc[:end]]
        return 1
