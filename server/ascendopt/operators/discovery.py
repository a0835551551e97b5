"""Find the AscendC operators under a folder and describe each one.

Layouts recognised:

* ``msopgen`` — ``op_host/<op>.cpp`` (TilingFunc + OpDef), ``op_host/<op>_tiling.h``
  (BEGIN_TILING_DATA_DEF…), ``op_kernel/<op>.cpp``;
* ``cann_open`` — ``op_host/<op>_tiling.cpp``, ``op_kernel/<op>_tiling_data.h``
  (a plain struct), kernel with GET_TILING_DATA_WITH_STRUCT / tiling keys;
* ``kernel_launch`` — a kernel ``.cpp`` plus ``main.cpp`` launching it with ``<<<…>>>``.

A problem in one operator becomes an Issue on that operator (file and line);
the rest of the tree is still discovered.
"""

from __future__ import annotations

import ast
import os
import posixpath
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field
from tree_sitter import Node

from ascendopt.operators import cann_open, extract, launch
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue, SpecError
from ascendopt.operators.knobs import knob_headers, knobs_of, launch_block_dim_knob, merge_knobs
from ascendopt.operators.model import (
    Constant,
    HostProgram,
    KernelEntry,
    Knob,
    Layout,
    MissingInclude,
    OperatorFiles,
    OperatorProject,
    RepoContext,
    Side,
    TilingField,
    TilingProgram,
)
from ascendopt.operators.project_files import project_files
from ascendopt.operators.soc import resolve_soc
from ascendopt.operators.spec import SPEC_FILE, OperatorSpec, load_spec
from ascendopt.operators.toml_lines import TomlLineIndex

_SKIP_DIRS = {".git", ".ascendopt", ".venv", "node_modules", "build", "build_out", "__pycache__", "out"}
_MAX_SOURCE_BYTES = 2_000_000
KERNEL_SUFFIXES = (".cpp", ".cc", ".cxx", ".asc")


class Discovery(BaseModel):
    operators: list[OperatorProject] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)  # problems not tied to one discovered operator
    # (absolute file, entry) → why a kernel entry did not become an operator (issues at the end)
    unclaimed: dict[tuple[str, str], str] = Field(default_factory=dict, exclude=True)
    # absolute kernel file → why it is another SoC's variant of an operator (never a name clash)
    variants: dict[str, str] = Field(default_factory=dict, exclude=True)
    # specs kept outside the tree (`--spec`, the editor's `ascendopt.specs`): operator name →
    # (file, the spec read from it)
    external_specs: dict[str, tuple[Path, OperatorSpec]] = Field(default_factory=dict, exclude=True)

    def find(self, name: str) -> OperatorProject:
        for op in self.operators:
            if op.name == name:
                return op
        names = ", ".join(o.name for o in self.operators) or "none"
        raise KeyError(f"no operator named {name!r} (found: {names})")


def discover(root: Path, specs: Sequence[Path] = ()) -> Discovery:
    """Every operator under `root`. `specs`: spec files kept outside the tree (`--spec`), each for
    the operator it names; its reference is beside it, so the user's checkout stays clean."""
    root = root.resolve()
    result = Discovery()
    for path in specs:
        try:
            spec = load_spec(path)
            result.external_specs.setdefault(spec.name, (path.resolve(), spec))
        except SpecError as exc:
            result.issues.extend(exc.issues)
        except OSError as exc:
            result.issues.append(Issue(file=str(path), message=f"cannot read this spec: {exc.strerror}"))
    if root.is_file():
        root = root.parent
    if not root.is_dir():
        result.issues.append(Issue(file=str(root), message="no such folder"))
        return result
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        here = Path(dirpath)
        if "op_kernel" in dirnames and "op_host" in dirnames:
            _discover_opdir(here, result)
            # An operator's own tests (tests/ut/op_kernel, …) hold no operator of their own.
            dirnames[:] = [d for d in dirnames if d not in ("op_kernel", "op_host", "tests")]
        elif "main.cpp" in filenames:
            _discover_launch(here, sorted(filenames), result)
    _flag_duplicate_names(result)
    _report_unclaimed(root, result)
    result.operators.sort(key=lambda o: (str(o.root), o.name))
    return result


def operator_root_of(path: Path, stop: Path | None = None) -> Path | None:
    """The folder `discover` would read as the operator holding `path` (the layouts above: a folder
    with op_kernel/ and op_host/, or one with main.cpp), looking no higher than `stop`."""
    for folder in [path.parent, *path.parent.parents]:
        if (folder / "op_kernel").is_dir() and (folder / "op_host").is_dir():
            return folder
        if (folder / "main.cpp").is_file():
            return folder
        if folder == stop or (stop is not None and stop not in folder.parents):
            return None
    return None


