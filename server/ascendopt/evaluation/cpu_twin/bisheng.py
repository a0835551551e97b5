"""Kernel source the bisheng compiler accepts and g++ does not, rewritten for the twin's build.

Two forms, both in Catlass-style cube kernels (NPUKernelBench level 3):

- the bracketed function attribute after `__forceinline__` (`__forceinline__ [aicore]`,
  `[host, aicore]`): no macro can take it away, so its brackets are blanked;
- a member function template's explicit specialization inside its class
  (`template <> void operator()<AscendC::AIC>(…)`, by core type), which g++ rejects
  ("explicit specialization in non-namespace scope"): the specialization for the core the
  twin builds for becomes a plain member (overload resolution prefers it to the template),
  the other core's gets a name of its own (never called, never instantiated).

A third is a difference of standards: the twin builds Catlass kernels as C++20 (for their constexpr
constructors that fill members in the body), where a class with a user-declared constructor is no
aggregate; bisheng compiles them as C++17, where one whose constructors are all defaulted still is
(`struct F { F() = default; T *ptr; uint32_t id; };` then `f = {this, id}`). A class whose only
constructor is `Name() = default;` has that declaration turned into a member function's (never
defined or called): the implicit default constructor is the same one, and the class an aggregate
as in C++17.

Every rewrite keeps each line's number (only characters inside a line change), so g++'s
diagnostics name the user's file and line. The rewritten text goes into the staged copy
the build reads, never into the user's folder.
"""

from __future__ import annotations

import re

from ascendopt.operators.cpp_source import COMMENT

_ATTRIBUTE = re.compile(r"(__forceinline__\s*)(\[\s*(?:host|aicore)(?:\s*,\s*(?:host|aicore))*\s*\])")
_SPECIALISATION = re.compile(
    r"template\s*<\s*>(?P<head>(?:\s|__forceinline__|__aicore__|inline|\[[^\]\n]*\])*[\w:<>\s*&]*?)"
    r"(?P<name>operator\s*\(\s*\)|\b\w+)\s*(?P<args><\s*(?:AscendC\s*::\s*)?(?P<core>AIC|AIV)\s*>)\s*\("
)
_TEMPLATE_EMPTY = re.compile(r"template\s*<\s*>")
# An explicit specialisation of a member class template for a fundamental type (`template <> struct
# LayoutHelper<void> {`), which g++ rejects in class scope as it does the function ones: it becomes the
# partial specialisation constrained to that type (C++20, as the twin builds Catlass kernels), chosen alike.
_CLASS_SPECIALISATION = re.compile(
    r"template\s*<\s*>(?P<head>\s*(?:struct|class)\s+\w+\s*)<\s*(?P<type>void|bool|char|short|int|long|float|double|"
    r"half|bfloat16_t|u?int(?:8|16|32|64)_t)\s*>(?=\s*\{)"
)
# A call naming the core's specialisation explicitly (`op.template operator()<g_coreType>(params)`): with the
# specialisation now a plain member, the call drops the template argument list and reaches that member.
_EXPLICIT_CORE_CALL = re.compile(
    r"\.\s*template\s+operator\s*\(\s*\)\s*<\s*(?:AscendC\s*::\s*)?g_coreType\s*>\s*\("
)
_CLASS_HEAD = re.compile(r"\b(?:class|struct|union)\b[^;(){}]*$")
# A kernel the twin builds for the cube core: it issues Mmad and never hands work across to a vector
# core (CANN's build makes such a kernel AIC-only; an AIV specialization of it is empty there).
_CUBE_WORK = re.compile(r"\bMmad\s*\(|KERNEL_TYPE_AIC_ONLY")
_CROSS_CORE = re.compile(r"\bCrossCore(?:Set|Wait)Flag\b|KERNEL_TYPE_MIX_")
# The high-level Matmul API (REGIST_MATMUL_OBJ): CANN builds such a kernel for the mixed launch, its vector
# cores asking the cube core for each product, unless the kernel says it runs on the cube core alone.
_MATMUL_API = re.compile(r"\bREGIST_MATMUL_OBJ\b")
_AIC_ONLY = re.compile(r"\bKERNEL_TYPE_AIC_ONLY\b")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _code(text: str) -> str:
    """`text` with comments blanked (same offsets)."""
    return COMMENT.sub(lambda m: _blank(m.group(0)), text)


def mixed_kernel(text: str) -> bool:
    """The kernel runs on both cores (CANN's MIX launch, 1 AIC + 2 AIV per block): it does cube work and hands
    tiles between the cube and the vector cores, or uses the high-level Matmul API on the vector cores."""
    code = _code(text)
    if _MATMUL_API.search(code) and not _AIC_ONLY.search(code):
        return True
    return bool(_CUBE_WORK.search(code)) and bool(_CROSS_CORE.search(code))


