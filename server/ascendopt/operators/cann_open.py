"""CANN open-repo operators (ops-math / ops-nn / cann-ops style): the repository around them.

An operator folder `<repo>/<category>/<op>/` holds `op_host/<op>_def.cpp` (the OpDef; per SoC an
`OpAICoreConfig` whose `ExtendCfgInfo("opFile.value", "<name>")` names the kernel file),
`op_host/<op>_tiling*.cpp` and `op_kernel/<op>.cpp` plus headers. Its build reads the repository
too: the include folders its CMake lists (`OP_TILING_INCLUDE`: the repo root, `common/inc`, …) and
headers reached by relative includes (`../../norm_common/x.h`). This module finds the repository
root, picks the kernel variant a SoC builds, and collects the include closure: the files outside the
operator folder that its sources reach, never the whole repository.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.extract import call_args
from ascendopt.operators.soc import DEFAULT_SOC as DEFAULT_SOC  # the table's (operators/soc.py)

# The per-architecture kernel folder of a SoC family (dav-2201 / dav-3510), where repos keep one.
ARCH_DIRS = {"ascend910b": "arch22", "ascend910_93": "arch22", "ascend950": "arch35"}
# Where a repository's CMake looks for headers, as OP_TILING_INCLUDE lists them (repo-relative);
# the older cann-ops keeps its shared headers (`tiling/tiling_base.h`, `log/ops_log.h`) in src/common/inc.
REPO_INCLUDE_DIRS: tuple[str, ...] = ("", "common/inc", "common/inc/op_host", "common/inc/op_kernel")
REPO_INCLUDE_DIRS += ("common/inc/common", "src/common/inc")
# What a repository keeps at its root that its build reads (and that marks the root).
REPO_MARKERS = ("CMakeLists.txt", "build.sh", "common/CMakeLists.txt")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
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
    """The repository folders its build puts on the include path (those that exist)."""
    return [d for d in REPO_INCLUDE_DIRS if (repo / d).is_dir()]


@dataclass
class KernelChoice:
    stem: str  # op_kernel/<stem>.cpp
    why: str  # where the choice came from, for the user
    variants: dict[str, str]  # other kernel stems → the SoC families that build them
    socs: list[str]  # every SoC family the OpDef configures (empty: no OpDef, or none listed)


def kernel_choice(def_src: CppSource | None, op_name: str, family: str) -> KernelChoice:
    """The kernel file `family` builds: the opFile of the config its `AddConfig` names, else
    `<op>.cpp` (CANN's default opFile is the operator's own name)."""
    opfiles: dict[str, tuple[str, int]] = {}  # config variable → (opFile, line)
    socs: dict[str, str | None] = {}  # SoC family → config variable (None: the OpDef's own)
    if def_src is not None:
        toks = def_src.tokens()
        for i, t in enumerate(toks):
            if t.text == "ExtendCfgInfo":
                args, _ = call_args(toks, i + 1)
                if len(args) == 2 and args[0].strip('" ') == "opFile.value":
                    owner = _chain_owner(toks, i)
                    if owner:
                        opfiles[owner] = (args[1].strip('" '), t.node.start_point[0] + 1)
            elif t.text == "AddConfig":
                args, _ = call_args(toks, i + 1)
                if args:
                    socs[args[0].strip('" ')] = args[1].strip() if len(args) > 1 else None
    variants: dict[str, str] = {}
    for soc, cfg in socs.items():
        if cfg in opfiles and opfiles[cfg][0] != op_name:
            variants.setdefault(opfiles[cfg][0], "")
            variants[opfiles[cfg][0]] = ", ".join(filter(None, (variants[opfiles[cfg][0]], soc)))
    cfg = socs.get(family)
    where = def_src.path if def_src is not None else "the OpDef"
    if cfg in opfiles:
        stem, line = opfiles[cfg]
        why = f"{family} builds op_kernel/{stem}.cpp (opFile.value of {cfg}, {where}:{line})"
    elif family in socs:
        stem, why = op_name, f"{family} builds op_kernel/{op_name}.cpp (the default opFile; {where})"
    else:
        stem = op_name
        why = (
            f"{family} is not among the OpDef's AddConfig SoCs; op_kernel/{op_name}.cpp (the default opFile)"
        )
    variants.pop(stem, None)
    return KernelChoice(stem=stem, why=why, variants=variants, socs=list(socs))


def _chain_owner(toks: list, i: int) -> str | None:
    """The variable a builder chain starts from: `cfg.A().B().ExtendCfgInfo(…)` → cfg."""
    depth = 0
    j = i - 1
    while j >= 0:
        t = toks[j].text
        if t == ")":
            depth += 1
        elif t == "(":
            depth -= 1
        elif depth == 0 and t in (";", "{", "}"):
            break
        j -= 1
    return toks[j + 1].text if j + 1 < i and toks[j + 1].type == "identifier" else None


_CMAKE_SET = re.compile(r"\bset\s*\(\s*SUPPORT_(COMPUTE_UNIT|TILING_DIR)\b([^)]*)\)", re.I)


def tiling_dirs(op_root: Path) -> dict[str, str]:
    """The SoC family → op_host subfolder map of the operator's CMakeLists (`set(SUPPORT_COMPUTE_UNIT
    "ascend910b" "ascend950")` beside `set(SUPPORT_TILING_DIR "arch22" "arch35")`, one to one), or {}."""
    for cmake in (op_root / "CMakeLists.txt", op_root / "op_host" / "CMakeLists.txt"):
        try:
            text = re.sub(r"#[^\n]*", "", cmake.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        sets = _CMAKE_SET.finditer(text)
        lists = {m.group(1).upper(): re.findall(r'"?([\w.]+)"?', m.group(2)) for m in sets}
        units, dirs = lists.get("COMPUTE_UNIT", []), lists.get("TILING_DIR", [])
        if units and len(units) == len(dirs):
            return dict(zip(units, dirs, strict=True))
    return {}


def tiling_sources(op_root: Path, family: str) -> list[Path]:
    """The op_host sources CANN's CMake compiles into the host library for `family`
    (add_tiling_sources): every `op_host/*_tiling*.cpp` (or `.cc`), and `op_host/<dir>/*_tiling*.cpp`
    where the operator's CMakeLists maps the SoC to a TILING_DIR (without a map: the SoC's
    ARCH_DIRS folder)."""
    hdir = op_root / "op_host"
    mapped = tiling_dirs(op_root)
    sub = mapped.get(family) if mapped else ARCH_DIRS.get(family)
    own = [*sorted(hdir.glob("*_tiling*.cpp")), *sorted(hdir.glob("*_tiling*.cc"))]
    return [*own, *(sorted((hdir / sub).glob("*_tiling*.cpp")) if sub else [])]


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

    `include_dirs` are relative to the operator root. A header found nowhere may be one the toolchain
    provides (kernel_operator.h, register/…, log/log.h): the caller decides."""
    op_root, repo = op_root.resolve(), repo.resolve()
    dirs = [(op_root / d).resolve() for d in include_dirs]
    found: dict[str, Path] = {}
    missing: list[MissingHeader] = []
    todo = [op_root / s for s in sources]
    seen: set[Path] = set()
    real_of: dict[Path, Path] = {}  # a header carried at its kernel-layout place → the file itself
    while todo and len(found) < _MAX_CLOSURE:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = real_of.get(path, path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            virtual, hit = resolve_include(path, name, dirs, op_root, repo, real_of)
            if virtual is not None and hit is not None:
                found[_rel(virtual, op_root)] = hit
                todo.append(virtual)
                continue
            if hit is None:
                line = text.count("\n", 0, m.start()) + 1
                searched = [_rel(path.parent, op_root), *include_dirs]
                missing.append(MissingHeader(name, _rel(path, op_root), line, list(dict.fromkeys(searched))))
                continue
            hit = Path(os.path.normpath(hit))
            if not hit.is_relative_to(repo):
                continue  # outside the repository: a toolchain header, never carried
            if not hit.is_relative_to(op_root):
                found[_rel(hit, op_root)] = hit
            todo.append(hit)
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


def resolve_include(
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


def _rel(path: Path, root: Path) -> str:
    return posixpath.normpath(os.path.relpath(path, root)).replace(os.sep, "/")


def repo_markers(op_root: Path, repo: Path) -> dict[str, Path]:
    """The repository's root build files, keyed relative to the operator root (`../../CMakeLists.txt`):
    carried so that a copy of the operator is still found inside its repository."""
    return {_rel(repo / m, op_root.resolve()): repo / m for m in REPO_MARKERS if (repo / m).is_file()}