def _report_unclaimed(root: Path, result: Discovery) -> None:
    """Never silent: every `__global__` definition under `root` that did not become an operator
    gets an issue with its file, line and the reason."""
    claimed = {(str((op.root / op.files.kernel).resolve()), op.name) for op in result.operators}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        here = Path(dirpath)
        for fname in sorted(filenames):
            path = here / fname
            if not fname.endswith((*KERNEL_SUFFIXES, ".h", ".hpp")):
                continue
            try:
                if path.stat().st_size > _MAX_SOURCE_BYTES or b"__global__" not in path.read_bytes():
                    continue
            except OSError:
                continue
            src = _read(path, result.issues)
            if src is None:
                continue
            test_kernel = _in_operator_tests(here)
            for name, fn in extract.kernel_entries(src):
                if (str(path.resolve()), name) in claimed or str(path.resolve()) in result.variants:
                    continue
                reason = result.unclaimed.get((str(path.resolve()), name))
                if test_kernel:
                    reason = f"kernel entry {name!r} is in an operator's tests/ (a unit-test kernel)"
                result.issues.append(
                    Issue(
                        file=str(path),
                        line=fn.start_point[0] + 1,
                        severity="info" if test_kernel else "error",
                        code="not-understood",
                        message=reason or _why_unclaimed(here, name),
                    )
                )


def _in_operator_tests(folder: Path) -> bool:
    """Inside `<op>/tests/` of an operator folder (op_host/ + op_kernel/ beside tests/)."""
    for parent in (folder, *folder.parents):
        if (
            parent.name == "tests"
            and (parent.parent / "op_kernel").is_dir()
            and (parent.parent / "op_host").is_dir()
        ):
            return True
    return False


def _why_unclaimed(folder: Path, name: str) -> str:
    if folder.name == "op_kernel":
        return (
            f"kernel entry {name!r} is in op_kernel/ but was not read as an operator "
            "(the kernel is op_kernel/<op>.cpp beside op_host/<op>.cpp)"
        )
    if (folder / "main.cpp").exists():
        return f"kernel entry {name!r} is not launched from main.cpp"
    return (
        f"kernel entry {name!r} is outside every layout ascendopt reads: expected op_host/ + op_kernel/ "
        "(msOpGen, CANN open repos) or a main.cpp beside it that launches it (kernel launch)"
    )


def load_operator(path: Path, name: str | None = None, spec: Path | None = None) -> OperatorProject:
    """The one operator at `path` (or the one named `name` under it); KeyError if absent or ambiguous.
    `spec`: its spec kept outside the tree (`--spec`)."""
    if spec is not None and not spec.is_file():
        raise KeyError(f"no spec file {spec}")
    found = discover(path, [spec] if spec is not None else [])
    if spec is not None and not found.external_specs:
        problems = [str(i) for i in found.issues if Path(i.file) == spec]
        raise KeyError("\n".join(problems) or f"{spec}: not a usable spec")
    if name is not None:
        return found.find(name)
    here = [o for o in found.operators if o.root == path.resolve()] or found.operators
    if len(here) == 1:
        return here[0]
    if not here:
        detail = "; ".join(str(i) for i in found.issues) or "no kernel entry found"
        raise KeyError(f"no AscendC operator under {path}: {detail}")
    raise KeyError(f"{path} holds several operators ({', '.join(o.name for o in here)}); name one")


def _read(path: Path, issues: list[Issue]) -> CppSource | None:
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            issues.append(
                Issue(file=str(path), message="file is too large to be an operator source; skipped")
            )
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        issues.append(Issue(file=str(path), message=f"cannot read: {exc}"))
        return None
    return CppSource.parse(path.name, text)


def _rel(src: CppSource, root: Path, path: Path) -> CppSource:
    src.path = str(path.relative_to(root))
    return src


def _is_cann_open(root: Path) -> bool:
    hdir = root / "op_host"
    return any(hdir.glob("*_def.cpp")) or (
        any(hdir.glob("*_tiling*.cpp")) and not (hdir / f"{root.name}.cpp").exists()
    )


