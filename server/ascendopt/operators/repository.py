"""The repository around an operator (CANN's open repos: ops-math / ops-nn / cann-ops style).

An open-repo operator folder `<repo>/<category>/<op>/` builds with the repository: the include
folders its CMake lists (`OP_TILING_INCLUDE`: the repo root, `common/inc`, …), headers reached by
relative includes (`../../norm_common/x.h`) and host sources linked into CANN's one host library.
This module finds the repository root, collects the include closure (the files outside the operator
folder that its sources reach, never the whole repository; walked by includes.py) and describes the
context an operator's build reads there (`repo_context`). Also the per-SoC conventions of those
repositories: the SoC family names, the per-architecture folders, which files are another
architecture's.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from ascendopt.operators import includes
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import MissingInclude, OperatorFiles, RepoContext
from ascendopt.operators.soc import DEFAULT_SOC as DEFAULT_SOC  # the table's (operators/soc.py)

# The per-architecture kernel folder of a SoC family (dav-2201 / dav-3510), where repos keep one.
ARCH_DIRS = {"ascend910b": "arch22", "ascend910_93": "arch22", "ascend950": "arch35"}
# Where a repository's CMake looks for headers, as OP_TILING_INCLUDE lists them (repo-relative);
# the older cann-ops keeps its shared headers (`tiling/tiling_base.h`, `log/ops_log.h`) in src/common/inc.
REPO_INCLUDE_DIRS: tuple[str, ...] = ("", "common/inc", "common/inc/op_host", "common/inc/op_kernel")
REPO_INCLUDE_DIRS += ("common/inc/common", "src/common/inc")
# What a repository keeps at its root that its build reads (and that marks the root).
REPO_MARKERS = ("CMakeLists.txt", "build.sh", "common/CMakeLists.txt")
_MAX_CLOSURE = 400  # files: a closure larger than this is a repository-wide include, not a closure


def soc_family(soc: str) -> str:
    """The short SoC name CANN's configs use: Ascend910B4 → ascend910b, Ascend910_9391 → ascend910_93."""
    low = soc.lower()
    for family in ("ascend910_93", "ascend910b", "ascend950", "ascend310p", "ascend310b", "ascend910"):
        if low.startswith(family):
            return family
    return low


def find_repo_root(op_root: Path) -> Path | None:
    """The nearest folder above the operator that marks a repository: a `.git`, or a `build.sh`
    beside a `common/` folder (ops-math / ops-nn keep both at their root; categories do not)."""
    for parent in op_root.resolve().parents:
        if (parent / ".git").exists() or ((parent / "build.sh").is_file() and (parent / "common").is_dir()):
            return parent
    return None


def repo_include_dirs(repo: Path) -> list[str]:
    """The repository folders its build puts on the include path (those that exist): what its CMake
    lists (`cmake_include_dirs`) first, then the usual places of CANN's open repos."""
    dirs = [*cmake_include_dirs(repo), *REPO_INCLUDE_DIRS]
    return [d for d in dict.fromkeys(dirs) if (repo / d).is_dir()]


_CMAKE_COMMAND = re.compile(
    r"\b(set|list|include_directories|target_include_directories)\s*\(([^()]*)\)", re.I
)
_CMAKE_VAR = re.compile(r"\$\{(\w+)\}")
_CMAKE_ROOT_VARS = ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR", "CMAKE_HOME_DIRECTORY")
_CMAKE_HERE_VARS = ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR")
_TARGET_WORDS = {"SYSTEM", "BEFORE", "AFTER", "PUBLIC", "PRIVATE", "INTERFACE"}


def _cmake_files(repo: Path) -> list[Path]:
    """The CMake files that set a repository's include path: the root's, `cmake/` (two levels) and
    the top-level folders' (`common/CMakeLists.txt`, `src/CMakeLists.txt`)."""
    out = [repo / "CMakeLists.txt"]
    out += sorted((repo / "cmake").glob("*.cmake")) + sorted((repo / "cmake").glob("*/*.cmake"))
    out += sorted(repo.glob("*/CMakeLists.txt"))
    return [p for p in out if p.is_file()]


