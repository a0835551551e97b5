"""What a model changed in an operator's C++, judged statically before anything is built.

An LLM searching for speed finds every hole in the judge: destructors or `atexit` handlers that
rewrite the twin's output after the run, work hidden behind the twin's CPU-debug macros, files,
environment and processes, twin internals. The audit refuses a candidate that adds such a construct.

It compares facts, never line positions: per changed file, the set of denied names used, headers
included, platform `#if` conditions, static objects, … against the same file in the baseline (a new
file: against all baseline files). Moving, re-indenting or commenting code is never refused, nor
anything the user's operator already does.

Files are read as the compiler's first phases do: `\\`-newline splices joined first (a name split over
lines is still that name, a directive is one line), then one parse with every `#if` branch in the
tree. Comments and string contents are never read as code. Macros are not expanded: a new `#define`
is judged by its body instead (and `##`, which can build any name, is refused in a new one).
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from pydantic import BaseModel
from tree_sitter import Node

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.includes import resolve_in_files


class AuditRefusal(BaseModel):
    rule: str  # include, io_call, static_object, exit_hook, inline_asm, platform_macro, twin_internal,
    # pragma, attribute, token_paste
    file: str  # operator-relative path, as in the files dict
    line: int  # 1-based, in the candidate's file
    message: str

    def text(self) -> str:
        return f"audit: {self.rule}: {self.file}:{self.line}: {self.message}"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _words(rule: str, words: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), rule)


# Names no operator needs, matched wherever code names them (qualified or not, called or taken).
_DENIED: dict[str, str] = {
    **_words(
        "io_call",
        # files and streams
        "fopen freopen fdopen fclose fread fwrite fprintf vfprintf printf vprintf dprintf puts fputs fputc "
        "putchar putc fflush setvbuf perror scanf fscanf getchar fgets tmpfile tmpnam mkstemp stdin stdout "
        "stderr cout cerr clog cin wcout wcerr fstream ifstream ofstream filebuf FILE filesystem "
        "open openat creat read write close pread pwrite lseek dup dup2 ioctl fcntl opendir mkdir rmdir "
        "chdir unlink unlinkat rename remove symlink truncate ftruncate memfd_create mmap munmap mprotect "
        # environment, processes, signals, dynamic loading
        "getenv secure_getenv setenv unsetenv putenv clearenv environ __environ system popen pclose fork "
        "vfork clone execl execlp execle execv execvp execvpe execve fexecve posix_spawn posix_spawnp "
        "waitpid daemon kill raise signal sigaction sigprocmask ptrace prctl setsid setuid setgid syscall "
        "dlopen dlsym dlclose exit _exit _Exit quick_exit abort setjmp longjmp "
        # network, time, threads, host probes
        "socket connect bind listen accept sendto recvfrom getaddrinfo gethostbyname time clock "
        "gettimeofday clock_gettime localtime gmtime chrono sleep usleep nanosleep alarm __rdtsc "
        "__builtin_ia32_rdtsc thread jthread this_thread async random_device __builtin_cpu_supports "
        "__builtin_cpu_is __builtin_cpu_init",
    ),
    **_words(
        "exit_hook",
        "atexit at_quick_exit on_exit set_terminate set_unexpected set_new_handler __cxa_atexit "
        "__cxa_thread_atexit __cxa_finalize",
    ),
    **_words(
        "twin_internal",
        "ascendopt_twin twin_detail twin_pad_detail twin_log twin_platform __builtin_FILE __builtin_LINE "
        "__builtin_FUNCTION __builtin_COLUMN",
    ),
    **_words("inline_asm", "asm __asm__ __asm"),
    **_words("pragma", "_Pragma __pragma"),
}
_DENIED_PREFIXES = {"pthread_": "io_call", "ascendopt_": "twin_internal", "twin_": "twin_internal"}
_WHY = {
    "io_call": "it reaches files, streams, the environment, processes, time or threads outside the kernel",
    "exit_hook": "it runs code after the kernel, where the twin's results could be rewritten",
    "twin_internal": "it reaches the CPU twin's internals, which a real NPU does not have",
    "inline_asm": "inline assembly runs unchecked and untimed by the twin",
    "pragma": "a pragma changes how the code is compiled, here and not on the NPU",
}
# Macros that tell the twin's CPU build from an NPU build (or one compiler from another).
_PLATFORM = _set(
    "__CCE_KT_TEST__ ASCENDC_CPU_DEBUG __NPU_ARCH__ __CCE_AICORE__ __CCE__ __cplusplus __has_include "
    "__has_include_next __has_builtin __has_attribute __has_cpp_attribute __ELF__ __OPTIMIZE__"
)
_PLATFORM_PREFIXES = (
    "__DAV_",
    "ASCENDOPT_",
    "__CCE",
    "__NPU",
    "__GNUC",
    "__clang",
    "__x86_64",
    "__i386",
    "__amd64",
    "__aarch64",
    "__arm",
    "__linux",
    "__unix",
    "__SANITIZE_",
    "__SSE",
    "__AVX",
    "_WIN",
)
# Attributes that run code at load/exit or change linkage (interposing on the twin's own symbols).
_ATTRIBUTES = _set("constructor destructor init_priority cleanup section alias ifunc weak weakref")
_ACCESS_KEYWORDS = _set("private protected public class struct")
_TRIVIAL_TYPES = _set(
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ssize_t ptrdiff_t intptr_t "
    "uintptr_t half bfloat16_t float16_t GM_ADDR"
)
_TRIVIAL_NODES = ("primitive_type", "sized_type_specifier", "enum_specifier")
_NAME_NODES = ("identifier", "type_identifier", "namespace_identifier", "asm", "__asm__", "__asm")
_LITERALS = ("comment", "string_literal", "raw_string_literal", "char_literal", "system_lib_string")

_TWIN_INCLUDE = Path(__file__).resolve().parent / "cpu_twin" / "include"


@cache
def _twin_headers() -> frozenset[str]:
    """What an operator may include besides its own headers: AscendC's headers, as the twin provides
    them (its private `ascendopt_twin/` folder excepted)."""
    found = (p.relative_to(_TWIN_INCLUDE).as_posix() for p in _TWIN_INCLUDE.rglob("*.h"))
    return frozenset(p for p in found if not p.startswith("ascendopt_twin/"))


@cache
def _twin_members() -> frozenset[str]:
    """Member names of the twin's tensors and queues (`addr_`, `off_`, …): never an operator's to use."""
    names: set[str] = set()
    for header in ("tensor.h", "tpipe.h", "list_tensor.h"):
        names.update(
            re.findall(r"\b([A-Za-z]\w*_)\b", (_TWIN_INCLUDE / "ascendopt_twin" / header).read_text())
        )
    return frozenset(names)


def _denied(name: str) -> str | None:
    if name in _DENIED:
        return _DENIED[name]
    return next((rule for prefix, rule in _DENIED_PREFIXES.items() if name.startswith(prefix)), None)


def _platform(name: str, derived: frozenset[str]) -> bool:
    return name in _PLATFORM or name in derived or name.startswith(_PLATFORM_PREFIXES)


@dataclass(frozen=True)
class _Fact:
    rule: str
    key: str  # what is compared with the baseline
    line: int
    message: str


class _File:
    """One file read as the compiler's first phases see it: splices joined, then parsed."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.splices: list[int] = []  # offsets (in the joined text) where a `\`-newline was removed
        parts = re.split(r"\\\r?\n", text)
        joined = parts[0]
        for part in parts[1:]:
            self.splices.append(len(joined.encode()))
            joined += part
        self.src = CppSource.parse(path, joined, whole=True)
        data = bytearray(self.src.data)
        for n in self.src.walk():  # comments and raw strings blanked (newlines kept) for the directive scan
            if n.type in ("comment", "raw_string_literal"):
                data[n.start_byte : n.end_byte] = re.sub(rb"[^\n]", b" ", data[n.start_byte : n.end_byte])
        self.directives = [
            (no, m.group(1), m.group(2))
            for no, line in enumerate(data.decode(errors="replace").split("\n"))
            if (m := re.match(r"\s*(?:#|%:)\s*(\w*)(.*)", line))
        ]
        self.directive_rows = {no for no, _, _ in self.directives}
        self.fields = frozenset(  # the members this file's classes declare
            self.src.text_of(n)
            for n in self.src.walk()
            if n.type == "field_identifier" and n.parent is not None and n.parent.type == "field_declaration"
        )

    def line(self, row: int, byte: int) -> int:
        """1-based line in the original text of a 0-based row/byte offset of the joined one."""
        return row + 1 + bisect.bisect_right(self.splices, byte)

    def line_of(self, node: Node) -> int:
        return self.line(node.start_point[0], node.start_byte)