def _discover_cann_open(root: Path, result: Discovery) -> None:
    """A CANN open-repo operator folder: the OpDef in op_host/<op>_def.cpp names the kernel file per
    SoC; the spec's SoC (910B by default) picks which one is built, the others are its variants."""
    kdir, hdir = root / "op_kernel", root / "op_host"
    issues: list[Issue] = []
    def_path = next((p for p in sorted(hdir.glob("*_def.cpp"))), None)
    def_src = _read(def_path, issues) if def_path is not None else None
    if def_src is not None and def_path is not None:
        def_src = _rel(def_src, root, def_path)
    external = result.external_specs.get(root.name)
    soc = external[1].soc if external else _spec_soc(root)
    family = cann_open.soc_family(soc)
    choice = cann_open.kernel_choice(def_src, root.name, family)
    # op_kernel/<opFile>.cpp, or in the SoC's architecture folder (arch22/ for 910B, arch35/ for 950).
    arch = cann_open.ARCH_DIRS.get(family, "")
    places = [
        kdir / f"{choice.stem}.cpp",
        kdir / arch / f"{choice.stem}.cpp",
        kdir / arch / f"{root.name}.cpp",
    ]
    kpath = next((p for p in places if p.is_file()), places[0])
    if not kpath.exists() and (def_src is None or family in choice.socs):
        # The file the OpDef names is not there (or no OpDef names one): the one kernel file there is.
        plain = [p for p in sorted(kdir.glob("*.cpp")) if b"__global__" in p.read_bytes()]
        if len(plain) == 1:
            kpath = plain[0]
            why = f"op_kernel/{kpath.name}, the one kernel file ({choice.why})"
            choice = cann_open.KernelChoice(kpath.stem, why, {}, choice.socs)
    if choice.socs and family not in choice.socs:
        # An operator CANN builds only for other SoCs (a 950-only kernel): nothing for this one.
        for other in _kernel_sources(kdir):
            result.variants[str(other.resolve())] = f"built for {', '.join(choice.socs)}"
        result.issues.append(
            Issue(
                file=str(def_path or root),
                severity="warning",
                code="other-soc",
                message=f"{root.name}: the OpDef builds no kernel for {family} (it configures "
                f"{', '.join(choice.socs)}); set `soc` in the spec to one of those to use it",
            )
        )
        return
    ksrc = _read(kpath, result.issues) if kpath.exists() else None
    entries = extract.kernel_entries(_rel(ksrc, root, kpath)) if ksrc is not None else []
    if ksrc is None or not entries:
        result.issues.append(
            Issue(
                file=str(kpath if kpath.exists() else root),
                code="not-understood",
                message=f"no kernel entry in op_kernel/{choice.stem}.cpp ({choice.why})",
            )
        )
        return
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
    tiling_paths = cann_open.tiling_sources(root, family)
    preferred = hdir / f"{root.name}_tiling.cpp"
    host_path = (
        preferred
        if preferred.exists()
        else next((p for p in tiling_paths if not cann_open.is_arch_variant(str(p.relative_to(root)))), None)
    )
    if host_path is None and (hdir / f"{root.name}.cpp").exists():
        host_path = hdir / f"{root.name}.cpp"  # the older cann-ops: TilingFunc beside InferShape there
    files = OperatorFiles(kernel=ksrc.path)
    hsrc = dsrc = None
    if host_path is not None:
        hsrc = _read(host_path, issues)
        if hsrc is not None:
            hsrc = _rel(hsrc, root, host_path)
            files.host = hsrc.path
            issues.extend(hsrc.syntax_issues())
        files.host_sources = [str(p.relative_to(root)) for p in tiling_paths if p != host_path]
    else:
        issues.append(
            Issue(
                file=ksrc.path,
                message=f"no tiling program: expected op_host/{root.name}_tiling.cpp or {root.name}.cpp",
            )
        )
    for data_path in (
        kdir / f"{choice.stem}_tiling_data.h",
        kdir / f"{root.name}_tiling_data.h",
        hdir / f"{root.name}_tiling.h",
        hdir / f"{root.name}_tiling_def.h",  # ops-math is_inf & co
    ):
        if data_path.exists():
            dsrc = _read(data_path, issues)
            if dsrc is not None:
                dsrc = _rel(dsrc, root, data_path)
                files.tiling_data = dsrc.path
            break
    if def_src is not None:
        files.opdef = def_src.path
    issues.extend(ksrc.syntax_issues())
    name, fn = entries[0]
    _build(root, name, "cann_open", files, ksrc, fn, hsrc, dsrc, issues, result, opdef_src=def_src or hsrc)


