"""The kernel-launch layout (Huawei's kernel-launch samples): a kernel `.cpp` in a folder whose
`main.cpp` launches it (`k<<<…>>>`, ACLRT_LAUNCH_KERNEL, ICPU_RUN_KF, or a `k_do` wrapper; read by
launch.py). Roles and tensor names come from the files main.cpp reads and writes; the block dim from
the launch. When main.cpp's own host code fills what the kernel gets, the twin runs main.cpp itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tree_sitter import Node

from ascendopt.operators import extract, launch
from ascendopt.operators.assemble import assemble
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import launch_block_dim_knob
from ascendopt.operators.model import HostProgram, Layout, OperatorFiles, OperatorProject, TilingProgram
from ascendopt.operators.sources import KERNEL_SUFFIXES, read_source, relative

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


class KernelLaunch:
    name: str = "kernel_launch"
    carries: Layout = "kernel_launch"
    owns: tuple[str, ...] = ()

    def matches(self, folder: Path) -> bool:
        """A main.cpp listed in the folder (as a directory walk lists it), outside an operator folder
        of the other layouts (op_kernel/ + op_host/)."""
        main = folder / "main.cpp"
        if not os.path.lexists(main) or main.is_dir():
            return False
        return not ((folder / "op_kernel").is_dir() and (folder / "op_host").is_dir())

    def describe(self, folder: Path, found: Discovery) -> list[OperatorProject]:
        return _describe(folder, _file_names(folder), found)


def _file_names(folder: Path) -> list[str]:
    """The folder's files (not folders), sorted, as os.walk lists them."""
    out = []
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                out.append(entry.name)
    return sorted(out)


def _describe(
    root: Path, filenames: list[str], result: Discovery, host: Host | None = None
) -> list[OperatorProject]:
    """A kernel-launch sample: kernels in this folder, launched from main.cpp (launch.py's forms), or
    from another host file `host` reads (a torch extension's pybind11.cpp)."""
    host = host or Host()
    main = read_source(root / host.file, result.issues)
    if main is None:
        return []
    main = relative(main, root, root / host.file)
    ops: list[OperatorProject] = []
    kernels: list[tuple[CppSource, list[tuple[str, Node]]]] = []
    wrappers: dict[str, launch.Wrapper] = {}
    for fname in filenames:
        if not fname.endswith(KERNEL_SUFFIXES) or fname == host.file:
            continue
        ksrc = read_source(root / fname, result.issues)
        if ksrc is None:
            continue
        ksrc = relative(ksrc, root, root / fname)
        entries = extract.kernel_entries(ksrc)
        if entries:
            kernels.append((ksrc, entries))
            wrappers.update(launch.wrappers_in(ksrc))
    sites = launch.launch_sites(main, wrappers)
    bindings = host.bindings(main)
    kernel_files = {host.file, *(k.path for k, _ in kernels)}
    for ksrc, entries in kernels:
        for name, fn in entries:
            mine = [s for s in sites if s.kernel == name]
            if not mine:
                result.unclaimed[(str((root / ksrc.path).resolve()), name)] = (
                    f"kernel entry {name!r} is not launched from {host.file} "
                    "(looked for k<<<…>>>(…), ACLRT_LAUNCH_KERNEL(k)(…), ICPU_RUN_KF(k, …) "
                    "and k_do(…) wrappers)"
                )
                continue
            # The CPU-debug launch binds the host variables main.cpp reads and writes files with.
            site = next((s for s in mine if s.form == "ICPU_RUN_KF"), mine[0])
            issues: list[Issue] = list(ksrc.syntax_issues())
            others = [f for f in filenames if f not in kernel_files]
            host_program = host.program(main, site, others, ksrc, wrappers)
            files = OperatorFiles(
                kernel=ksrc.path, host=main.path, host_sources=host_program.sources if host_program else []
            )
            block_dim = launch.int_value(site.block_dim, main)
            own_bindings = host.bindings(main, keep_handed=True) if host_program else bindings
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
                        message=f"block dim {site.block_dim!r} of the launch is not a constant {host.file} "
                        "determines; set block_dim in ascendopt.toml",
                    )
                )
            op = assemble(
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
                launch_site=(host.site(site), own_bindings),
            )
            knob = launch_block_dim_knob(main, site.block_dim, {s.line for s in mine}, ksrc)
            if knob is not None and all(k.range != knob.range for k in op.knobs):
                op.knobs.append(knob)
            ops.append(op)
    return ops


class Host:
    """The host file that launches the kernels and how it is read: main.cpp by default (tensors named by
    the files it reads and writes, run when its CPU-debug code fills what the kernel gets); the torch
    extension layout reads its pybind11.cpp through a subclass."""

    file: str = "main.cpp"

    def bindings(self, main: CppSource, keep_handed: bool = False) -> dict[str, tuple[str, str]]:
        return launch.file_bindings(main, keep_handed=keep_handed)

    def program(
        self,
        main: CppSource,
        site: launch.LaunchSite,
        others: list[str],
        ksrc: CppSource,
        wrappers: dict[str, launch.Wrapper],
    ) -> HostProgram | None:
        return _host_program(main, site, others)

    def site(self, site: launch.LaunchSite) -> launch.LaunchSite:
        return site


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


def with_candidate_block_dim(project: OperatorProject, files: dict[str, str]) -> OperatorProject:
    """The project as a candidate launches it: a kernel-launch sample's block dim is whatever the
    candidate's main.cpp makes it (the block-dim knob rewrites main.cpp, not the spec)."""
    tiling = project.tiling
    main = files.get(project.files.host or "")
    if project.layout != "kernel_launch" or tiling is None or not tiling.block_dim_expr or main is None:
        return project
    value = launch.int_value(tiling.block_dim_expr, CppSource.parse(project.files.host or "main.cpp", main))
    if value is None or value == tiling.block_dim:
        return project
    return project.model_copy(update={"tiling": tiling.model_copy(update={"block_dim": value})})