def _tokens(text: str) -> list[str]:
    return re.findall(
        r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*|##|%:%:|::|&&|\|\||[^\s\w]', text
    )


def _condition(kind: str, rest: str) -> list[str]:
    """An `#if`-family condition as tokens, spelled one way (`#ifdef X` as `defined ( X )`)."""
    toks = _tokens(rest)
    if kind in ("ifdef", "ifndef", "elifdef", "elifndef"):
        toks = ["defined", "(", *toks[:1], ")"]
        return ["!", *toks] if kind.endswith("ndef") else toks
    out: list[str] = []
    i = 0
    while i < len(toks):  # `defined X` → `defined ( X )`
        if toks[i] == "defined" and i + 1 < len(toks) and toks[i + 1] != "(":
            out += ["defined", "(", toks[i + 1], ")"]
            i += 2
        else:
            out.append(toks[i])
            i += 1
    return out


def _define(rest: str) -> tuple[str, list[str], list[str]]:
    """(name, parameters, body tokens) of a `#define`'s text after the directive name."""
    m = re.match(r"\s*(\w+)(\([^)]*\))?(.*)", rest)
    if m is None:
        return "", [], []
    params = re.findall(r"\w+", m.group(2) or "")
    return m.group(1), params, _tokens(m.group(3))