def _kernel_sources(kdir: Path) -> list[Path]:
    """Kernel files of every architecture: op_kernel/*.cpp, and per-architecture sources and headers
    (`arch35/…`) that hold an entry of their own."""
    top = sorted(kdir.glob("*.cpp"))
    nested = [p for p in sorted(kdir.rglob("*")) if p.parent != kdir and p.suffix in (".cpp", ".h", ".hpp")]
    return [*top, *nested]


def _spec_soc(root: Path) -> str:
    """The SoC of the operator's spec (read leniently: a broken spec is reported later), else 910B."""
    for candidate in sorted(root.glob(f"*{SPEC_FILE}")):
        try:
            return load_spec(candidate).soc
        except (SpecError, OSError, ValueError):
            continue
    return cann_open.DEFAULT_SOC


def _discover_opdir(root: Path, result: Discovery) -> None:
    if _is_cann_open(root):
        _discover_cann_open(root, result)
        return
    kdir, hdir = root / "op_kernel", root / "op_host"
    for kpath in sorted(kdir.glob("*.cpp")):
        issues: list[Issue] = []
        ksrc = _read(kpath, result.issues)
        if ksrc is None:
            continue
        ksrc = _rel(ksrc, root, kpath)
        entries = extract.kernel_entries(ksrc)
        if not entries:
            continue
        stem = kpath.stem
        if (hdir / f"{stem}_tiling.cpp").exists() or (kdir / f"{stem}_tiling_data.h").exists():
            layout: Layout = "cann_open"
            host_path = hdir / f"{stem}_tiling.cpp"
            data_path = kdir / f"{stem}_tiling_data.h"
        else:
            layout = "msopgen"
            host_path = hdir / f"{stem}.cpp"
            data_path = hdir / f"{stem}_tiling.h"
        issues.extend(ksrc.syntax_issues())
        files = OperatorFiles(kernel=str(kpath.relative_to(root)))
        hsrc = dsrc = None
        if host_path.exists():
            hsrc = _read(host_path, issues)
            if hsrc is not None:
                hsrc = _rel(hsrc, root, host_path)
                files.host = hsrc.path
                issues.extend(hsrc.syntax_issues())
        else:
            issues.append(
                Issue(
                    file=files.kernel,
                    line=1,
                    message=f"no tiling program: expected {host_path.relative_to(root)}",
                )
            )
        if data_path.exists():
            dsrc = _read(data_path, issues)
            if dsrc is not None:
                dsrc = _rel(dsrc, root, data_path)
                files.tiling_data = dsrc.path
                issues.extend(dsrc.syntax_issues())
        elif layout == "msopgen":
            issues.append(
                Issue(
                    file=files.kernel,
                    line=1,
                    message=f"no tiling data layout: expected {data_path.relative_to(root)}",
                )
            )
        name, fn = entries[0]
        for extra_name, extra_fn in entries[1:]:
            issues.append(
                Issue(
                    file=ksrc.path,
                    line=extra_fn.start_point[0] + 1,
                    severity="warning",
                    message=f"second kernel entry {extra_name!r} in one file; only {name!r} is used",
                )
            )
        _build(root, name, layout, files, ksrc, fn, hsrc, dsrc, issues, result)
    # A tiling program with no kernel beside it.
    for hpath in sorted(hdir.glob("*.cpp")):
        stem = hpath.stem.removesuffix("_tiling")
        looks_like_tiling = hpath.stem != stem or (hdir / f"{stem}_tiling.h").exists()
        if looks_like_tiling and not (kdir / f"{stem}.cpp").exists():
            result.issues.append(
                Issue(
                    file=str(hpath),
                    line=1,
                    message=f"tiling program without a kernel: expected op_kernel/{stem}.cpp",
                )
            )