def cube_kernel(text: str) -> bool:
    """The kernel runs on the cube core only (AIC): it does cube work and no cross-core hand-over."""
    code = _code(text)
    if _MATMUL_API.search(code):
        return bool(_AIC_ONLY.search(code))
    return bool(_CUBE_WORK.search(code)) and not _CROSS_CORE.search(code)


def _in_class(code: str, at: int) -> bool:
    """The offset `at` lies directly inside a class body (its innermost open brace opened a class)."""
    stack: list[bool] = []
    last = 0
    for m in re.finditer(r"[{};]", code[:at]):
        if m.group(0) == "{":
            stack.append(bool(_CLASS_HEAD.search(code[last : m.start()])))
        elif m.group(0) == "}" and stack:
            stack.pop()
        last = m.end()
    return bool(stack) and stack[-1]


_DEFAULTED = re.compile(r"\b(?P<name>\w+)\s*\(\s*\)\s*=\s*default\s*;")


def _destructor(code: str, at: int) -> bool:
    """The name at `at` follows a `~`: a destructor's."""
    return code[:at].rstrip().endswith("~")


def _statement_start(code: str, at: int) -> int:
    """Where the declaration that `at` lies in starts (after the last `;`, `{` or `}` before it)."""
    return max(code.rfind(";", 0, at), code.rfind("}", 0, at), code.rfind("{", 0, at)) + 1


def _enclosing(code: str, at: int) -> tuple[str, int] | None:
    """The head (text before its brace) and the opening brace's offset of the innermost brace open at `at`."""
    depth = 0
    for i in range(at - 1, -1, -1):
        c = code[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                return code[_statement_start(code, i) : i], i
            depth -= 1
    return None


def _members_at_depth_one(code: str, brace: int) -> str:
    """The class body opened at `brace` with every nested brace's contents blanked (its own members)."""
    out, depth = [], 0
    for c in code[brace + 1 :]:
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                break
            depth -= 1
        out.append(c if depth == 0 else " ")
    return "".join(out)


def _cxx17_aggregates(code: str) -> list[tuple[int, int, str]]:
    """Edits that turn `Name() = default;` into a member function's declaration where it is its class's
    only constructor (no other `Name(` among the class's own members, none `explicit`)."""
    edits = []
    for m in _DEFAULTED.finditer(code):
        name = m.group("name")
        if _destructor(code, m.start()):
            continue  # C++20 aggregates may have a user-declared destructor
        found = _enclosing(code, m.start())
        if found is None or not re.search(rf"\b(?:class|struct)\s+{name}\b", found[0]):
            continue
        own = _members_at_depth_one(code, found[1])
        ctors = [c for c in re.finditer(rf"(?<!\w){name}\s*\(", own) if not _destructor(own, c.start())]
        if len(ctors) == 1 and "explicit" not in code[_statement_start(code, m.start()) : m.start()]:
            edits.append((m.start(), m.end(), "void ascendopt_cxx17_aggregate();"))
    return edits


def rewrite(text: str, cube: bool) -> str:
    """`text` as g++ compiles it for the twin (cube: built for the AIC core); the same text when nothing
    bisheng-only is in it."""
    if "[" not in text or ("aicore" not in text and "template" not in text):
        return text
    out = _ATTRIBUTE.sub(lambda m: m.group(1) + _blank(m.group(2)), text)
    code = _code(out)
    own = "AIC" if cube else "AIV"
    edits: list[tuple[int, int, str]] = []
    for m in _SPECIALISATION.finditer(code):
        if not _in_class(code, m.start()):
            continue
        edits.append((m.start(), _TEMPLATE_EMPTY.match(code, m.start()).end(), ""))  # type: ignore[union-attr]
        if m.group("core") == own:
            edits.append((m.start("args"), m.end("args"), ""))
        else:
            name = (
                "ascendopt_core_" + m.group("core")
                if m.group("name").startswith("operator")
                else m.group("name") + "_ascendopt_" + m.group("core")
            )
            edits.append((m.start("name"), m.end("args"), name))
    for m in _CLASS_SPECIALISATION.finditer(code):
        if _in_class(code, m.start()):
            head = " ".join(m.group("head").split())
            edits.append(
                (
                    m.start(),
                    m.end(),
                    f"template <class ascendopt_T> requires std::is_same_v<ascendopt_T, {m.group('type')}>"
                    f" {head}<ascendopt_T>",
                )
            )
    if edits:
        for m in _EXPLICIT_CORE_CALL.finditer(code):
            edits.append((m.start(), m.end(), ".operator()("))
    edits += _cxx17_aggregates(code)
    for start, end, new in sorted(edits, reverse=True):
        old = out[start:end]
        out = out[:start] + (new + "\n" * old.count("\n") if new else _blank(old)) + out[end:]
    return out
