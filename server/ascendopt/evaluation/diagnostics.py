"""g++ diagnostics mapped back to the user's files and lines.

g++ runs in the candidate's source folder with relative paths, so a user file
appears as `op_kernel/x.cpp`; an error inside the twin's headers is pinned to
the user line that instantiated it ("required from here").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ascendopt.operators.issues import Issue

_DIAG = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s+(?P<kind>fatal error|error|warning):\s?(?P<msg>.*)$"
)
_CONTEXT = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s+(?:required from|  required from|in )"
)
# `In file included from op_kernel/k.cpp:11:` (and the `                 from x.cpp:3,` lines under it):
# an error in the included header (an `#error`) belongs on the user's #include line.
_INCLUDED = re.compile(
    r"^(?:In file included from|\s+from) (?P<file>[^:\n]+):(?P<line>\d+)(?::(?P<col>\d+))?[:,]$"
)
_MISSING = re.compile(
    r"'(?:AscendC::)?(?P<name>[A-Za-z_]\w*)' "
    r"(?:is not a member of '(?P<ns>[\w:]+)'|was not declared in this scope)"
)


def map_diagnostics(
    stderr: str, user_files: set[str], fallback: Issue, twin_api: Sequence[str] | None = None
) -> list[Issue]:
    """Errors (and warnings) as Issues on user files; anything unplaceable lands on `fallback`.
    `twin_api`: when compiling against the CPU twin's headers, the AscendC names it supports, so
    a missing one is explained (the twin's build passes its registry; CANN's build passes none)."""
    issues: list[Issue] = []
    context: tuple[str, int, int] | None = None
    for raw in stderr.splitlines():
        m = _DIAG.match(raw)
        if m is None:
            c = _CONTEXT.match(raw) or _INCLUDED.match(raw)
            if c is not None and c.group("file") in user_files:
                context = (c.group("file"), int(c.group("line")), int(c.group("col") or 1))
            elif raw and not raw.startswith(" ") and ": In " in raw:
                context = None  # a new "In function …" block starts
            continue
        severity = "warning" if m.group("kind") == "warning" else "error"
        if severity == "warning":
            continue  # warnings from our own headers or harmless ones would drown the errors
        file, line, col = m.group("file"), int(m.group("line")), int(m.group("col"))
        if file not in user_files:
            if context is not None:
                file, line, col = context
            else:
                file, line, col = fallback.file, fallback.line, fallback.column
        issues.append(
            Issue(
                file=file,
                line=line,
                column=col,
                severity="error",
                message=_explain(m.group("msg"), twin_api),
                code="compile",
            )
        )
        context = None
    if not issues and stderr.strip():
        tail = _linker_problems(stderr) or stderr.strip().splitlines()[-1][:300]
        issues.append(fallback.model_copy(update={"message": f"{fallback.message}: {tail}"}))
    return _dedupe(issues)


_LINKER = re.compile(r"(undefined reference to|multiple definition of) [`'‘](?P<sym>[^'’]+)['’]")


def _linker_problems(stderr: str) -> str:
    """The linker's own reasons (the last line is only "ld returned 1 exit status"): each symbol once."""
    found: dict[str, str] = {}
    for m in _LINKER.finditer(stderr):
        found.setdefault(m.group("sym"), m.group(1))
    shown = [f"{why} `{sym}`" for sym, why in list(found.items())[:4]]
    more = f" (and {len(found) - 4} more)" if len(found) > 4 else ""
    return "; ".join(shown) + more


def _explain(message: str, twin_api: Sequence[str] | None) -> str:
    """A missing AscendC name, when compiling against the twin's headers, names what the twin supports."""
    m = _MISSING.search(message)
    in_ascendc = m is not None and (m.group("ns") in (None, "AscendC") or "AscendC" in message)
    if twin_api is not None and m and m.group("name")[0].isupper() and in_ascendc:
        return (
            f"`{m.group('name')}` is not supported by the CPU twin; supported: {', '.join(twin_api)}; "
            "use an Ascend machine over SSH for this operator"
        )
    return message


def _dedupe(issues: list[Issue]) -> list[Issue]:
    seen, out = set(), []
    for i in issues:
        key = (i.file, i.line, i.message)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out[:50]