def _discover_launch(root: Path, filenames: list[str], result: Discovery) -> None:
    """A kernel-launch sample: kernels in this folder, launched from main.cpp (launch.py's forms)."""
    main = _read(root / "main.cpp", result.issues)
    if main is None:
        return
    main = _rel(main, root, root / "main.cpp")
    kernels: list[tuple[CppSource, list[tuple[str, Node]]]] = []
    wrappers: dict[str, launch.Wrapper] = {}
    for fname in filenames:
        if not fname.endswith(KERNEL_SUFFIXES) or fname == "main.cpp":
            continue
        ksrc = _read(root / fname, result.issues)
        if ksrc is None:
            continue
        ksrc = _rel(ksrc, root, root / fname)
        entries = extract.kernel_entries(ksrc)
        if entries:
            kernels.append((ksrc, entries))
            wrappers.update(launch.wrappers_in(ksrc))
    sites = launch.launch_sites(main, wrappers)
    bindings = launch.file_bindings(main)
    kernel_files = {"main.cpp", *(k.path for k, _ in kernels)}
    for ksrc, entries in kernels:
        for name, fn in entries:
            mine = [s for s in sites if s.kernel == name]
            if not mine:
                result.unclaimed[(str((root / ksrc.path).resolve()), name)] = (
                    f"kernel entry {name!r} is not launched from main.cpp "
                    "(looked for k<<<…>>>(…), ACLRT_LAUNCH_KERNEL(k)(…), ICPU_RUN_KF(k, …) "
                    "and k_do(…) wrappers)"
                )
                continue
            # The CPU-debug launch binds the host variables main.cpp reads and writes files with.
            site = next((s for s in mine if s.form == "ICPU_RUN_KF"), mine[0])
            issues: list[Issue] = list(ksrc.syntax_issues())
            host_program = _host_program(main, site, [f for f in filenames if f not in kernel_files])
            files = OperatorFiles(
                kernel=ksrc.path, host=main.path, host_sources=host_program.sources if host_program else []
            )
            block_dim = launch.int_value(site.block_dim, main)
            own_bindings = launch.file_bindings(main, keep_handed=True) if host_program else bindings
            tiling = TilingProgram(
                function="main",
                range=main.range_of(site.token.node),
                sets_block_dim=True,
                sets_tiling_key=False,
                block_dim_expr=site.block_dim,
                block_dim=block_dim,
                launch=site.form,
                host_program=host_program,
            )
            if block_dim is None:
                issues.append(
                    Issue(
                        file=main.path,
                        line=site.line,
                        severity="warning",
                        message=f"block dim {site.block_dim!r} of the launch is not a constant main.cpp "
                        "determines; set block_dim in ascendopt.toml",
                    )
                )
            op = _build(
                root,
                name,
                "kernel_launch",
                files,
                ksrc,
                fn,
                main,
                None,
                issues,
                result,
                tiling=tiling,
                launch_site=(site, own_bindings),
            )
            knob = launch_block_dim_knob(main, site.block_dim, {s.line for s in mine}, ksrc)
            if knob is not None and all(k.range != knob.range for k in op.knobs):
                op.knobs.append(knob)


def _host_program(main: CppSource, site: launch.LaunchSite, others: list[str]) -> HostProgram | None:
    """main.cpp's own host code fills what its CPU-debug launch passes (`GenerateTiling(…, tilingBuf)`, then
    `memcpy_s(tiling, …, tilingBuf, …)`): the twin then runs main.cpp itself, with its other host sources."""
    if site.form != "ICPU_RUN_KF":
        return None  # no CPU-debug launch: main.cpp cannot run on the twin
    handed = launch.handed_to_host_code(main)
    used = [handed[v] for arg in site.args for v in reversed(arg.split()) if v in handed]
    if not used:
        return None
    calls = list(dict.fromkeys(f"{callee}(…) at {main.path}:{line}" for callee, line in used))
    sources = sorted(f for f in others if f.endswith((".cpp", ".cc")) and "/" not in f)
    return HostProgram(calls=calls, line=used[0][1], files=launch.file_paths(main), sources=sources)


def _bind_params(kernel: KernelEntry, site: launch.LaunchSite, bindings: dict[str, tuple[str, str]]) -> None:
    """Roles and tensor names from main.cpp's files: an argument filled by ReadFile is an input,
    one written by WriteFile an output (names from `./input/input_x.bin`)."""
    kernel.template_args = site.template_args
    if len(site.args) != len(kernel.params):
        return
    for param, arg in zip(kernel.params, site.args, strict=True):
        # `x`, `(uint8_t *)&inputDesc`, `*reinterpret_cast<AddCustomTilingData *>(tiling)`
        var = next((w for w in reversed(arg.split()) if w in bindings), None)
        if var is not None:
            role, tensor = bindings[var]
            param.role = role  # type: ignore[assignment]
            param.tensor = tensor


