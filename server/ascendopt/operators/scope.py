"""What an LLM rewrite of an operator may read and edit: its rewrite scope for one SoC.

In CANN's open repositories the kernel entry often only dispatches (`op_kernel/rms_norm.cpp` picks
a class by tiling key) and the code that runs sits in headers it includes (`rms_norm_merge_n.h`,
`rms_norm_base.h`, …); the tiling program spans helper classes in headers beside it. The scope is
every file the SoC's build compiles inside the operator folder:

* the kernel entry and the headers it includes: the include closure under the SoC's architecture
  macros (`#if __NPU_ARCH__ == 3510` branches are left out on 910B; a branch whose condition cannot
  be read counts as compiled), never another architecture's `arch35/`-style variant;
* the host tiling sources (`files.host` and the `files.host_sources` the SoC's build links, as the
  twin picks them) and the headers they include; the tiling-data header.

Files outside the operator folder (repository-shared headers, another operator's header carried at
its kernel-layout place) are in the scope read-only when the kernel includes them, never editable.

Paths are keys of a candidate's `files` (operator-relative; repository files as
`../../common/inc/op_kernel/x.h`, see `OperatorFiles.context`), resolved as the build does:
the including file's folder, then op_kernel/, op_host/, the operator root, then the repository's
include folders.

`tiling_regions` gives the part of the tiling program an LLM tiling mutant may change: the functions
and classes reachable from the registered tiling entry, by a walk over the parse tree.
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.includes import closure, resolve_in_files
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.repository import is_arch_variant, soc_family
from ascendopt.operators.soc import DEFAULT_SOC, arch_macros

Role = Literal[
    "kernel_entry", "kernel_header", "tiling_source", "tiling_header", "tiling_data", "repo_header"
]

ROLE_TEXT: dict[Role, str] = {
    "kernel_entry": "kernel entry",
    "kernel_header": "kernel header",
    "tiling_source": "tiling source",
    "tiling_header": "tiling header",
    "tiling_data": "tiling-data header",
    "repo_header": "repository header",
}
# The order files are listed in: what a rewrite most often changes first.
_ORDER: tuple[Role, ...] = (
    "kernel_entry",
    "kernel_header",
    "tiling_source",
    "tiling_data",
    "tiling_header",
    "repo_header",
)
_SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".c")


@dataclass(frozen=True)
class ScopeFile:
    path: str  # key in the candidate's files (relative to the operator root)
    role: Role
    editable: bool

    @property
    def label(self) -> str:
        return ROLE_TEXT[self.role]


def rewrite_scope(
    project: OperatorProject, files: Mapping[str, str] | None = None, soc: str | None = None
) -> list[ScopeFile]:
    """The files a rewrite of `project` for `soc` (default: its spec's) sees, each with its role and
    whether the model may edit it, in `_ORDER`. `files`: the candidate's (default: read from disk)."""
    files = project.read_files() if files is None else files
    soc = soc or (project.spec.soc if project.spec is not None else DEFAULT_SOC)
    other_arch = soc_family(soc) != "ascend950"
    dirs = _repo_dirs(project)

    def resolve(including: str, name: str) -> str | None:
        hit = resolve_in_files(files, including, name)
        if hit is not None:
            return hit
        return next((c for d in dirs if (c := posixpath.normpath(posixpath.join(d, name))) in files), None)

    kernel = project.files.kernel
    kernel_walk = closure(
        [kernel],
        files.get,
        resolve,
        macros=arch_macros(soc),
        unknown_inactive=False,
        follow=lambda inc: not (other_arch and inc.target is not None and is_arch_variant(inc.target)),
    )
    host_starts = _host_sources(project, files, soc)
    host_walk = closure(host_starts, files.get, resolve) if host_starts else None

    roles: dict[str, Role] = {}
    tiling_data = project.files.tiling_data
    for path in kernel_walk.texts:
        if path == kernel:
            roles[path] = "kernel_entry"
        elif path == tiling_data:
            roles[path] = "tiling_data"
        elif inside(project, path):
            roles[path] = "kernel_header"
        else:
            roles[path] = "repo_header"
    for path in host_walk.texts if host_walk is not None else ():
        if path in roles or not inside(project, path):
            continue  # repository headers of the host side are not shown
        if path == tiling_data:
            roles[path] = "tiling_data"
        else:
            roles[path] = "tiling_source" if path.endswith(_SOURCE_SUFFIXES) else "tiling_header"
    if tiling_data and tiling_data in files and tiling_data not in roles and inside(project, tiling_data):
        roles[tiling_data] = "tiling_data"
    ordered = sorted(roles.items(), key=lambda item: _ORDER.index(item[1]))
    return [ScopeFile(path, role, role != "repo_header") for path, role in ordered]


def editable_paths(scope: list[ScopeFile]) -> list[str]:
    return [f.path for f in scope if f.editable]


def inside(project: OperatorProject, path: str) -> bool:
    """Whether a files key names a file of the operator folder itself (not a repository file, nor
    another operator's header carried where CANN's kernel build finds it)."""
    norm = posixpath.normpath(path)
    if norm == ".." or norm.startswith("../") or posixpath.isabs(norm):
        return False
    return project.repo is None or path not in project.repo.relocated


def _repo_dirs(project: OperatorProject) -> list[str]:
    if project.repo is None:
        return []
    return [posixpath.relpath(d or ".", project.repo.prefix) for d in project.repo.include_dirs]


def _host_sources(project: OperatorProject, files: Mapping[str, str], soc: str) -> list[str]:
    """The tiling program's own sources the SoC's build compiles: the host file, then the operator's
    other host sources, another architecture's left out (cpu_twin/build.py links those only when
    they build; they are not the SoC's tiling)."""
    host = project.files.host
    if host is None or host not in files:
        return []
    other_arch = soc_family(soc) != "ascend950"
    more = [s for s in project.files.host_sources if s in files and not (other_arch and is_arch_variant(s))]
    return list(dict.fromkeys([host, *more]))


# -- the tiling mutant's region ----------------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """A definition of the tiling program a mutant may change: bytes [start, end) of `file`."""

    file: str
    start: int
    end: int
    name: str  # `Class` or `Class::Method` / `Function`


_CLASS_TYPES = ("class_specifier", "struct_specifier")
_NAME_TYPES = ("identifier", "field_identifier", "type_identifier", "namespace_identifier")


def tiling_regions(
    project: OperatorProject, files: Mapping[str, str], scope: list[ScopeFile] | None = None
) -> list[Region]:
    """The functions and classes of the tiling program reachable from its registered tiling entry
    (`project.tiling`, the `IMPL_OP_OPTILING(…).Tiling(f)` / OpDef `SetTiling(f)` function): the
    entry, then every function or class defined in the tiling sources and headers of the scope that a
    reached definition names (calls, types, bases; a method by its own name). The tiling-data header
    is not part of it (its fields are the kernel's contract). Empty without a tiling entry."""
    tiling = project.tiling
    if tiling is None or tiling.range.file not in files:
        return []
    scope = scope if scope is not None else rewrite_scope(project, files)
    paths = [f.path for f in scope if f.editable and f.role in ("tiling_source", "tiling_header")]
    if tiling.range.file not in paths:
        paths.insert(0, tiling.range.file)
    defs: dict[str, list[tuple[Region, CppSource, Node]]] = {}
    entry: tuple[Region, CppSource, Node] | None = None
    for path in paths:
        src = CppSource.parse(path, files[path])
        for name, node, region_node in _definitions(src):
            region = Region(path, region_node.start_byte, region_node.end_byte, name)
            item = (region, src, node)
            defs.setdefault(name.rsplit("::", 1)[-1], []).append(item)
            holds = path == tiling.range.file and node.start_byte <= tiling.range.start_byte < node.end_byte
            if holds and (entry is None or _size(node) < _size(entry[2])):
                entry = item
    if entry is None:
        return []
    reached: dict[tuple[str, int], Region] = {}
    todo = [entry]
    while todo:
        region, src, node = todo.pop()
        key = (region.file, region.start)
        if key in reached:
            continue
        reached[key] = region
        for name in _names(src, node):
            todo.extend(d for d in defs.get(name, []) if (d[0].file, d[0].start) not in reached)
    # A definition inside another reached one (a method in its class body) is covered already.
    out = sorted(reached.values(), key=lambda r: (paths.index(r.file), r.start))
    return [r for r in out if not any(o is not r and _covers(o, r) for o in out)]


def _covers(outer: Region, inner: Region) -> bool:
    return outer.file == inner.file and outer.start <= inner.start and inner.end <= outer.end


def _size(node: Node) -> int:
    return node.end_byte - node.start_byte


def _definitions(src: CppSource) -> list[tuple[str, Node, Node]]:
    """(name, node, the node a mutant may change: with its `template <…>`) of every function
    definition and every class or struct with a body."""
    out: list[tuple[str, Node, Node]] = []
    for name, node in src.functions():
        out.append((name, node, _with_template(node)))
    for node in src.walk():
        if node.type in _CLASS_TYPES and node.child_by_field_name("body") is not None:
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                whole = node.parent if node.parent is not None and node.parent.type == "declaration" else node
                out.append((src.text_of(name_node).split("<")[0], node, _with_template(whole)))
    return out


def _with_template(node: Node) -> Node:
    parent = node.parent
    return parent if parent is not None and parent.type == "template_declaration" else node


def _names(src: CppSource, node: Node) -> set[str]:
    return {src.text_of(n) for n in src.walk(node) if n.type in _NAME_TYPES}


def changed_lines_confined(before: str, after: str, spans: list[tuple[int, int]]) -> int | None:
    """None when every line `after` changes in `before` lies inside one of `spans` (byte ranges of
    `before`); else the first changed line (1-based, in `before`) that does not."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    data = before.encode("utf-8")
    lines = [(data.count(b"\n", 0, s), data.count(b"\n", 0, max(s, e - 1))) for s, e in spans]
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # an insertion before line i1: strictly inside a span
            ok = any(first < i1 <= last for first, last in lines)
        else:
            ok = any(first <= i1 and i2 - 1 <= last for first, last in lines)
        if not ok:
            return i1 + 1
    return None