def derived_platform(files: Mapping[str, str]) -> frozenset[str]:
    """Macros defined under a platform condition, or from platform macros: `#if ON_CPU` after
    `#ifdef __CCE_KT_TEST__` / `#define ON_CPU 1` is a platform condition too."""
    derived: set[str] = set()
    while True:
        before = len(derived)
        for path, text in files.items():
            if not _is_cpp(path):
                continue
            stack: list[bool] = []
            for line in text.replace("\\\n", "").split("\n"):
                m = re.match(r"\s*(?:#|%:)\s*(\w+)(.*)", line)
                if m is None:
                    continue
                kind, rest = m.groups()
                names = [t for t in _condition(kind, rest) if t[0].isalpha() or t[0] == "_"]
                platform = any(_platform(n, frozenset(derived)) for n in names)
                if kind.startswith("if"):
                    stack.append(platform)
                elif kind.startswith("el") and stack:
                    stack[-1] = stack[-1] or platform
                elif kind == "endif" and stack:
                    stack.pop()
                elif kind == "define":
                    name, _, body = _define(rest)
                    if any(stack) or any(_platform(t, frozenset(derived)) for t in body):
                        derived.add(name)
        if len(derived) == before:
            return frozenset(derived)


_CPP_SUFFIXES = frozenset([".c", ".cc", ".cpp", ".cxx", ".asc", ".h", ".hh", ".hpp", ".hxx", ".inc", ".inl"])


def _is_cpp(path: str) -> bool:
    return posixpath.splitext(path)[1] in _CPP_SUFFIXES


