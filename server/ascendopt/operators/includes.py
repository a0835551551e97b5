"""Quoted includes followed as g++ follows them: the one include closure of the operators package.

Three readers walk an operator's `#include "…"` graph, and all walk it with `closure` here:

* the open-repo closure (`repository.include_closure`): every file the build may read outside the
  operator folder, carried with the operator. `macros=None`: every `#include` line counts, inside any
  `#if` branch too (a header a build might read is carried, never missed); folders: the including
  file's, then `OPERATOR_FOLDERS`, then the repository's include folders; files outside the
  repository (toolchain headers) are not followed; headers found nowhere are reported.
* knob inference (`knobs.knob_headers`): the operator's own headers holding its constants.
  `macros` = the SoC's architecture macros on the kernel side, none on the host side, and
  `unknown_inactive=True`: an `#include` under a condition that cannot be read is not followed (a
  constant counts only where the build is known to compile it); folders: the including file's, then
  `OPERATOR_FOLDERS`; only headers inside the operator folder are followed.
* the raw-GM scan (`cpu_twin/untimed.compiled_kernel_files`): a candidate's files in memory (keys
  are paths relative to the operator root, `resolve_in_files`). `macros` = the SoC's, and
  `unknown_inactive=False`: a branch whose condition cannot be read counts as compiled (the scan
  must not miss what a build might see); folders: the including file's, then `OPERATOR_FOLDERS`.

The audit of model-written C++ (`evaluation/audit.py`) resolves a single include with
`resolve_in_files`, in the same folder order.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from ascendopt.operators.preproc import inactive_lines

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
# Where an operator's build looks after the including file's folder (relative to the operator root):
# msOpGen and CANN put op_kernel/, op_host/ and the operator root on the include path.
OPERATOR_FOLDERS = ("op_kernel", "op_host", ".")

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Include(Generic[K]):
    """One `#include "name"` read in `source`, at `line`; `target`: where it lands (None: nowhere)."""

    source: K
    name: str
    line: int
    target: K | None


@dataclass
class Closure(Generic[K]):
    texts: dict[K, str] = field(default_factory=dict)  # every file read, in the order read
    includes: list[Include[K]] = field(default_factory=list)  # every include counted, in that order


def quoted_includes(
    text: str, macros: Mapping[str, int] | None = None, unknown_inactive: bool = True
) -> list[tuple[str, int]]:
    """(name, line) of each `#include "name"` in `text` a build with `macros` compiles (`macros`
    None: every one; `unknown_inactive` as in `preproc.inactive_lines`)."""
    off = inactive_lines(text, dict(macros), unknown_inactive) if macros is not None else set()
    found = ((m.group(1), text.count("\n", 0, m.start()) + 1) for m in INCLUDE.finditer(text))
    return [(name, line) for name, line in found if line not in off]


def closure(
    starts: Iterable[K],
    read: Callable[[K], str | None],
    resolve: Callable[[K, str], K | None],
    *,
    macros: Mapping[str, int] | None = None,
    unknown_inactive: bool = True,
    follow: Callable[[Include[K]], bool] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Closure[K]:
    """The files reached from `starts` by quoted includes (depth first, last include first).

    `read`: a file's text (None: unreadable, skipped); `resolve`: where `#include "name"` in a file
    lands (None: found nowhere). Only the includes a build with `macros` compiles count (see
    `quoted_includes`). `follow`: whether a resolved include's target is read in turn (default: all);
    `stop`: checked before each file, ends the walk when true. See the module docstring for what
    each caller passes."""
    out: Closure[K] = Closure()
    todo = list(starts)
    seen: set[K] = set()
    while todo and not (stop is not None and stop()):
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        text = read(key)
        if text is None:
            continue
        out.texts[key] = text
        for name, line in quoted_includes(text, macros, unknown_inactive):
            include = Include(key, name, line, resolve(key, name))
            out.includes.append(include)
            if include.target is not None and (follow is None or follow(include)):
                todo.append(include.target)
    return out


def resolve_in_files(files: Mapping[str, str] | Iterable[str], including: str, name: str) -> str | None:
    """Where `#include "name"` in `including` lands among `files` (paths relative to the operator
    root): the including file's folder, then `OPERATOR_FOLDERS`; None when none holds it."""
    for folder in (posixpath.dirname(including), *OPERATOR_FOLDERS):
        cand = posixpath.normpath(posixpath.join(folder, name))
        if cand in files:
            return cand
    return None


def read_on_disk(path: Path, real_of: Mapping[Path, Path]) -> str | None:
    """A file's text (read at its real place when carried at a kernel-layout one), or None."""
    try:
        return real_of.get(path, path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def resolve_on_disk(
    path: Path, name: str, dirs: list[Path], op_root: Path, repo: Path, real_of: dict[Path, Path]
) -> tuple[Path | None, Path | None]:
    """Where `#include "name"` in `path` lands, as g++ looks (the file's folder, then `dirs`):
    (None, the file), or for a header CANN's kernel build finds at another place than the checkout
    (a kernel's `../rms_norm/x.h`, and that header's own siblings) (its build-tree place, the file),
    recorded in `real_of`; (None, None) when found nowhere. Paths are absolute, op_root and repo resolved."""
    hit = next((c for c in (path.parent / name, *(d / name for d in dirs)) if c.is_file()), None)
    if hit is not None:
        return None, hit
    virtual: Path | None = None
    if path in real_of and (real_of[path].parent / name).is_file():
        # A header carried at its kernel-layout place reaches its own siblings from there.
        virtual, hit = Path(os.path.normpath(path.parent / name)), real_of[path].parent / name
    elif name.startswith("../"):
        virtual, hit = _kernel_layout(path, name, op_root, repo)
    if virtual is not None and hit is not None:
        real_of[virtual] = hit
    return virtual, hit


def _kernel_layout(path: Path, name: str, op_root: Path, repo: Path) -> tuple[Path | None, Path | None]:
    """CANN's kernel build copies each operator's op_kernel/ to `ascendc/<op>/`, so a kernel's
    `../rms_norm/x.h` names another operator's op_kernel/x.h. Returns (where g++ looks for it from
    `path` in the checkout, the real file), or (None, None)."""
    kdir = op_root / "op_kernel"
    if not path.is_relative_to(kdir):
        return None, None
    depth = len(path.parent.relative_to(kdir).parts)  # op_kernel/arch35/… is one deeper
    parts = name.split("/")
    ups = 0
    while ups < len(parts) and parts[ups] == "..":
        ups += 1
    if ups != depth + 1 or len(parts) < ups + 2:
        return None, None
    other, rest = parts[ups], parts[ups + 1 :]
    for cand in sorted(repo.glob(f"*/{other}/op_kernel")) + sorted(repo.glob(f"{other}/op_kernel")):
        real = cand.joinpath(*rest)
        if real.is_file():
            return Path(os.path.normpath(path.parent / name)), real
    return None, None
