"""Where an edit's search text is in a file: the fuzzy ladder, elisions, and the closest lines.

The ladder, loosest last; the first rung that finds the text decides, and more than one match on
it is an error (a guess would edit the wrong place):

1. exactly (for a SEARCH block: as a substring, the historical rule);
2. line by line, ignoring trailing whitespace and CR;
3. line by line, ignoring indentation (the replacement is re-indented by the found block's);
4. line by line, ignoring all whitespace runs and blank lines.

An elision line in the search text (`...`, `// ...`, `/* ... */`, `// ... existing code ...`)
matches any run of lines: the first piece must occur once, each later piece is its first
occurrence after the one before. An elision in the replacement stands for the same run.

Every search is a substring search over the file's keyed lines joined by newlines (linear).
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise


def norm(line: str) -> str:
    return " ".join(line.split())


@dataclass(frozen=True)
class Rung:
    how: str
    key: Callable[[str], str]
    skip_blank: bool = False
    reindent: bool = False


RUNGS = [
    Rung("exactly", lambda s: s),
    Rung("ignoring trailing whitespace", str.rstrip),
    Rung("ignoring indentation", str.strip, reindent=True),
    Rung("ignoring whitespace and blank lines", norm, skip_blank=True, reindent=True),
]


def is_elision(line: str) -> bool:
    s = line.strip()
    for opener in ("//", "/*", "#"):
        if s.startswith(opener):
            s = s[len(opener) :].lstrip("/*# ")
            break
    s = s.removesuffix("*/").strip()
    return s.startswith(("...", "…"))


class Hay:
    """A file's lines, keyed per rung on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self._keyed: dict[str, tuple[list[int], str, list[int]]] = {}

    def _index(self, rung: Rung) -> tuple[list[int], str, list[int]]:
        if rung.how not in self._keyed:
            kept = [(i, rung.key(line)) for i, line in enumerate(self.lines)]
            if rung.skip_blank:
                kept = [(i, k) for i, k in kept if k]
            offsets, pos = [], 1
            for _, k in kept:
                offsets.append(pos)
                pos += len(k) + 1
            hay = "\n" + "\n".join(k for _, k in kept) + "\n"
            self._keyed[rung.how] = ([i for i, _ in kept], hay, offsets)
        return self._keyed[rung.how]

    def find(self, rung: Rung, want: list[str], after: int = 0, limit: int = 2) -> list[tuple[int, int]]:
        """Up to `limit` line spans [start, end) matching `want` on this rung, starting at line `after`."""
        keys = [rung.key(w) for w in want]
        if rung.skip_blank:
            keys = [k for k in keys if k]
        if not keys:
            return []
        index, hay, offsets = self._index(rung)
        needle = "\n" + "\n".join(keys) + "\n"
        first = bisect.bisect_left(index, after)
        at = hay.find(needle, offsets[first] - 1 if first < len(offsets) else len(hay))
        spans: list[tuple[int, int]] = []
        while at >= 0 and len(spans) < limit:
            k = bisect.bisect_left(offsets, at + 1)
            spans.append((index[k], index[k + len(keys) - 1] + 1))
            at = hay.find(needle, at + 1)
        return spans


class NotFound(Exception):
    pass


class Ambiguous(Exception):
    def __init__(self, how: str) -> None:
        self.how = how


def pieces_of(search: list[str]) -> list[list[str]]:
    """The search text split at its elision lines (leading and trailing ones dropped)."""
    pieces: list[list[str]] = [[]]
    for line in search:
        if is_elision(line):
            if pieces[-1]:
                pieces.append([])
        else:
            pieces[-1].append(line)
    return [p for p in pieces if any(line.strip() for line in p)]


