"""Mechanical fixes for what the sanitizer finds, as edits on the kernel's text: a misaligned
`DataCopy` becomes `DataCopyPad` with the byte length, a UB overflow halves the tile constant until
the buffers fit, a `DeQue` with no `EnQue` gets the missing `EnQue` where the tensor was allocated.
Each fix is offered only when the text says unambiguously what to write; otherwise none is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascendopt.operators.dtypes import DTYPES

# The AscendC API page a finding is about (CANN 8.5 documentation, English).
_DOCS = "https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/"
API_DOCS = {
    "DataCopy": _DOCS + "atlasascendc_api_07_0103.html",
    "DataCopyPad": _DOCS + "atlasascendc_api_07_0265.html",
    "InitBuffer": _DOCS + "atlasascendc_api_07_0110.html",
    "alignment": _DOCS + "atlasascendc_api_07_0004.html",
}
DOC_FOR_FINDING = {
    "twin.misaligned_copy": API_DOCS["DataCopyPad"],
    "twin.misaligned_operand": API_DOCS["alignment"],
    "twin.ub_overflow": API_DOCS["InitBuffer"],
    "twin.alloc_beyond_depth": API_DOCS["InitBuffer"],
    "twin.queue_not_initialized": API_DOCS["InitBuffer"],
    "twin.copy_param_wrapped": API_DOCS["DataCopyPad"],
}


@dataclass(frozen=True)
class Edit:
    """Replace 0-based `line`, columns [start, end) (Python str indices), with `text`."""

    line: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]


def fixes_for(code: str, message: str, line: int, lines: list[str]) -> list[Fix]:
    """Fixes for one finding (`code` as on the diagnostic, `line` 0-based) on the current text."""
    if not 0 <= line < len(lines):
        return []
    if code == "twin.misaligned_copy":
        return _datacopy_pad(message, line, lines)
    if code == "twin.ub_overflow":
        return _smaller_tile(message, line, lines)
    if code == "twin.deque_empty":
        return _missing_enque(line, lines)
    return []


def _split_args(text: str) -> list[str] | None:
    """Top-level comma-separated arguments of a call's parenthesised text (without the parens)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth != 0:
        return None
    out.append(cur.strip())
    return out


_CALL = re.compile(r"(?P<ns>(?:AscendC::)?)DataCopy\((?P<args>.*)\)\s*;")
_DIRECTION = re.compile(r"DataCopy (GM->UB|UB->GM) length \d+ x (\w+)")


def _element_type(var: str, lines: list[str], dtype: str) -> str:
    """The element type of LocalTensor `var` as the code declares it, else the finding's dtype."""
    decl = re.compile(r"LocalTensor<\s*([\w:]+)\s*>\s+" + re.escape(var) + r"\b")
    for text in lines:
        if m := decl.search(text):
            return m.group(1)
    return DTYPES[dtype].ctype if dtype in DTYPES else "T"


def _datacopy_pad(message: str, line: int, lines: list[str]) -> list[Fix]:
    direction = _DIRECTION.search(message)
    call = _CALL.search(lines[line])
    if direction is None or call is None:
        return []  # a UB->UB copy, or an address problem: padding the length does not fix it
    args = _split_args(call.group("args"))
    if args is None or len(args) != 3 or not args[2]:
        return []  # the DataCopyParams form: its strides need a person
    dst, src, count = args
    ns = call.group("ns")
    local = dst if direction.group(1) == "GM->UB" else src
    elem = _element_type(local.split("[", 1)[0].strip(), lines, direction.group(2))
    n = count if re.fullmatch(r"[\w.]+", count) else f"({count})"
    params = f"{ns}DataCopyExtParams{{1, static_cast<uint32_t>({n} * sizeof({elem})), 0, 0, 0}}"
    if direction.group(1) == "GM->UB":
        new = f"{ns}DataCopyPad({dst}, {src}, {params}, {ns}DataCopyPadExtParams<{elem}>{{false, 0, 0, 0}});"
    else:
        new = f"{ns}DataCopyPad({dst}, {src}, {params});"
    edit = Edit(line, call.start(), call.end(), new)
    return [Fix(f"Use DataCopyPad ({count} × sizeof({elem}) bytes, no 32 B multiple needed)", (edit,))]


_OVERFLOW = re.compile(r"buffers now need (\d+) B .*the UB has (\d+) B")
_CONSTANT = r"(?:constexpr\s+[\w:]+\s+{name}\s*=\s*|#define\s+{name}\s+)(\d+)"


def _smaller_tile(message: str, line: int, lines: list[str]) -> list[Fix]:
    m = _OVERFLOW.search(message)
    call = re.search(r"InitBuffer\((.*)\)\s*;", lines[line])
    if m is None or call is None:
        return []
    need, ub = int(m.group(1)), int(m.group(2))
    args = _split_args(call.group(1)) or []
    names = re.findall(r"\b[A-Z][A-Z0-9_]*\b", args[-1] if args else "")
    for name in names:
        pattern = re.compile(_CONSTANT.format(name=re.escape(name)))
        for i, text in enumerate(lines):
            if (d := pattern.search(text)) is None:
                continue
            value = int(d.group(1))
            tile = value
            # The buffers grow with the tile: halve it (keeping it a divisor of what it divided)
            # until the bytes seen so far fit.
            while tile > 1 and need * tile / value > ub:
                tile //= 2
            if tile == value:
                return []
            edit = Edit(i, d.start(1), d.end(1), str(tile))
            fits = need * tile // value
            return [
                Fix(
                    f"Set {name} to {tile} (buffers {need} B → about {fits} B; the UB has {ub} B)",
                    (edit,),
                )
            ]
    return []  # the tile comes from the tiling data: the host program (or its knob) sets it


def _missing_enque(line: int, lines: list[str]) -> list[Fix]:
    deq = re.search(r"(\w+)\s*\.\s*DeQue\b", lines[line])
    if deq is None:
        return []
    queue = deq.group(1)
    if any(re.search(rf"\b{re.escape(queue)}\s*\.\s*EnQue\b", t) for t in lines):
        return []  # it is enqueued somewhere: the order, not a missing call, is the problem
    alloc = re.compile(rf"(\w+)\s*=\s*{re.escape(queue)}\s*\.\s*AllocTensor\b")
    for i, text in enumerate(lines):
        if (a := alloc.search(text)) is None:
            continue
        end = _end_of_block(lines, i)
        if end is None:
            return []
        indent = text[: len(text) - len(text.lstrip())]
        var = a.group(1)
        edit = Edit(end, 0, 0, f"{indent}{queue}.EnQue({var});\n")
        return [Fix(f"Add {queue}.EnQue({var}) after the tensor is filled", (edit,))]
    return []


def _end_of_block(lines: list[str], start: int) -> int | None:
    """The line holding the `}` that closes the block line `start` is in."""
    depth = 0
    for i in range(start, len(lines)):
        for ch in lines[i]:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth < 0:
                    return i
    return None