def _build(
    root: Path,
    name: str,
    layout: Layout,
    files: OperatorFiles,
    ksrc: CppSource,
    kfn: object,
    hsrc: CppSource | None,
    dsrc: CppSource | None,
    issues: list[Issue],
    result: Discovery,
    tiling: TilingProgram | None = None,
    launch_site: tuple[launch.LaunchSite, dict[str, tuple[str, str]]] | None = None,
    opdef_src: CppSource | None = None,
) -> OperatorProject:
    spec_dir: Path | None = None
    external: Path | None = None
    spec: OperatorSpec | None
    if name in result.external_specs:
        external, spec = result.external_specs[name]
        spec_dir = external.parent
        spec_file = str(external)
    else:
        spec = _spec_for(root, name, files, issues)
        spec_file = files.spec or SPEC_FILE
    opdef_src = opdef_src or hsrc
    opdef = extract.opdef_info(opdef_src) if opdef_src is not None and layout != "kernel_launch" else None
    inputs = [t.name for t in opdef.inputs] if opdef else [t.name for t in spec.inputs] if spec else []
    outputs = [t.name for t in opdef.outputs] if opdef else [t.name for t in spec.outputs] if spec else []
    kernel: KernelEntry = extract.kernel_entry(ksrc, kfn, name, inputs, outputs)  # type: ignore[arg-type]
    if launch_site is not None:
        _bind_params(kernel, *launch_site)
    kernel.tiling_key_template = (
        layout != "kernel_launch" and kernel.template is not None and not kernel.template_args
    )
    runs_main = tiling is not None and tiling.host_program is not None
    if runs_main and tiling is not None and tiling.host_program is not None and hsrc is not None:
        issues.append(_runs_main_note(hsrc, tiling.host_program))
    else:
        issues.extend(_unsupported(kernel, ksrc.path, hsrc if launch_site is not None else None, launch_site))
    if tiling is None and hsrc is not None:
        tiling = extract.tiling_program(hsrc, ("TilingFunc", *extract.registered_tiling_functions(hsrc)))
        if tiling is None:
            issues.append(
                Issue(
                    file=hsrc.path,
                    line=1,
                    message="no tiling program found (a function calling SetBlockDim / SaveToBuffer)",
                )
            )
    struct, fields = None, list[TilingField]()
    if dsrc is not None:
        if layout == "msopgen" or "BEGIN_TILING_DATA_DEF" in dsrc.text:
            struct, fields, _ = extract.macro_tiling_fields(dsrc)
        else:
            struct, fields = extract.struct_tiling_fields(dsrc)
    consts: list[Constant] = []
    knobs: list[Knob] = []
    sources: list[tuple[CppSource, Side]] = [(ksrc, "kernel")]
    if hsrc is not None:
        sources.insert(0, (hsrc, "host"))
    if dsrc is not None and dsrc is not hsrc:
        sources.append((dsrc, "host"))
    # A kernel-launch sample whose main.cpp runs: its own host sources (`*_tiling.cpp`) are tiling code too.
    own_host = tiling.host_program.sources if tiling is not None and tiling.host_program is not None else []
    for rel in own_host:
        if (h := _read(root / rel, issues)) is not None:
            sources.append((_rel(h, root, root / rel), "host"))
    # The kernel's class and the host's helpers live in headers beside them (op_kernel/<op>.h).
    # Constants count where the build compiles them: the kernel with the SoC's architecture macros.
    arch = dict(resolve_soc(None, None, spec).arch)
    scanned = {s.path for s, _ in sources}
    host_starts = [s for s in (hsrc.path if hsrc else None, *files.host_sources) if s]
    host_starts = [s for s in host_starts if not cann_open.is_arch_variant(s)]
    elsewhere: dict[str, str] = {}  # a header another operator owns (a kernel's ../rms_norm/x.h) → the file
    for rel, (side, real) in knob_headers(root, [ksrc.path], host_starts, arch).items():
        header = _read(real, issues) if rel not in scanned else None
        if header is not None:
            sources.append((_rel(header, root, root / rel), side))
            if real != (root / rel).resolve():
                elsewhere[rel] = os.path.relpath(real, root.resolve())
    for src, side_t in sources:
        c = extract.constants(src, side_t)
        consts.extend(c)
        found = knobs_of(src, side_t, c, issues, arch if side_t == "kernel" else {})
        for k in found if src.path in elsewhere else []:
            k.constraints.append(
                f"{src.path} is {elsewhere[src.path]}, another operator's header: "
                "that operator builds with it too"
            )
        knobs.extend(found)
    knobs = merge_knobs(knobs)
    if spec is not None:
        issues.extend(_spec_vs_kernel(spec, kernel, spec_file, spec_dir or root))
    if spec is not None and spec_dir is None and (root / spec.reference.split(":", 1)[0]).exists():
        files.extra.append(spec.reference.split(":", 1)[0])
    named = set(files.named())
    files.context = [rel for rel in project_files(root, layout) if rel not in named]
    soc = spec.soc if spec is not None else _spec_soc(root)
    in_repo = layout != "kernel_launch"
    repo = _repo_context(root, files, issues, soc, layout == "cann_open") if in_repo else None
    op = OperatorProject(
        name=name,
        root=root,
        layout=layout,
        files=files,
        kernel=kernel,
        tiling=tiling,
        tiling_struct=struct,
        tiling_fields=fields,
        opdef=opdef,
        constants=consts,
        knobs=knobs,
        spec=spec,
        issues=issues,
        repo=repo,
        external_spec=external,
    )
    result.operators.append(op)
    return op


