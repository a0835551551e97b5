"""Which conditional-compilation branches a build for one SoC compiles.

CANN keeps per-architecture values behind `#if`: `#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003`
… `#else` … `#endif`. A constant is a knob only where the build compiles it, so the knob space
reads the branches as the SoC's compiler would, with the macros it defines. What we cannot
evaluate (a macro from an include we do not follow) counts as unknown, not as taken.
"""

from __future__ import annotations

import ast
import re

from ascendopt.operators.soc import SOCS

# The architecture macros' names (operators/soc.py's table): unset ones read as 0 in `#if`, as the
# SoC's compiler reads them, not as unknown.
_ARCH_NAMES = frozenset(name for row in SOCS for name in row.arch)


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_DEFINED = re.compile(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)")
_CMP = {ast.Eq: int.__eq__, ast.NotEq: int.__ne__, ast.Lt: int.__lt__, ast.LtE: int.__le__}
_CMP |= {ast.Gt: int.__gt__, ast.GtE: int.__ge__}


def condition(expr: str, macros: dict[str, int]) -> bool | None:
    """An `#if` expression's truth under `macros`, or None when it depends on something else (a macro
    from an include we do not follow) or does not read. `defined(X)` is false for X not in `macros`."""
    text = re.sub(r"/\*.*?\*/|//.*$", "", expr).strip()
    text = _DEFINED.sub(lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", text)
    text = re.sub(r"(\d+)[uUlL]+\b", r"\1", text)
    text = text.replace("&&", " and ").replace("||", " or ").replace("!=", " <> ")
    text = re.sub(r"!(?!=)", " not ", text).replace(" <> ", " != ")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    value = _eval(tree.body, macros)
    return None if value is None else bool(value)


def _eval(node: ast.expr, macros: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.Name):  # an architecture macro the SoC leaves undefined is 0; others unknown
        return macros.get(node.id, 0 if node.id in _ARCH_NAMES else None)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _eval(node.operand, macros)
        return None if v is None else int(not v)
    if isinstance(node, ast.BoolOp):
        vals = [_eval(v, macros) for v in node.values]
        if any(v is None for v in vals):
            return None
        return int(all(vals) if isinstance(node.op, ast.And) else any(vals))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, macros)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, macros)
            if left is None or right is None or type(op) not in _CMP:
                return None
            if not _CMP[type(op)](left, right):
                return 0
            left = right
        return 1
    return None


def inactive_lines(text: str, macros: dict[str, int], unknown_inactive: bool = True) -> set[int]:
    """1-based lines a build with `macros` does not compile, or cannot be known to (an unreadable
    condition's branches are all left out; with `unknown_inactive=False` they all count as compiled,
    for a scan that must not miss what a build might compile). Directive lines count as inactive."""
    out: set[int] = set()
    # per open #if: (enclosing active?, a branch was taken already (None: unknown), this branch active?)
    stack: list[tuple[bool, bool | None, bool]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line_no, directive = i + 1, lines[i]
        while directive.endswith("\\") and i + 1 < len(lines):  # continuation lines
            i += 1
            out.add(i + 1)
            directive = directive[:-1] + " " + lines[i]
        i += 1
        here = not stack or stack[-1][2]
        m = _DIRECTIVE.match(directive)
        if m is None:
            if not here:
                out.add(line_no)
            continue
        out.add(line_no)
        kind, rest = m.group(1), m.group(2)
        if kind in ("ifdef", "ifndef"):
            name = rest.split("//")[0].split("/*")[0].strip()
            cond: bool | None = (name in macros) == (kind == "ifdef")  # an include guard: taken
            if name not in _ARCH_NAMES and name not in macros and not unknown_inactive:
                cond = None  # a macro of the code's own (`#ifdef SOME_OPTION`): not known here
            stack.append((here, cond, here and (cond is True or (cond is None and not unknown_inactive))))
        elif kind == "if":
            cond = condition(rest, macros)
            stack.append((here, cond, here and (cond is True or (cond is None and not unknown_inactive))))
        elif kind in ("elif", "else") and stack:
            outer, taken, _ = stack[-1]
            cond = True if kind == "else" else condition(rest, macros)
            if taken is None or cond is None:
                stack[-1] = (outer, None, outer and not unknown_inactive)
            else:
                stack[-1] = (outer, taken or cond, outer and not taken and cond)
        elif kind == "endif" and stack:
            stack.pop()
    return out
