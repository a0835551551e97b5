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

import re

from pydantic import BaseModel

_BLOCK = re.compile(
    r"(?:FILE:\s*(?P<file>[^\n]+?)\s*\n)?<<<<<<< SEARCH\n(?P<search>.*?)\n?"
    r"=======\n(?P<replace>.*?)\n?>>>>>>> REPLACE",
    re.DOTALL,
)


class EditBlock(BaseModel):
    file: str | None
    search: str
    replace: str


class EditRejected(ValueError):
    pass


def parse_blocks(text: str) -> list[EditBlock]:
    return [
        EditBlock(
            file=(m.group("file") or "").strip("`* ") or None,
            search=m.group("search"),
            replace=m.group("replace"),
        )
        for m in _BLOCK.finditer(text)
    ]


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
    return out


def _apply_one(text: str, block: EditBlock, n: int, path: str) -> str:
    count = text.count(block.search) if block.search else 0
    if count == 1:
        return text.replace(block.search, block.replace, 1)
    if count > 1:
        raise EditRejected(f"block {n}: its search text occurs {count} times in {path}; it must be unique")
    # Whitespace-normalised match: same tokens line by line, indentation and spacing free.
    lines = text.split("\n")
    want = [_norm(line) for line in block.search.split("\n") if _norm(line)]
    if not want:
        raise EditRejected(f"block {n}: empty search text")
    hits = []
    for start in range(len(lines)):
        got: list[str] = []
        end = start
        while end < len(lines) and len(got) < len(want):
            if _norm(lines[end]):
                got.append(_norm(lines[end]))
            end += 1
        if got == want:
            hits.append((start, end))
    if len(hits) != 1:
        why = "does not occur" if not hits else f"occurs {len(hits)} times"
        raise EditRejected(f"block {n}: its search text {why} in {path} (even ignoring whitespace)")
    start, end = hits[0]
    return "\n".join([*lines[:start], *block.replace.split("\n"), *lines[end:]])


def _norm(line: str) -> str:
    return " ".join(line.split())
