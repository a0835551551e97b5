"""Reading a reply: its edits, in one pass over its lines (linear time whatever the reply holds).

Three formats, mixed freely with prose and markdown fences:

- SEARCH/REPLACE blocks (`<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`), each for the file the
  reply last named (`FILE: path`, a heading or bold line naming it, a line ending in `:` with the
  path in backticks, a fence's info string, `// file: path` as a fence's first line);
- unified diffs: `--- a/path` + `+++ b/path` headers, then `@@ … @@` hunks (their line numbers are
  not trusted; a hunk is located by its text);
- whole files: a fenced block holding no edit, named by its info string, its first line
  (`// file: path`) or the line before it. Taken only when the reply holds no block or hunk.

A block still open at the end of the reply, or a fenced diff or whole file whose fence never
closes, is a reply cut short: EditRejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascendopt.agent.edits.model import Edit, EditRejected

MAX_BLOCKS = 64
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./")
_PREFIXES = ("// file:", "/* file:", "# file:", "file:", "filename:", "path:", "//")


def is_marker(text: str, char: str, word: str = "") -> bool:
    """`<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`: 5 to 9 marker characters, the word after."""
    if word:
        if not text.endswith(word):
            return False
        text = text[: -len(word)].rstrip()
    return 5 <= len(text) <= 9 and text == char * len(text)


def pathlike(token: str) -> bool:
    if not 0 < len(token) <= 200 or not set(token) <= _PATH_CHARS:
        return False
    stem, dot, ext = token.rpartition("/")[2].rpartition(".")
    return bool(dot and stem and ext.isalpha())


def mentioned_path(line: str) -> str | None:
    """The file a line of prose names, if it names one as the target of what follows."""
    s = line.strip()
    if not s or len(s) > 300:
        return None
    body, heading = s, False
    if s.startswith("#"):
        rest = s.lstrip("#")
        if not rest.startswith(" "):
            return None  # a preprocessor line
        body, heading = rest.strip(), True
    low, explicit = body.lower(), False
    for prefix in _PREFIXES:
        if low.startswith(prefix):
            body, explicit = body[len(prefix) :].strip(), prefix != "//"
            break
    body = body.removesuffix("*/").strip().rstrip(":").strip("*`_ ").rstrip(":").strip("*`_ ")
    if pathlike(body) or (explicit and body and len(body) <= 300 and not any(c.isspace() for c in body)):
        return body
    if not (heading or s.endswith(":") or s.startswith("**")):
        return None
    named = {t for t in s.split("`")[1::2] if pathlike(t)}
    return named.pop() if len(named) == 1 else None


def _fence_name(info: str) -> str | None:
    for token in info.split():
        token = token.split("=", 1)[-1].strip("\"'")
        if pathlike(token):
            return token
    return None


def _diff_path(text: str) -> str:
    return text.split("\t", 1)[0].strip()


@dataclass
class _Fence:
    start: int  # the line of its opening
    name: str | None  # from its info string or the line before it
    edits: int  # edits read before it opened
    token: str  # ``` or ~~~


class _Reader:
    def __init__(self) -> None:
        self.edits: list[Edit] = []
        self.hunk: list[tuple[str, str, bool]] = []  # (tag, text, a bare empty line)
        self.diff_file: str | None = None
        self.diff_deletes = False

    def add(self, edit: Edit) -> None:
        self.edits.append(edit)
        if len(self.edits) > MAX_BLOCKS:
            raise EditRejected(
                f"the reply holds more than {MAX_BLOCKS} edits (SEARCH/REPLACE blocks, diff hunks or files)"
            )

    def flush_hunk(self) -> None:
        hunk, self.hunk = self.hunk, []
        while hunk and hunk[-1][2]:
            hunk.pop()
        if not any(tag != " " for tag, _, _ in hunk):
            return
        lead = next((k for k, (tag, _, _) in enumerate(hunk) if tag != " "), 0)
        tail = next((k for k, (tag, _, _) in enumerate(reversed(hunk)) if tag != " "), 0)
        self.add(
            Edit(
                n=len(self.edits) + 1,
                kind="hunk",
                file=self.diff_file,
                search=[t for tag, t, _ in hunk if tag != "+"],
                replace=[t for tag, t, _ in hunk if tag != "-"],
                lead=lead,
                tail=tail,
                deletes=self.diff_deletes,
            )
        )


def read_reply(reply: str) -> list[Edit]:
    """The reply's edits, their files as the reply names them (not yet resolved or guarded)."""
    lines = reply.split("\n")
    r = _Reader()
    wholes: list[tuple[str | None, list[str]]] = []
    state = "outside"  # outside | search | replace | hunk
    mention: str | None = None  # the file the reply last named: blocks after it edit it
    recent: str | None = None  # the file named by the last non-blank line outside a fence
    block_file: str | None = None
    fence: _Fence | None = None
    search: list[str] = []
    replace: list[str] = []
    i, count = 0, len(lines)
    while i < count:
        line = lines[i].rstrip("\r")
        marker = line.strip()
        if state in ("search", "replace"):
            if is_marker(marker, "<", "SEARCH"):  # the earlier block was never closed: start over
                state, search, replace = "search", [], []
            elif state == "search" and is_marker(marker, "="):
                state = "replace"
            elif state == "replace" and is_marker(marker, ">", "REPLACE"):
                r.add(Edit(n=len(r.edits) + 1, kind="block", file=block_file, search=search, replace=replace))
                state = "outside"
            else:
                (search if state == "search" else replace).append(line)
            i += 1
            continue
        header = line.startswith("--- ") and i + 1 < count and lines[i + 1].startswith("+++ ")
        if state == "hunk":
            if header or line.startswith("@@"):
                r.flush_hunk()
                state = "outside"
            elif line[:1] in (" ", "+", "-"):
                r.hunk.append((line[0], line[1:], False))
                i += 1
                continue
            elif not line:
                r.hunk.append((" ", "", True))  # a blank context line whose space was lost
                i += 1
                continue
            elif line.startswith("\\"):  # \ No newline at end of file
                i += 1
                continue
            else:
                r.flush_hunk()
                state = "outside"
        if is_marker(marker, "<", "SEARCH"):
            state, search, replace, block_file = "search", [], [], mention
        elif header:
            old, new = _diff_path(line[4:]), _diff_path(lines[i + 1][4:])
            r.diff_deletes = new == "/dev/null"
            r.diff_file = mention = old if r.diff_deletes else new
            i += 1
        elif line.startswith("@@"):
            state = "hunk"
        elif marker.startswith(("```", "~~~")):
            token = marker[:3]
            if fence is None:
                name = _fence_name(marker.lstrip(token[0]))
                mention = name or mention
                fence = _Fence(start=i, name=name or recent, edits=len(r.edits), token=token)
            elif marker == token * (len(marker) // 3) and marker.startswith(fence.token):
                if len(r.edits) == fence.edits:  # no edit inside: perhaps a whole file
                    wholes.append(_whole(fence, lines[fence.start + 1 : i]))
                    if len(wholes) > MAX_BLOCKS:
                        raise EditRejected(f"the reply holds more than {MAX_BLOCKS} fenced files")
                fence = None
        elif marker and (fence is None or i == fence.start + 1):
            named = mentioned_path(line)
            mention = named or mention
            if fence is None:
                recent = named
        i += 1
    if state in ("search", "replace"):
        where = "its ======= line" if state == "search" else "its >>>>>>> REPLACE line"
        raise EditRejected(f"block {len(r.edits) + 1} is truncated: the reply ends before {where}")
    if state == "hunk":
        r.flush_hunk()
    if fence is not None:
        if len(r.edits) > fence.edits and r.edits[-1].kind == "hunk":
            raise EditRejected(f"block {len(r.edits)} is truncated: the reply ends inside its fenced diff")
        named, _ = _whole(fence, lines[fence.start + 1 :])
        if len(r.edits) == fence.edits and named:
            raise EditRejected(f"the whole file {named} is truncated: the reply ends inside its fence")
    if r.edits:
        return r.edits
    files = [
        Edit(n=k, kind="file", file=name, replace=text) for k, (name, text) in enumerate(wholes, 1) if name
    ]
    if files:
        return files
    if wholes:
        raise EditRejected(
            "the reply holds no edit: its fenced code names no file (put `// file: <path>` on its first "
            "line, or use SEARCH/REPLACE blocks)",
            fixable=True,
        )
    raise EditRejected(
        "the reply holds no SEARCH/REPLACE block, unified diff or whole file named by its path"
    )


def _whole(fence: _Fence, content: list[str]) -> tuple[str | None, list[str]]:
    """A fenced block's file and text: named by its first line (`// file: path`, then dropped), its
    info string or the line before it."""
    text = [line.rstrip("\r") for line in content]
    first = text[0].strip() if text else ""
    if first.startswith(("//", "/*", "# ")) and (named := mentioned_path(first)):
        return named, text[1:]
    return fence.name, text