def cmake_include_dirs(repo: Path) -> list[str]:
    """The folders a repository's CMake puts on the include path, repo-relative (`""` for the
    root): `include_directories(…)`, `target_include_directories(…)` and every variable whose name
    holds INCLUDE (`set(OP_TILING_INCLUDE ${CMAKE_CURRENT_SOURCE_DIR}/common/include …)`,
    `list(APPEND …)`). `${CMAKE_SOURCE_DIR}`-like variables are the root, `${CMAKE_CURRENT_*}` the
    file's folder, variables set in these files are expanded; a path with anything else (another
    variable, a generator expression) or outside the repository is left out."""
    repo = repo.resolve()
    values: dict[str, list[str]] = {}
    found: list[tuple[Path, str]] = []  # (the CMake file's folder, a path as written)
    for path in _cmake_files(repo):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        text = re.sub(r"#[^\n]*", "", text)
        for m in _CMAKE_COMMAND.finditer(text):
            command, args = m.group(1).lower(), m.group(2).replace('"', " ").split()
            if command == "set" and args:
                values[args[0]] = [a for a in args[1:] if a not in ("CACHE", "PATH", "STRING", "INTERNAL")]
                if "INCLUDE" in args[0].upper():
                    found += [(path.parent, a) for a in args[1:]]
            elif command == "list" and len(args) > 2 and args[0].upper() == "APPEND":
                values.setdefault(args[1], []).extend(args[2:])
                if "INCLUDE" in args[1].upper():
                    found += [(path.parent, a) for a in args[2:]]
            elif command == "include_directories":
                found += [(path.parent, a) for a in args if a.upper() not in _TARGET_WORDS]
            elif command == "target_include_directories" and args:
                found += [(path.parent, a) for a in args[1:] if a.upper() not in _TARGET_WORDS]
    out: list[str] = []
    for here, raw in found:
        for text in _cmake_expand(raw, values, here, repo, depth=0):
            place = (
                Path(os.path.normpath(here / text))
                if not os.path.isabs(text)
                else Path(os.path.normpath(text))
            )
            if place.is_relative_to(repo) and place.is_dir():
                rel = place.relative_to(repo).as_posix()
                out.append("" if rel == "." else rel)
    return list(dict.fromkeys(out))


def _cmake_expand(raw: str, values: dict[str, list[str]], here: Path, repo: Path, depth: int) -> list[str]:
    if "$<" in raw or depth > 8:
        return []
    m = _CMAKE_VAR.search(raw)
    if m is None:
        return [raw]
    name = m.group(1)
    if name in _CMAKE_ROOT_VARS:
        subs = [str(repo)]
    elif name in _CMAKE_HERE_VARS:
        subs = [str(here)]
    elif name in values:
        subs = values[name]
    else:
        return []
    out: list[str] = []
    for sub in subs:
        out += _cmake_expand(raw[: m.start()] + sub + raw[m.end() :], values, here, repo, depth + 1)
    return out


_SKIP_DIRS = {".git", "build", "build_out", "output", "node_modules", "__pycache__"}


def repo_files(repo: Path) -> list[str]:
    """Every file of the repository, repo-relative (bar build outputs and `.git`)."""
    out = []
    for folder, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        base = Path(folder).relative_to(repo).as_posix()
        out += [name if base == "." else f"{base}/{name}" for name in names]
    return sorted(out)


def repo_places(repo: Path, header: str, files: list[str] | None = None) -> list[str]:
    """Where in the repository a file `header` names (`tiling/tiling_base.h`) sits, repo-relative:
    every file whose path ends with it (the whole repository searched, bar build outputs; `files`:
    `repo_files(repo)` when the caller already has it)."""
    tail = "/" + header.lstrip("./")
    return [rel for rel in (repo_files(repo) if files is None else files) if ("/" + rel).endswith(tail)]


def is_arch_variant(rel: str) -> bool:
    """A per-architecture file the 910B family does not build: `arch35/…`, `*_arch35.*`, `*_apt.*`."""
    parts = rel.split("/")
    stem = Path(rel).stem
    return any(p.startswith("arch3") for p in parts[:-1]) or stem.endswith(("_arch35", "_apt", "_regbase"))


@dataclass
class MissingHeader:
    header: str
    file: str  # relative to the operator root
    line: int
    searched: list[str]  # folders looked in, relative to the operator root


def include_closure(
    op_root: Path, repo: Path, sources: list[str], include_dirs: list[str]
) -> tuple[dict[str, Path], list[MissingHeader]]:
    """Files outside the operator folder that its sources reach by `#include "…"` (resolved as g++
    does: the including file's folder, then the include folders), keyed by their path relative to the
    operator root (`../../common/inc/op_host/x.h`); and the quoted includes found nowhere.

    `include_dirs` are relative to the operator root. Every `#include` line counts, whatever `#if`
    it sits under (see includes.py). A header found nowhere may be one the toolchain provides
    (kernel_operator.h, register/…, log/log.h): the caller decides."""
    op_root, repo = op_root.resolve(), repo.resolve()
    dirs = [(op_root / d).resolve() for d in include_dirs]
    found: dict[str, Path] = {}
    real_of: dict[Path, Path] = {}  # a header carried at its kernel-layout place → the file itself

    def resolve(path: Path, name: str) -> Path | None:
        virtual, hit = includes.resolve_on_disk(path, name, dirs, op_root, repo, real_of)
        return virtual if virtual is not None else None if hit is None else Path(os.path.normpath(hit))

    def follow(include: includes.Include[Path]) -> bool:
        target = include.target
        assert target is not None
        if target in real_of:  # at its kernel-layout place
            found[_rel(target, op_root)] = real_of[target]
            return True
        if not target.is_relative_to(repo):
            return False  # outside the repository: a toolchain header, never carried
        if not target.is_relative_to(op_root):
            found[_rel(target, op_root)] = target
        return True

    walk = includes.closure(
        [op_root / s for s in sources],
        lambda path: includes.read_on_disk(path, real_of),
        resolve,
        follow=follow,
        stop=lambda: len(found) >= _MAX_CLOSURE,
    )
    missing = [
        MissingHeader(
            inc.name,
            _rel(inc.source, op_root),
            inc.line,
            list(dict.fromkeys([_rel(inc.source.parent, op_root), *include_dirs])),
        )
        for inc in walk.includes
        if inc.target is None
    ]
    return found, missing


