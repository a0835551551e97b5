"""One C++ file parsed with tree-sitter, with exact byte ranges kept for later edits.

AscendC's qualifiers (`__aicore__`, `__global__`, `__gm__`) are blanked with the
same number of spaces before parsing, so byte offsets into the original text
stay exact. Macro-style lines that C++ grammar cannot read (the tiling-data
macros, `<<<…>>>` launches) are read by their tokens instead.

Parsing never decides whether code is valid (the compiler does); we need only the spans we edit.
A file that does not parse cleanly is parsed a second time with what the grammar cannot read
blanked out (same length, so offsets stay exact): macro calls that carry a statement
(`OP_CHECK_IF(c, OP_LOGE(…), return ge::GRAPH_FAILED);`) and conditional-compilation lines
(`#if`/`#else`/`#endif` that split an if/else chain; the first branch of each is kept). What
still does not parse is a note on its line: nothing there is read or edited.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import tree_sitter_cpp
from pydantic import BaseModel
from tree_sitter import Language, Node, Parser, Tree

from ascendopt.operators.issues import Issue

_QUALIFIERS = (b"__aicore__", b"__global__", b"__gm__", b"__inline__")
# Lines where tree-sitter's ERROR nodes are expected and harmless.
_MACRO_TOKENS = (
    b"BEGIN_TILING_DATA_DEF",
    b"TILING_DATA_FIELD_DEF",
    b"END_TILING_DATA_DEF",
    b"REGISTER_TILING_DATA_CLASS",
    b"REGISTER_TILING_DEFAULT",
    b"<<<",
    b"OP_ADD",
    b"IMPL_OP_OPTILING",
    b"ASCENDC_TPL",
)


class SourceRange(BaseModel):
    """A span of one file: byte offsets for edits, 1-based lines/columns for people."""

    file: str
    start_byte: int
    end_byte: int
    start_line: int
    start_column: int
    end_line: int
    end_column: int


# A C++ comment, line or block (string literals are the caller's care).
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def split_top_level(text: str, brackets: str = "([{") -> list[str]:
    """`text` split at its commas outside brackets (`a, f(b, c), d` → ["a", " f(b, c)", " d"]);
    `brackets` names the opening ones counted (each with its closer: `<` pairs with `>`). A blank last
    part is dropped."""
    closers = brackets.translate(str.maketrans("([{<", ")]}>"))
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in brackets) - (ch in closers)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur] if cur.strip() else parts


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_cpp.language()))


def mask_qualifiers(data: bytes) -> bytes:
    for q in _QUALIFIERS:
        data = data.replace(q, b" " * len(q))
    return data


def _blank(data: bytearray, start: int, end: int) -> None:
    """Spaces over data[start:end], newlines kept (lines and offsets stay where they were)."""
    for i in range(start, end):
        if data[i] not in (0x0A, 0x0D):
            data[i] = 0x20


_MACRO_CALL = re.compile(rb"\b[A-Z][A-Z0-9_]*\s*\(")
_STATEMENT_WORD = re.compile(rb"\b(return|break|continue|goto)\b")


def _closing_paren(data: bytes, open_at: int) -> int | None:
    """Index of the `)` matching data[open_at] == '(', skipping strings, chars and comments."""
    depth, i, n = 0, open_at, len(data)
    while i < n:
        c = data[i]
        if c in b"\"'":
            j = i + 1
            while j < n and data[j] != c and data[j] != 0x0A:
                j += 2 if data[j] == 0x5C else 1
            i = j
        elif data.startswith(b"//", i):
            i = data.find(b"\n", i)
            if i < 0:
                return None
        elif data.startswith(b"/*", i):
            i = data.find(b"*/", i + 2)
            if i < 0:
                return None
            i += 1
        elif c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def mask_statement_macros(data: bytes) -> bytes:
    """Blank macro calls whose arguments hold a statement (`OP_CHECK_IF(c, log, return x);`):
    no C++ grammar reads them, and nothing we edit lives inside them."""
    out = bytearray(data)
    pos = 0
    while (m := _MACRO_CALL.search(data, pos)) is not None:
        close = _closing_paren(data, m.end() - 1)
        if close is None:
            break
        if _STATEMENT_WORD.search(data, m.end(), close):
            _blank(out, m.start(), close + 1)
            pos = close + 1
        else:
            pos = m.end()
    return bytes(out)


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)


def mask_preprocessor(data: bytes) -> bytes:
    """Blank conditional-compilation lines and every branch after the first of each `#if`, so an
    if/else chain split by `#if` reads as one chain (a parse-only view; the compiler sees all)."""
    out = bytearray(data)
    stack: list[bool] = []  # per open #if: is its current branch a later (blanked) one?
    last = 0
    for m in _DIRECTIVE.finditer(data):
        end = m.start()
        while True:  # the directive with its `\` continuation lines
            nl = data.find(b"\n", end)
            end = len(data) if nl < 0 else nl
            if data[end - 1 : end] != b"\\" or end >= len(data):
                break
            end += 1
        if any(stack):
            _blank(out, last, m.start())
        kind = m.group(1)
        if kind.startswith(b"if"):
            stack.append(False)
        elif stack and kind == b"endif":
            stack.pop()
        elif stack:
            stack[-1] = True
        _blank(out, m.start(), end)
        last = end
    if any(stack):
        _blank(out, last, len(data))
    return bytes(out)


def _error_count(node: Node) -> int:
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            count += 1
        elif n.has_error:
            stack.extend(n.children)
    return count


@dataclass
class Token:
    type: str
    text: str
    node: Node


@dataclass
class CppSource:
    path: str  # relative to the operator root
    text: str
    data: bytes = field(repr=False)
    tree: Tree = field(repr=False)

    @classmethod
    def parse(cls, path: str, text: str, whole: bool = False) -> CppSource:
        """`whole`: the one parse of the whole text, never the tolerant retry, so every `#if` branch is
        in the tree (for a reader that must see all the code, not edit it)."""
        data = text.encode("utf-8")
        masked = mask_qualifiers(data)
        tree = _parser().parse(masked)
        if not whole and tree.root_node.has_error:
            tolerant = _parser().parse(mask_preprocessor(mask_statement_macros(masked)))
            if _error_count(tolerant.root_node) < _error_count(tree.root_node):
                tree = tolerant
        return cls(path=path, text=text, data=data, tree=tree)

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def text_of(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def range_of(self, node: Node) -> SourceRange:
        return self.range_of_bytes(node.start_byte, node.end_byte)

    def range_of_bytes(self, start: int, end: int) -> SourceRange:
        sl, sc = self._point(start)
        el, ec = self._point(end)
        return SourceRange(
            file=self.path,
            start_byte=start,
            end_byte=end,
            start_line=sl,
            start_column=sc,
            end_line=el,
            end_column=ec,
        )

    def _point(self, offset: int) -> tuple[int, int]:
        line = self.data.count(b"\n", 0, offset) + 1
        line_start = self.data.rfind(b"\n", 0, offset) + 1
        return line, offset - line_start + 1

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    # -- walking -------------------------------------------------------------------------

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        stack = [node or self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def tokens(self) -> list[Token]:
        """Leaf tokens in source order, comments and zero-width (MISSING) tokens left out."""
        out = []
        for n in self.walk():
            if n.child_count == 0 and n.end_byte > n.start_byte and n.type != "comment":
                out.append(Token(n.type, self.text_of(n), n))
        return out

    def comments(self) -> list[Node]:
        return [n for n in self.walk() if n.type == "comment"]

    def syntax_issues(self) -> list[Issue]:
        """ERROR/MISSING nodes outside lines that are known macro forms, as notes (never errors:
        a construct we cannot read does not stop verification)."""
        issues: list[Issue] = []
        reported: list[Node] = []
        for n in self.walk():
            if not (n.is_error or n.is_missing):
                continue
            # A top-level ERROR that wraps a whole declaration says little; the first error
            # inside it (or any error not nested in one already reported) marks the spot.
            if n.is_error and n.parent == self.root and any(c.has_error for c in n.children):
                continue
            if any(r.start_byte <= n.start_byte and n.end_byte <= r.end_byte for r in reported):
                continue
            reported.append(n)
            line_no = n.start_point[0] + 1
            line = self.line_text(line_no).encode()
            if any(tok in line for tok in _MACRO_TOKENS) or self._inside_macro_call(n):
                continue
            what = f"expected {n.type}" if n.is_missing else "cannot parse this C++"
            snippet = self.text_of(n).strip().splitlines()[0][:60] if n.end_byte > n.start_byte else ""
            issues.append(
                Issue(
                    file=self.path,
                    line=line_no,
                    column=n.start_point[1] + 1,
                    severity="info",
                    message=f"{what}"
                    + (f" near `{snippet}`" if snippet else "")
                    + ": nothing on this line is read or edited (no knob, region or entry); "
                    "the compiler judges whether it is valid",
                    code="parse",
                )
            )
            if len(issues) >= 20:
                break
        return issues

    def _inside_macro_call(self, node: Node) -> bool:
        # An ERROR spanning several lines that starts at a known macro (e.g. a multi-line OpDef chain).
        first_line = self.line_text(node.start_point[0] + 1).encode()
        return any(tok in first_line for tok in _MACRO_TOKENS)

    # -- queries -------------------------------------------------------------------------

    def functions(self) -> Iterator[tuple[str, Node]]:
        """(name, function_definition) for every function defined in the file, qualified names kept."""
        for n in self.walk():
            if n.type != "function_definition":
                continue
            decl = n.child_by_field_name("declarator")
            while decl is not None and decl.type not in ("function_declarator",):
                decl = decl.child_by_field_name("declarator")
            if decl is None:
                continue
            name_node = decl.child_by_field_name("declarator")
            if name_node is not None:
                yield self.text_of(name_node), n

    def enclosing_namespaces(self, node: Node) -> list[str]:
        names = []
        parent = node.parent
        while parent is not None:
            if parent.type == "namespace_definition":
                name = parent.child_by_field_name("name")
                names.append(self.text_of(name) if name is not None else "")
            parent = parent.parent
        return list(reversed(names))

    def calls(self, node: Node | None = None) -> Iterator[tuple[str, Node]]:
        """(callee text, call_expression) under node; callee is e.g. `context->SetBlockDim`."""
        for n in self.walk(node):
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None:
                    yield self.text_of(fn), n


def last_name(name: str) -> str:
    """The last component of a qualified or member name (`a->b.c`, `ns::f` → `c`, `f`)."""
    return name.replace("->", ".").replace("::", ".").rsplit(".", 1)[-1]