def _include(f: _File, line: int, rest: str, files: Mapping[str, str]) -> _Fact | None:
    target = rest.strip()
    m = re.match(r'"([^"]*)"|<([^>]*)>', target)
    if m is None:
        return _Fact("include", target, line, f"adds `#include {target}`, a header named by a macro")
    if m.group(2) is not None:
        if m.group(2).strip() in _twin_headers():
            return None
        return _Fact("include", target, line, f"adds `#include {target}`, a system header no operator needs")
    name = m.group(1)
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(f.path), name))
    if name.startswith("/") or resolved.startswith(".."):
        return _Fact("include", target, line, f"adds `#include {target}`, outside the operator")
    own = resolve_in_files(files, f.path, name)  # as the build finds it (operators/includes.py)
    if own is not None and not _is_cpp(own):  # not audited as C++, so not to be compiled as C++ either
        return _Fact("include", target, line, f"adds `#include {target}`, a file that is not a C/C++ source")
    if own is not None or name in _twin_headers():
        return None
    return _Fact("include", target, line, f"adds `#include {target}`, neither the operator's nor AscendC's")


def _directive_facts(f: _File, files: Mapping[str, str], derived: frozenset[str]) -> Iterator[_Fact]:
    offsets = [0]
    for text_line in f.src.text.split("\n"):
        offsets.append(offsets[-1] + len(text_line.encode()) + 1)
    for row, kind, rest in f.directives:
        line = f.line(row, offsets[row])
        if kind in ("include", "include_next", "import"):
            if (fact := _include(f, line, rest, files)) is not None:
                yield fact
        elif kind in ("if", "elif", "ifdef", "ifndef", "elifdef", "elifndef"):
            cond = " ".join(_condition(kind, rest))
            if any(_platform(t, derived) for t in _condition(kind, rest)):
                yield _Fact(
                    "platform_macro",
                    cond,
                    line,
                    f"adds a condition on a platform macro (`{cond}`), "
                    "which can tell the twin's CPU build from an NPU build",
                )
        elif kind in ("define", "undef"):
            name, params, body = _define(rest)
            if _platform(name, frozenset()):  # a macro derived from one may be defined: its #if is judged
                yield _Fact(
                    "platform_macro", f"#{kind} {name}", line, f"adds `#{kind} {name}`, a platform macro"
                )
            if name in _ACCESS_KEYWORDS:
                yield _Fact("twin_internal", f"#{kind} {name}", line, f"redefines the keyword `{name}`")
            yield from _body_facts(name, params, body, line, derived)
        elif kind == "line":  # a `#line` could pass a new finding off as one at a baseline file:line
            text = "line " + " ".join(_tokens(rest))
            yield _Fact("pragma", text, line, f"adds `#{text}`, which renames where the code is")
        elif kind == "pragma" and _tokens(rest)[:1] != ["once"]:
            text = " ".join(_tokens(rest))
            yield _Fact("pragma", text, line, f"adds `#pragma {text}`; {_WHY['pragma']}")


def _body_facts(
    name: str, params: list[str], body: list[str], line: int, derived: frozenset[str]
) -> Iterator[_Fact]:
    """A new macro whose body would be refused where it is used (macros are not expanded here)."""
    whole = f"#define {name} " + " ".join(body)
    for tok in body:
        if tok in params:
            continue
        if rule := _denied(tok):
            yield _Fact(rule, tok, line, f"adds a macro `{name}` naming `{tok}`; {_WHY[rule]}")
        elif _platform(tok, derived):
            yield _Fact(
                "platform_macro", tok, line, f"adds a macro `{name}` naming the platform macro `{tok}`"
            )
        elif tok in ("static", "thread_local"):
            yield _Fact("static_object", whole, line, f"adds a macro `{name}` declaring a `{tok}` object")
        elif tok == "##" or tok == "%:%:":
            yield _Fact(
                "token_paste", whole, line, f"adds a macro `{name}` that pastes tokens into new names"
            )
    yield from _attribute_facts(" ".join(body), line)


