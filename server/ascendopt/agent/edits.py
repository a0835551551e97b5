"""Search/replace edit blocks from the LLM, applied strictly to the operator's own files.

    FILE: op_kernel/add_custom.cpp
    <<<<<<< SEARCH
    exact lines from the file
    =======
    their replacement
    >>>>>>> REPLACE

A block applies only if its search text occurs exactly once (or, failing that, exactly
once after normalising whitespace); only the kernel and tiling files may be touched.
"""

from __future__ import annotations

import bisect
import re

from pydantic import BaseModel

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
_FILE = re.compile(r"FILE:\s*(?P<file>.+?)\s*$")
MAX_BLOCKS = 64
MAX_FILE_CHARS = 512_000  # a larger candidate file is refused (the largest real kernels are ~100 KB)


class EditBlock(BaseModel):
    file: str | None
    search: str
    replace: str


class EditRejected(ValueError):
    pass


def parse_blocks(text: str) -> list[EditBlock]:
    """The reply's blocks, in one pass over its lines (linear time whatever the reply holds).

    A block is a `<<<<<<< SEARCH` line, its search lines, a `=======` line, the replacement
    lines and a `>>>>>>> REPLACE` line; an optional `FILE: path` line just before names the
    file. A SEARCH line inside an unfinished block starts over (the earlier one was never
    closed); a block still open at the end of the reply is truncated: EditRejected.
    """
    blocks: list[EditBlock] = []
    state = "outside"
    previous = ""
    file: str | None = None
    search: list[str] = []
    replace: list[str] = []
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        marker = line.strip()
        if marker == SEARCH:
            if state == "outside":
                m = _FILE.search(previous)
                file = (m.group("file").strip("`* ") or None) if m else None
            state, search, replace = "search", [], []
        elif state == "search" and marker == DIVIDER:
            state = "replace"
        elif state == "replace" and marker == REPLACE:
            blocks.append(EditBlock(file=file, search="\n".join(search), replace="\n".join(replace)))
            if len(blocks) > MAX_BLOCKS:
                raise EditRejected(f"the reply holds more than {MAX_BLOCKS} SEARCH/REPLACE blocks")
            state = "outside"
        elif state == "search":
            search.append(line)
        elif state == "replace":
            replace.append(line)
        previous = line
    if state != "outside":
        where = "its ======= line" if state == "search" else "its >>>>>>> REPLACE line"
        raise EditRejected(f"block {len(blocks) + 1} is truncated: the reply ends before {where}")
    return blocks


def apply_blocks(files: dict[str, str], blocks: list[EditBlock], allowed: list[str]) -> dict[str, str]:
    """New file contents, or EditRejected naming the block and the reason."""
    if not blocks:
        raise EditRejected("the reply holds no SEARCH/REPLACE block")
    out = dict(files)
    for n, block in enumerate(blocks, start=1):
        target = block.file or (allowed[0] if len(allowed) == 1 else None)
        if target is None:
            raise EditRejected(f"block {n} names no FILE and several files could be meant")
        if target not in allowed:
            raise EditRejected(
                f"block {n} edits {target}, which is not the operator's kernel or tiling program "
                f"(allowed: {', '.join(allowed)})"
            )
        out[target] = _apply_one(out[target], block, n, target)
        if len(out[target]) > MAX_FILE_CHARS:
            raise EditRejected(
                f"block {n} makes {target} {len(out[target])} characters long, over the {MAX_FILE_CHARS} cap"
            )
    return out


def _apply_one(text: str, block: EditBlock, n: int, path: str) -> str:
    count = text.count(block.search) if block.search else 0
    if count == 1:
        return text.replace(block.search, block.replace, 1)
    if count > 1:
        raise EditRejected(f"block {n}: its search text occurs {count} times in {path}; it must be unique")
    # Whitespace-normalised match: same tokens line by line, indentation, spacing and blank lines
    # free. One substring search over the normalised text (linear), not a scan from every line.
    lines = text.split("\n")
    want = [_norm(line) for line in block.search.split("\n") if _norm(line)]
    if not want:
        raise EditRejected(f"block {n}: empty search text")
    kept = [(i, _norm(line)) for i, line in enumerate(lines) if _norm(line)]
    offsets, pos = [], 1
    for _, norm in kept:
        offsets.append(pos)
        pos += len(norm) + 1
    hay = "\n" + "\n".join(norm for _, norm in kept) + "\n"
    needle = "\n" + "\n".join(want) + "\n"
    hits: list[int] = []
    at = hay.find(needle)
    while at >= 0 and len(hits) < 2:
        hits.append(bisect.bisect_left(offsets, at + 1))
        at = hay.find(needle, at + 1)
    if len(hits) != 1:
        why = "does not occur" if not hits else "occurs more than once"
        raise EditRejected(f"block {n}: its search text {why} in {path} (even ignoring whitespace)")
    first = hits[0]
    start, end = kept[first][0], kept[first + len(want) - 1][0] + 1
    return "\n".join([*lines[:start], *block.replace.split("\n"), *lines[end:]])


def _norm(line: str) -> str:
    return " ".join(line.split())