def definition_sources(op_root: Path, repo: Path, closure: dict[str, Path]) -> dict[str, Path]:
    """Host sources elsewhere in the repository that define what carried host headers declare.

    CANN links every op_host source of a repository into one host library, so an operator's tiling
    may call a class another operator's source defines (ops-nn swi_glu's tiling includes
    `../../swi_glu_grad/op_host/swi_glu_grad_tiling_regbase.h`; its methods are in the `.cpp`
    beside it). Rather than compile the repository, take for each carried host header
    (one under an `op_host/` folder) the source of the same stem beside it, or at its `inc/` → `src/`
    mirror (`common/inc/op_host/hash.h` → `common/src/op_host/hash.cpp`). Keyed like the closure."""
    op_root, repo = op_root.resolve(), repo.resolve()
    out: dict[str, Path] = {}
    for real in closure.values():
        if real.suffix not in (".h", ".hpp") or "op_host" not in real.parent.parts:
            continue
        rel = real.relative_to(repo)
        places = [real.with_suffix(".cpp")]
        if "inc" in rel.parts:
            i = rel.parts.index("inc")
            places.append(repo.joinpath(*rel.parts[:i], "src", *rel.parts[i + 1 :]).with_suffix(".cpp"))
        for cand in places:
            if cand.is_file() and not cand.is_relative_to(op_root) and "op_kernel" not in cand.parts:
                out[_rel(cand, op_root)] = cand
                break
    return out


def _rel(path: Path, root: Path) -> str:
    return posixpath.normpath(os.path.relpath(path, root)).replace(os.sep, "/")


def repo_markers(op_root: Path, repo: Path) -> dict[str, Path]:
    """The repository's root build files, keyed relative to the operator root (`../../CMakeLists.txt`):
    carried so that a copy of the operator is still found inside its repository."""
    return {_rel(repo / m, op_root.resolve()): repo / m for m in REPO_MARKERS if (repo / m).is_file()}


def repo_context(
    root: Path, files: OperatorFiles, issues: list[Issue], soc: str, open_repo: bool = True
) -> RepoContext | None:
    """The repository around an open-repo operator, and the files its build reads there (the include
    closure of the operator's sources, at their repo-relative places), added to `files.context`.

    An msOpGen-shaped operator (`open_repo` false) gets one only when its sources reach headers of
    the repository (the older cann-ops: `src/<family>/<op>/` including `log/ops_log.h` from
    `src/common/inc`); one that reads only its own folder builds as it always did."""
    repo = find_repo_root(root)
    if repo is None:
        return None
    prefix = root.resolve().relative_to(repo).as_posix()
    include_dirs = repo_include_dirs(repo)
    local = [d for d in ("op_kernel", "op_host", ".") if (root / d).is_dir()]
    from_op = [posixpath.relpath(d or ".", prefix) for d in include_dirs]
    # What the build compiles: the named sources and the headers beside them (not tests/, examples/).
    sources = [
        f
        for f in files.all()
        if f.endswith((".cpp", ".cc", ".h", ".hpp", ".inc"))
        and (f in files.named() or (f.startswith(("op_kernel/", "op_host/")) and "/op_api/" not in f))
    ]
    closure, missing = include_closure(root, repo, sources, [*local, *from_op])
    if not open_repo and not any(key.startswith("../") for key in closure):
        return None
    # What the carried host headers declare may be defined elsewhere in the repo (CANN's one host
    # library): those sources are linked too, with what they include in turn.
    links: dict[str, Path] = {}
    while new := {k: v for k, v in definition_sources(root, repo, closure).items() if k not in links}:
        links |= new
        more, more_missing = include_closure(root, repo, list(new), [*local, *from_op])
        closure |= more
        missing += more_missing
    markers = repo_markers(root, repo)
    known = set(files.all())
    files.context += [rel for rel in sorted({**closure, **links, **markers}) if rel not in known]
    # Before a header is called absent, the whole repository is searched for it: found elsewhere, it
    # is a folder the build's include path lacks (told so), not a header the repository lacks.
    everything = repo_files(repo) if missing else []
    places = {h: repo_places(repo, h, everything) for h in {m.header for m in missing}}
    unresolved = [
        MissingInclude(
            header=m.header,
            file=m.file,
            line=m.line,
            searched=m.searched,
            elsewhere=places[m.header],
        )
        for m in missing
    ]
    family = soc_family(soc)
    here = root.resolve()
    relocated = {
        key: posixpath.relpath(real, here)
        for key, real in closure.items()
        if Path(posixpath.normpath(here / key)) != real.resolve()
    }
    return RepoContext(
        root=repo,
        prefix=prefix,
        include_dirs=include_dirs,
        soc_family=family,
        unresolved=unresolved,
        relocated=relocated,
        host_links=sorted(links),
    )