def _attribute_facts(text: str, line: int) -> Iterator[_Fact]:
    for m in re.finditer(r"__attribute__\s*\(|\[\s*\[|__declspec\s*\(", text):
        depth, i = 0, m.start()
        while i < len(text):
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[i], 0)
            i += 1
            if depth == 0 and i > m.end():
                break
        for word in re.findall(r"\w+", text[m.end() : i]):
            if word.strip("_") in _ATTRIBUTES:
                yield _Fact(
                    "attribute",
                    word.strip("_"),
                    line,
                    f"adds the attribute `{word.strip('_')}`, code or linkage the kernel's run does not own",
                )


def _local_declarators(scope: Node, name: str, src: CppSource) -> bool:
    """Whether a variable or parameter named `name` is declared in `scope` (a local `time` is no `time()`)."""
    return any(
        n.type == "identifier" and src.text_of(n) == name and _is_variable_declarator(n)
        for n in src.walk(scope)
    )


def _is_variable_declarator(node: Node) -> bool:
    parent = node.parent
    if parent is None or parent.type == "function_declarator":
        return False
    return any(c.id == node.id for c in parent.children_by_field_name("declarator"))


def _code_facts(f: _File, derived: frozenset[str], fields: frozenset[str]) -> Iterator[_Fact]:
    src = f.src
    for n in src.walk():
        if n.type in _LITERALS or n.start_point[0] in f.directive_rows:
            continue
        if n.type in ("attribute_specifier", "attribute_declaration", "ms_declspec_modifier"):
            yield from _attribute_facts(src.text_of(n), f.line_of(n))
        if n.type == "field_expression":
            yield from _field_facts(f, n, fields)
        if n.child_count or n.type not in _NAME_NODES:
            continue
        name = src.text_of(n)
        rule = _denied(name)
        if rule is None and _platform(name, derived):
            yield _Fact("platform_macro", name, f.line_of(n), f"adds code naming the platform macro `{name}`")
        if rule is None or _is_variable_declarator(n):
            continue
        qualified = n.parent is not None and n.parent.type == "qualified_identifier"
        target = n.parent if qualified and n.parent is not None else n
        called = (
            target.parent is not None
            and target.parent.type == "call_expression"
            and (target.parent.child_by_field_name("function") == target)
        )
        scope = next(
            (a for a in _ancestors(n) if a.type in ("function_definition", "lambda_expression")), None
        )
        if not (qualified or called) and scope is not None and _local_declarators(scope, name, src):
            continue
        yield _Fact(rule, name, f.line_of(n), f"adds `{name}`; {_WHY[rule]}")
    yield from _static_facts(f)


def _ancestors(node: Node) -> Iterator[Node]:
    while node.parent is not None:
        node = node.parent
        yield node


def _field_facts(f: _File, n: Node, fields: frozenset[str]) -> Iterator[_Fact]:
    field, receiver = n.child_by_field_name("field"), n.child_by_field_name("argument")
    if field is None or receiver is None:
        return
    name = f.src.text_of(field)
    line = f.line_of(field)
    if name == "Ptr" and n.parent is not None and n.parent.type == "call_expression":
        yield _Fact(
            "twin_internal", "Ptr()", line, "adds a `Ptr()` call, the twin's host pointer into a LocalTensor"
        )
    elif name.endswith("_") and (name not in fields or (name in _twin_members() and receiver.type != "this")):
        yield _Fact(
            "twin_internal", name, line, f"adds a use of the member `{name}`, not one of the operator's"
        )


def _static_facts(f: _File) -> Iterator[_Fact]:
    """Variables with static or thread storage whose type may run a constructor or destructor."""
    src = f.src
    for n in src.walk():
        if n.type not in ("declaration", "field_declaration"):
            continue
        specs = {
            src.text_of(c) for c in n.children if c.type in ("storage_class_specifier", "type_qualifier")
        }
        declarators = [d for d in n.children_by_field_name("declarator") if not _is_function(d)]
        if not declarators or "extern" in specs:
            continue
        static = bool(specs & {"static", "thread_local"}) or (n.type == "declaration" and _namespace_scope(n))
        if not static or ("constexpr" in specs and "thread_local" not in specs):
            continue
        type_node = n.child_by_field_name("type")
        if "thread_local" not in specs and all(_trivial(d, type_node, src) for d in declarators):
            continue
        type_text = " ".join(src.text_of(type_node).split()) if type_node is not None else "?"
        names = ", ".join(" ".join(src.text_of(_innermost(d)).split()) for d in declarators)
        yield _Fact(
            "static_object",
            f"{type_text} {names}",
            f.line_of(n),
            f"adds `{type_text} {names}` with static storage, whose constructor or destructor runs "
            "outside the kernel",
        )