def _repo_context(
    root: Path, files: OperatorFiles, issues: list[Issue], soc: str, open_repo: bool = True
) -> RepoContext | None:
    """The repository around an open-repo operator, and the files its build reads there (the include
    closure of the operator's sources, at their repo-relative places), added to `files.context`.

    An msOpGen-shaped operator (`open_repo` false) gets one only when its sources reach headers of
    the repository (the older cann-ops: `src/<family>/<op>/` including `log/ops_log.h` from
    `src/common/inc`); one that reads only its own folder builds as it always did."""
    repo = cann_open.find_repo_root(root)
    if repo is None:
        return None
    prefix = root.resolve().relative_to(repo).as_posix()
    include_dirs = cann_open.repo_include_dirs(repo)
    local = [d for d in ("op_kernel", "op_host", ".") if (root / d).is_dir()]
    from_op = [posixpath.relpath(d or ".", prefix) for d in include_dirs]
    # What the build compiles: the named sources and the headers beside them (not tests/, examples/).
    sources = [
        f
        for f in files.all()
        if f.endswith((".cpp", ".cc", ".h", ".hpp", ".inc"))
        and (f in files.named() or (f.startswith(("op_kernel/", "op_host/")) and "/op_api/" not in f))
    ]
    closure, missing = cann_open.include_closure(root, repo, sources, [*local, *from_op])
    if not open_repo and not any(key.startswith("../") for key in closure):
        return None
    # What the carried host headers declare may be defined elsewhere in the repo (CANN's one host
    # library): those sources are linked too, with what they include in turn.
    links: dict[str, Path] = {}
    while new := {
        k: v for k, v in cann_open.definition_sources(root, repo, closure).items() if k not in links
    }:
        links |= new
        more, more_missing = cann_open.include_closure(root, repo, list(new), [*local, *from_op])
        closure |= more
        missing += more_missing
    markers = cann_open.repo_markers(root, repo)
    known = set(files.all())
    files.context += [rel for rel in sorted({**closure, **links, **markers}) if rel not in known]
    unresolved = [
        MissingInclude(header=m.header, file=m.file, line=m.line, searched=m.searched) for m in missing
    ]
    family = cann_open.soc_family(soc)
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


def _runs_main_note(main: CppSource, program: HostProgram) -> Issue:
    return Issue(
        file=main.path,
        line=program.line,
        severity="info",
        message="main.cpp's own host code fills what the kernel gets ("
        + ", ".join(program.calls)
        + "): the CPU twin builds and runs main.cpp in CPU-debug mode, as `run.sh -r cpu` does, with "
        + (" and ".join(program.sources) if program.sources else "no other host source")
        + ". Shapes are the ones main.cpp fixes; the cases cannot vary them",
    )


