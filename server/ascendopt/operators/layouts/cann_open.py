"""The CANN open-repo layout (ops-math / ops-nn / cann-ops style): `<repo>/<category>/<op>/` with
`op_host/<op>_def.cpp` (the OpDef; per SoC an `OpAICoreConfig` whose
`ExtendCfgInfo("opFile.value", "<name>")` names the kernel file), `op_host/<op>_tiling*.cpp`,
`op_kernel/<op>.cpp` plus headers, the tiling data a plain struct (`op_kernel/<op>_tiling_data.h`)
read with GET_TILING_DATA_WITH_STRUCT. The spec's SoC (910B by default) picks the kernel variant
that is built; the others are its variants. The repository around it: repository.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ascendopt.operators import extract
from ascendopt.operators.assemble import assemble, spec_soc
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.extract import call_args
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import Layout, OperatorFiles, OperatorProject
from ascendopt.operators.repository import ARCH_DIRS, is_arch_variant, soc_family
from ascendopt.operators.sources import read_source, relative

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


def is_open_repo_operator(root: Path) -> bool:
    """An operator folder (op_kernel/ + op_host/) in the open repos' shape: an OpDef of its own
    (`op_host/*_def.cpp`), or tiling sources without the msOpGen `op_host/<op>.cpp`."""
    if not ((root / "op_kernel").is_dir() and (root / "op_host").is_dir()):
        return False
    hdir = root / "op_host"
    return any(hdir.glob("*_def.cpp")) or (
        any(hdir.glob("*_tiling*.cpp")) and not (hdir / f"{root.name}.cpp").exists()
    )


class CannOpen:
    name: str = "cann_open"
    carries: Layout = "cann_open"
    owns: tuple[str, ...] = ("op_kernel", "op_host", "tests")  # an operator's own tests hold no operator

    def matches(self, folder: Path) -> bool:
        return is_open_repo_operator(folder)

    def describe(self, folder: Path, found: Discovery) -> list[OperatorProject]:
        return _describe(folder, found)


def _describe(root: Path, result: Discovery) -> list[OperatorProject]:
    """A CANN open-repo operator folder: the OpDef in op_host/<op>_def.cpp names the kernel file per
    SoC; the spec's SoC (910B by default) picks which one is built, the others are its variants."""
    kdir, hdir = root / "op_kernel", root / "op_host"
    issues: list[Issue] = []
    def_path = next((p for p in sorted(hdir.glob("*_def.cpp"))), None)
    def_src = read_source(def_path, issues) if def_path is not None else None
    if def_src is not None and def_path is not None:
        def_src = relative(def_src, root, def_path)
    # The operator's name is its folder's in a repository; a folder named otherwise (a benchmark
    # task's `answer/0/`) takes it from its OpDef file, `op_host/<op>_def.cpp`.
    op_name = root.name
    if def_path is not None and not (hdir / f"{root.name}_def.cpp").exists():
        op_name = def_path.name.removesuffix("_def.cpp")
    external = result.external_specs.get(op_name)
    soc = external[1].soc if external else spec_soc(root)
    family = soc_family(soc)
    choice = kernel_choice(def_src, op_name, family)
    # op_kernel/<opFile>.cpp, or in the SoC's architecture folder (arch22/ for 910B, arch35/ for 950).
    arch = ARCH_DIRS.get(family, "")
    places = [
        kdir / f"{choice.stem}.cpp",
        kdir / arch / f"{choice.stem}.cpp",
        kdir / arch / f"{op_name}.cpp",
    ]
    kpath = next((p for p in places if p.is_file()), places[0])
    if not kpath.exists() and (def_src is None or family in choice.socs):
        # The file the OpDef names is not there (or no OpDef names one): the one kernel file there is.
        plain = [p for p in sorted(kdir.glob("*.cpp")) if b"__global__" in p.read_bytes()]
        if len(plain) == 1:
            kpath = plain[0]
            why = f"op_kernel/{kpath.name}, the one kernel file ({choice.why})"
            choice = KernelChoice(kpath.stem, why, {}, choice.socs)
    if choice.socs and family not in choice.socs:
        # An operator CANN builds only for other SoCs (a 950-only kernel): nothing for this one.
        for other in _kernel_sources(kdir):
            result.variants[str(other.resolve())] = f"built for {', '.join(choice.socs)}"
        result.issues.append(
            Issue(
                file=str(def_path or root),
                severity="warning",
                code="other-soc",
                message=f"{op_name}: the OpDef builds no kernel for {family} (it configures "
                f"{', '.join(choice.socs)}); set `soc` in the spec to one of those to use it",
            )
        )
        return []
    ksrc = read_source(kpath, result.issues) if kpath.exists() else None
    entries = extract.kernel_entries(relative(ksrc, root, kpath)) if ksrc is not None else []
    if ksrc is None or not entries:
        result.issues.append(
            Issue(
                file=str(kpath if kpath.exists() else root),
                code="not-understood",
                message=f"no kernel entry in op_kernel/{choice.stem}.cpp ({choice.why})",
            )
        )
        return []
    issues.append(
        Issue(file=ksrc.path, severity="info", code="variant", message=f"kernel variant: {choice.why}")
    )
    for other in _kernel_sources(kdir):  # op_kernel/arch35/<op>.cpp too
        if other == kpath:
            continue
        built_by = choice.variants.get(other.stem)
        note = (
            f"per-SoC variant built for {built_by}, not for {soc}"
            if built_by
            else f"not the kernel {soc} builds ({choice.why})"
        )
        result.variants[str(other.resolve())] = note
        if b"__global__" in other.read_bytes():
            issues.append(
                Issue(file=str(other.relative_to(root)), severity="info", code="variant", message=note)
            )
    # The host program: the tiling source registering the tiling function; the other tiling
    # sources (per-architecture ones it calls into) are linked with it, as CANN's host library is.
    tiling_paths = tiling_sources(root, family)
    preferred = hdir / f"{op_name}_tiling.cpp"
    host_path = (
        preferred
        if preferred.exists()
        else next((p for p in tiling_paths if not is_arch_variant(str(p.relative_to(root)))), None)
    )
    if host_path is None and (hdir / f"{op_name}.cpp").exists():
        host_path = hdir / f"{op_name}.cpp"  # the older cann-ops: TilingFunc beside InferShape there
    files = OperatorFiles(kernel=ksrc.path)
    hsrc = dsrc = None
    if host_path is not None:
        hsrc = read_source(host_path, issues)
        if hsrc is not None:
            hsrc = relative(hsrc, root, host_path)
            files.host = hsrc.path
            issues.extend(hsrc.syntax_issues())
        files.host_sources = [str(p.relative_to(root)) for p in tiling_paths if p != host_path]
        # op_host/<op>.cpp registering tiling beside another host file (NPUKernelBench DequantSwigluQuant: its
        # IMPL_OP_OPTILING and one tiling class there, the other class in <op>_tiling_base.cpp): linked too.
        named = hdir / f"{op_name}.cpp"
        if named.exists() and named != host_path and named not in tiling_paths:
            text = named.read_text(errors="replace")
            if "IMPL_OP_OPTILING" in text or "REGISTER_TILING_TEMPLATE" in text:
                files.host_sources.append(str(named.relative_to(root)))
    else:
        issues.append(
            Issue(
                file=ksrc.path,
                message=f"no tiling program: expected op_host/{op_name}_tiling.cpp or {op_name}.cpp",
            )
        )
    # _def.h: ops-math is_inf & co
    host_headers = [hdir / f"{op_name}_tiling.h", hdir / f"{op_name}_tiling_def.h"]
    defining = [
        p for p in host_headers if p.exists() and "BEGIN_TILING_DATA_DEF" in p.read_text(errors="replace")
    ]
    # <op>_tiling.h may hold only the host's tiling class, <op>_tiling_def.h the struct
    # (NPUKernelBench GeluQuant).
    for data_path in (
        kdir / f"{choice.stem}_tiling_data.h",
        kdir / f"{op_name}_tiling_data.h",
        *(defining or host_headers),
    ):
        if data_path.exists():
            dsrc = read_source(data_path, issues)
            if dsrc is not None:
                dsrc = relative(dsrc, root, data_path)
                files.tiling_data = dsrc.path
            break
    else:
        # An op_host header of another name registering the struct (MaskedSelectV3's masked_select_v3.h).
        # Imported here: msopgen reads this module at import time.
        from ascendopt.operators.layouts.msopgen import registering_header

        registered = registering_header(hdir, op_name, hsrc)
        dsrc = read_source(registered, issues) if registered is not None else None
        if registered is not None and dsrc is not None:
            dsrc = relative(dsrc, root, registered)
            files.tiling_data = dsrc.path
    if def_src is not None:
        files.opdef = def_src.path
        # An OpDef file that also registers the InferShape (NPUKernelBench GeluQuant): linked with the tiling
        # program, which the twin asks for the shapes of outputs the reference gives no value for.
        if "IMPL_OP_INFERSHAPE" in def_src.text and (hsrc is None or "IMPL_OP_INFERSHAPE" not in hsrc.text):
            files.host_sources.append(def_src.path)
    issues.extend(ksrc.syntax_issues())
    name, fn = entries[0]
    opdef = def_src or hsrc
    return [assemble(root, name, "cann_open", files, ksrc, fn, hsrc, dsrc, issues, result, opdef_src=opdef)]


def _kernel_sources(kdir: Path) -> list[Path]:
    """Kernel files of every architecture: op_kernel/*.cpp, and per-architecture sources and headers
    (`arch35/…`) that hold an entry of their own."""
    top = sorted(kdir.glob("*.cpp"))
    nested = [p for p in sorted(kdir.rglob("*")) if p.parent != kdir and p.suffix in (".cpp", ".h", ".hpp")]
    return [*top, *nested]


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