def _innermost(d: Node) -> Node:
    while (inner := d.child_by_field_name("declarator")) is not None:
        d = inner
    return d


def _is_function(d: Node) -> bool:
    """A function's declarator (not a function pointer's: `(*fp)(…)` has a parenthesized name)."""
    while d.type in ("init_declarator", "reference_declarator", "attributed_declarator"):
        d = d.child_by_field_name("declarator") or d.named_children[0]
    inner = d.child_by_field_name("declarator")
    return d.type == "function_declarator" and (inner is None or inner.type != "parenthesized_declarator")


def _trivial(d: Node, type_node: Node | None, src: CppSource) -> bool:
    while d.type in ("init_declarator", "array_declarator", "reference_declarator", "attributed_declarator"):
        inner = d.child_by_field_name("declarator")
        if inner is None:
            break
        d = inner
    if d.type in ("pointer_declarator", "function_declarator"):
        return True  # a pointer (to data or a function) has no constructor
    if type_node is None:
        return False
    if type_node.type in _TRIVIAL_NODES:
        return True
    last = src.text_of(type_node).split("::")[-1].strip()
    return type_node.type in ("type_identifier", "qualified_identifier") and last in _TRIVIAL_TYPES


def _namespace_scope(n: Node) -> bool:
    parent = n.parent
    while parent is not None and parent.type.startswith("preproc_"):
        parent = parent.parent
    if parent is None:
        return False
    if parent.type == "declaration_list":
        return parent.parent is not None and parent.parent.type in (
            "namespace_definition",
            "linkage_specification",
        )
    return parent.type in ("translation_unit", "linkage_specification")


@lru_cache(maxsize=512)  # both sides share most files; a search audits many candidates
def _file(path: str, text: str) -> _File:
    return _File(path, text)


class _Side:
    """One side of the change (baseline or candidate): what its files define, shared by its facts."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = {p: t for p, t in files.items() if _is_cpp(p)}
        self.derived = derived_platform(self.files)
        self.fields = frozenset().union(*(_file(p, t).fields for p, t in self.files.items()))

    def facts(self, path: str) -> list[_Fact]:
        f = _file(path, self.files[path])
        return [*_directive_facts(f, self.files, self.derived), *_code_facts(f, self.derived, self.fields)]


@lru_cache(maxsize=4)  # an episode audits every candidate against the same baseline
def _side(files: tuple[tuple[str, str], ...]) -> _Side:
    return _Side(dict(files))


def audit_change(baseline: Mapping[str, str], candidate: Mapping[str, str]) -> list[AuditRefusal]:
    """What each changed or new C/C++ file of `candidate` adds that its baseline did not have, refused."""
    changed = sorted(p for p, t in candidate.items() if _is_cpp(p) and baseline.get(p) != t)
    if not changed:
        return []
    base, cand = _side(tuple(sorted(baseline.items()))), _Side(candidate)
    union: set[tuple[str, str]] | None = None
    refusals: list[AuditRefusal] = []
    for path in changed:
        if path in base.files:
            allowed = {(x.rule, x.key) for x in base.facts(path)}
        else:
            if union is None:
                union = {(x.rule, x.key) for p in base.files for x in base.facts(p)}
            allowed = union
        seen: set[tuple[str, str]] = set()
        for x in sorted(cand.facts(path), key=lambda x: x.line):
            if (x.rule, x.key) not in allowed | seen:
                seen.add((x.rule, x.key))
                refusals.append(AuditRefusal(rule=x.rule, file=path, line=x.line, message=x.message))
    return refusals
