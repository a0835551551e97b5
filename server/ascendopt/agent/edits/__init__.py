"""An LLM's reply turned into new operator files, strictly: the one place that does it.

`parse_edits` reads the reply (agent/edits/reply.py: SEARCH/REPLACE blocks, unified diffs, or
whole files in a fence naming them, amid prose and markdown) and puts each edit through the file
guard: only `editable` paths (path traversal and every other file refused); `apply_edits` locates
each edit on the fuzzy ladder (agent/edits/locate.py) and applies it. The caps: more than MAX_BLOCKS
edits, a file grown over MAX_FILE_CHARS (a live reply over agent/llm.py's MAX_REPLY_CHARS never gets
here; one replayed from an older journal is read in linear time like any other). An edit that does
not apply names its block, the file and the file's closest lines, so the model can fix it.
"""

from __future__ import annotations

from ascendopt.agent.edits.locate import RUNGS, Ambiguous, Hay, NotFound, closest, is_elision, locate, splice
from ascendopt.agent.edits.model import Edit, EditRejected
from ascendopt.agent.edits.reply import MAX_BLOCKS, read_reply

__all__ = ["MAX_BLOCKS", "MAX_FILE_CHARS", "Edit", "EditRejected", "apply_edits", "edit_files", "parse_edits"]

MAX_FILE_CHARS = 512_000  # a larger candidate file is refused (the largest real kernels are ~100 KB)


def parse_edits(reply: str, editable: list[str]) -> list[Edit]:
    """The reply's edits, each naming one of `editable` (EditRejected otherwise)."""
    edits = read_reply(reply)
    for edit in edits:
        edit.file = _guard(edit, editable)
    return edits


def apply_edits(files: dict[str, str], edits: list[Edit], editable: list[str]) -> dict[str, str]:
    """New file contents, or EditRejected naming the block and the reason."""
    if not edits:
        raise EditRejected(
            "the reply holds no SEARCH/REPLACE block, unified diff or whole file named by its path"
        )
    out = dict(files)
    for edit in edits:
        path = _guard(edit, editable)
        out[path] = _apply_one(out.get(path, ""), edit, path)
        if len(out[path]) > MAX_FILE_CHARS:
            raise EditRejected(
                f"{edit.name} makes {path} {len(out[path])} characters long, over the {MAX_FILE_CHARS} cap"
            )
    return out


def edit_files(reply: str, files: dict[str, str], editable: list[str]) -> dict[str, str]:
    """`files` with the reply's edits applied."""
    return apply_edits(files, parse_edits(reply, editable), editable)


def resolve(name: str, editable: list[str]) -> str:
    """The editable path a name means (`a/`, `b/`, `./` prefixes, a unique tail such as the file name);
    the name itself when it means none, for the guard to refuse."""
    if name in editable:
        return name
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or ".." in parts or ":" in name:
        return name
    plain = name.removeprefix("./")
    tries = [plain, plain[2:]] if plain.startswith(("a/", "b/")) else [plain]
    for t in tries:
        if t in editable:
            return t
    hits = sorted({p for p in editable for t in tries if t and p.endswith("/" + t)})
    if len(hits) > 1:
        raise EditRejected(f"the reply names {name}, which could be {' or '.join(hits)}: give the path", True)
    return hits[0] if hits else name


def _guard(edit: Edit, editable: list[str]) -> str:
    if edit.file is None:
        if len(editable) == 1:
            return editable[0]
        raise EditRejected(
            f"{edit.name} names no file and several could be meant (allowed: {', '.join(editable)})", True
        )
    target = resolve(edit.file, editable)
    if target not in editable:
        raise EditRejected(
            f"{edit.name} edits {edit.file}, which is not the operator's kernel or tiling program "
            f"(allowed: {', '.join(editable)})"
        )
    if edit.deletes:
        raise EditRejected(f"{edit.name} deletes {target}: a rewrite changes files, it does not remove them")
    return target


def _apply_one(text: str, edit: Edit, path: str) -> str:
    if edit.kind == "file":
        elided = next((line for line in edit.replace if is_elision(line)), None)
        if elided is not None:
            raise EditRejected(
                f"{edit.name} for {path} leaves lines out ({elided.strip()!r}): send the complete file, "
                "or SEARCH/REPLACE blocks",
                True,
            )
        body = list(edit.replace)
        while body and not body[-1].strip():
            body.pop()
        return "\n".join(body) + "\n"
    search = "\n".join(edit.search)
    if not search.strip():
        raise EditRejected(f"{edit.name}: empty search text", True)
    if edit.kind == "block" and not any(is_elision(line) for line in edit.search):
        count = text.count(search)  # the historical rule: an exact substring, once
        if count == 1:
            return text.replace(search, "\n".join(edit.replace), 1)
        if count > 1:
            raise EditRejected(
                f"{edit.name}: its search text occurs {count} times in {path}; it must be unique "
                "(add the lines around it)",
                True,
            )
    hay = Hay(text)
    rungs = RUNGS[1:] if edit.kind == "block" else RUNGS
    for search_lines, replace_lines in _fuzzed(edit):
        try:
            rung, spans = locate(hay, search_lines, rungs)
        except NotFound:
            continue
        except Ambiguous as exc:
            raise EditRejected(
                f"{edit.name}: its search text occurs more than once in {path} ({exc.how}); it must be "
                "unique (add the lines around it)",
                True,
            ) from None
        try:
            return splice(hay, search_lines, replace_lines, rung, spans)
        except ValueError as exc:
            raise EditRejected(f"{edit.name}: {exc}", True) from None
    raise EditRejected(
        f"{edit.name}: this text does not occur in {path} (not even ignoring whitespace and indentation)"
        + closest(hay, edit.search),
        True,
    )


def _fuzzed(edit: Edit) -> list[tuple[list[str], list[str]]]:
    """The edit as given; for a diff hunk, then with up to 1 and 2 context lines dropped at each end."""
    tries = [(edit.search, edit.replace)]
    if edit.kind != "hunk":
        return tries
    for fuzz in (1, 2):
        lead, tail = min(fuzz, edit.lead), min(fuzz, edit.tail)
        if not lead and not tail:
            continue
        search = edit.search[lead : len(edit.search) - tail]
        replace = edit.replace[lead : len(edit.replace) - tail]
        if any(line.strip() for line in search) and (search, replace) != tries[-1]:
            tries.append((search, replace))
    return tries