def _unsupported(
    kernel: KernelEntry,
    path: str,
    main: CppSource | None = None,
    launch_site: tuple[launch.LaunchSite, dict[str, tuple[str, str]]] | None = None,
) -> list[Issue]:
    """What the CPU twin cannot launch yet, on the line that causes it (verify refuses these)."""
    out = []
    line = kernel.range.start_line
    handed = launch.handed_to_host_code(main) if main is not None else {}
    args = launch_site[0].args if launch_site is not None else []
    for i, p in enumerate(kernel.params):
        var = next((w for w in reversed(args[i].split()) if w in handed), None) if i < len(args) else None
        if p.role == "tiling" and main is not None and var is not None:
            callee, at = handed[var]
            out.append(
                Issue(
                    file=main.path,
                    line=at,
                    code="unsupported",
                    message=f"the tiling buffer `{p.name}` of {kernel.name} is filled by main.cpp's host "
                    f"code here ({callee}(…) into what the launch passes as `{var}`): the CPU twin runs no "
                    "host code of a kernel-launch sample, so the kernel would read no tiling. To verify "
                    "here, have scripts/gen_data.py write those bytes to an ./input file and ReadFile them "
                    f"into `{var}`",
                )
            )
            continue
        if not p.by_value or p.role == "input":  # an input read from a file is passed by its bytes
            continue
        if main is not None and var is not None:
            callee, at = handed[var]
            out.append(
                Issue(
                    file=main.path,
                    line=at,
                    code="unsupported",
                    message=f"parameter `{p.type} {p.name}` of {kernel.name} is passed by value and "
                    f"main.cpp fills it in code here ({callee}(…{var}…)): the CPU twin runs the kernel with "
                    "bytes from an ./input file, not main.cpp's host code. To verify here, have "
                    f"scripts/gen_data.py write the finished struct to the file main.cpp reads into `{var}` "
                    "and drop the call",
                )
            )
            continue
        out.append(
            Issue(
                file=path,
                line=line,
                code="unsupported",
                message=f"parameter `{p.type} {p.name}` of {kernel.name} is passed by value and "
                "main.cpp fills it in code, not from an ./input file: the CPU twin cannot make it",
            )
        )
    if kernel.template is not None and kernel.template_args is None and not kernel.tiling_key_template:
        out.append(
            Issue(
                file=path,
                line=line,
                code="unsupported",
                message=f"kernel entry {kernel.name} is a template {kernel.template} and no launch names "
                "its template arguments (tiling-key instantiation via ASCENDC_TPL_SEL is not modelled)",
            )
        )
    return out




def _spec_for(root: Path, name: str, files: OperatorFiles, issues: list[Issue]) -> OperatorSpec | None:
    for candidate in (root / f"{name}.{SPEC_FILE}", root / SPEC_FILE):
        if not candidate.exists():
            continue
        try:
            spec = load_spec(candidate)
        except SpecError as exc:
            for issue in exc.issues:
                issue.file = str(candidate.relative_to(root))
            issues.extend(exc.issues)
            files.spec = str(candidate.relative_to(root))
            return None
        if spec.name != name and candidate.name == SPEC_FILE and (root / f"{spec.name}.{SPEC_FILE}").exists():
            continue
        if spec.name != name:
            continue
        files.spec = str(candidate.relative_to(root))
        return spec
    return None


def _spec_vs_kernel(spec: OperatorSpec, kernel: KernelEntry, spec_file: str, root: Path) -> list[Issue]:
    issues = []
    for role, declared in (("input", spec.inputs), ("output", spec.outputs)):
        got = kernel.names(role)  # type: ignore[arg-type]
        if len(got) != len(declared):
            issues.append(
                Issue(
                    file=spec_file,
                    line=1,
                    message=f"the spec declares {len(declared)} {role}(s) "
                    f"({', '.join(t.name for t in declared)}) but kernel {kernel.name} "
                    f"takes {len(got)} ({', '.join(got) or 'none'})",
                )
            )
    try:
        index = TomlLineIndex((root / spec_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        index = TomlLineIndex("")
    line = index.line_of(("reference",))
    for message in reference_problems(root, spec.reference):
        issues.append(Issue(file=spec_file, line=line, message=message))
    return issues


def reference_problems(root: Path, reference: str) -> list[str]:
    """What is wrong with `file.py:function`, read without running it (a syntax error is the
    reference's own to report, at its line, when it runs)."""
    ref_file, _, func = reference.partition(":")
    path = root / ref_file
    if not path.is_file():
        return [f"reference file {ref_file} does not exist"]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
        return []
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    if func not in defined:
        return [f"reference file {ref_file} defines no function {func!r} (reference = {reference!r})"]
    return []


def _flag_duplicate_names(result: Discovery) -> None:
    by_name: dict[str, list[OperatorProject]] = {}
    for op in result.operators:
        by_name.setdefault(op.name, []).append(op)
    for name, ops in by_name.items():
        if len(ops) < 2:
            continue
        for op in ops:
            others = ", ".join(str(o.root / o.files.kernel) for o in ops if o is not op)
            # Two projects of a library may share a kernel name (Huawei's samples do): each is still
            # usable from its own folder. Two in one project folder cannot be told apart.
            shared = any(o.root == op.root for o in ops if o is not op)
            op.issues.append(
                Issue(
                    file=op.files.kernel,
                    line=op.kernel.range.start_line,
                    severity="error" if shared else "warning",
                    message=f"kernel name {name!r} is also claimed by {others}"
                    + ("" if shared else "; name this one by its folder"),
                    code="duplicate",
                )
            )