def locate(hay: Hay, search: list[str], rungs: list[Rung]) -> tuple[Rung, list[tuple[int, int]]]:
    """The rung that found the search text and the line span of each of its pieces."""
    pieces = pieces_of(search)
    if not pieces:
        raise NotFound
    for rung in rungs:
        hits = hay.find(rung, pieces[0])
        if len(hits) > 1:
            raise Ambiguous(rung.how)
        if not hits:
            continue
        spans = [hits[0]]
        for piece in pieces[1:]:
            later = hay.find(rung, piece, after=spans[-1][1], limit=1)
            if not later:
                break
            spans.append(later[0])
        else:
            return rung, spans
    raise NotFound


def splice(hay: Hay, search: list[str], replace: list[str], rung: Rung, spans: list[tuple[int, int]]) -> str:
    """The file with the found lines replaced (elisions in `replace` keep the lines they stand for)."""
    lines = hay.lines
    found = lines[spans[0][0] : spans[-1][1]]
    cr = bool(found) and all(line.endswith("\r") for line in found if line)
    if rung.reindent:
        replace = reindent(replace, search, found)
    gaps = [lines[a[1] : b[0]] for a, b in pairwise(spans)]
    elided = [k for k, line in enumerate(replace) if is_elision(line)]
    out: list[str] = []
    if elided:
        if len(elided) != len(gaps):
            raise ValueError(
                f"its replacement elides {len(elided)} runs of lines but its search text {len(gaps)}"
            )
        gap = iter(gaps)
        for line in replace:
            out.extend(next(gap) if is_elision(line) else [line + "\r" if cr else line])
    else:
        out = [line + "\r" if cr else line for line in replace]
    return "\n".join([*lines[: spans[0][0]], *out, *lines[spans[-1][1] :]])


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def reindent(replace: list[str], search: list[str], found: list[str]) -> list[str]:
    """`replace` shifted by the difference between the search text's indentation and the found lines'."""
    s_first = next((s for s in search if s.strip() and not is_elision(s)), "")
    f_first = next((f for f in found if f.strip()), "")
    s_ind, f_ind = _indent(s_first), _indent(f_first)
    tabs = f_ind.startswith("\t")
    shift = len(f_ind.expandtabs(4)) - len(s_ind.expandtabs(4))
    out = []
    for line in replace:
        if not line.strip():
            out.append("")
            continue
        width = max(0, len(_indent(line).expandtabs(4)) + shift)
        out.append(("\t" * (width // 4) + " " * (width % 4) if tabs else " " * width) + line.lstrip())
    return out


MAX_SHOWN = 12


def closest(hay: Hay, search: list[str]) -> str:
    """The window of the file most like the search text, numbered, for the model to fix its block."""
    want = [norm(s) for s in search if norm(s) and not is_elision(s)]
    if not want or not hay.lines:
        return ""
    size = min(len(want), MAX_SHOWN)
    wanted = set(want)
    hit = [1 if norm(line) in wanted else 0 for line in hay.lines]
    sums = [0]
    for h in hit:
        sums.append(sums[-1] + h)
    n = len(hay.lines)
    starts = range(max(1, n - size + 1))
    scored = sorted(starts, key=lambda i: -(sums[min(n, i + size)] - sums[i]))[:8]
    if sums[-1] == 0:  # no line in common: the lines most like the search text's first line
        close = difflib.get_close_matches(
            want[0], [norm(line) for line in hay.lines[:20_000]], n=1, cutoff=0.5
        )
        if not close:
            return ""
        first = next(i for i, line in enumerate(hay.lines) if norm(line) == close[0])
        scored = [max(0, first - 1)]
    target = "\n".join(want[:size])[:2000]

    def ratio(i: int) -> float:
        window = "\n".join(norm(line) for line in hay.lines[i : i + size + 2])[:2000]
        return difflib.SequenceMatcher(None, target, window, autojunk=False).ratio()

    best = max(0, max(scored, key=ratio) - 1)
    shown = hay.lines[best : best + size + 3]
    while shown and not shown[-1].strip():
        shown.pop()
    body = "\n".join(f"{best + k + 1:5} | {line.rstrip()[:160]}" for k, line in enumerate(shown))
    return f"; the closest lines are {best + 1}-{best + len(shown)}:\n{body}"
