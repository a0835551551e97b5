"""The msOpGen layout (a custom-op project, and the older cann-ops repository's operator folders):
`op_host/<op>.cpp` (TilingFunc + OpDef), `op_host/<op>_tiling.h` (BEGIN_TILING_DATA_DEF…),
`op_kernel/<op>.cpp`, one operator per kernel file. A kernel with `op_host/<op>_tiling.cpp` or
`op_kernel/<op>_tiling_data.h` beside it is read with those, as an open-repo operator.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ascendopt.operators import extract
from ascendopt.operators.assemble import assemble
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue
from ascendopt.operators.layouts.cann_open import is_open_repo_operator
from ascendopt.operators.model import Layout, OperatorFiles, OperatorProject
from ascendopt.operators.repository import is_arch_variant
from ascendopt.operators.scope import _SOURCE_SUFFIXES
from ascendopt.operators.sources import read_source, relative

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


class MsOpGen:
    name: str = "msopgen"
    carries: Layout = "msopgen"
    owns: tuple[str, ...] = ("op_kernel", "op_host", "tests")  # an operator's own tests hold no operator

    def matches(self, folder: Path) -> bool:
        opdir = (folder / "op_kernel").is_dir() and (folder / "op_host").is_dir()
        return opdir and not is_open_repo_operator(folder)

    def describe(self, folder: Path, found: Discovery) -> list[OperatorProject]:
        return _describe(folder, found)


def _camel(stem: str) -> str:
    return "".join(part.capitalize() for part in stem.split("_"))


def registering_header(hdir: Path, stem: str, hsrc: CppSource | None) -> Path | None:
    """The op_host header whose REGISTER_TILING_DATA_CLASS names this operator's type (the OpDef's
    `OP_ADD(<Type>)` in its host program, else the kernel stem in CamelCase); headers the host program
    includes are searched first. None: no header in op_host/ registers it."""
    types = {_camel(stem)}
    if hsrc is not None:
        types.update(re.findall(r"\bOP_ADD\s*\(\s*(\w+)", hsrc.text))
    included = set(re.findall(r'#\s*include\s*"([^"]+)"', hsrc.text)) if hsrc is not None else set()
    headers = sorted(p for p in hdir.glob("*.h") if p.is_file())
    headers.sort(key=lambda p: p.name not in included)
    for header in headers:
        text = header.read_text(errors="replace")
        if "REGISTER_TILING_DATA_CLASS" not in text:
            continue
        for op_type, _struct in re.findall(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", text):
            if op_type in types:
                return header
    return None


def _describe(root: Path, result: Discovery) -> list[OperatorProject]:
    ops: list[OperatorProject] = []
    kdir, hdir = root / "op_kernel", root / "op_host"
    for kpath in sorted(kdir.glob("*.cpp")):
        issues: list[Issue] = []
        ksrc = read_source(kpath, result.issues)
        if ksrc is None:
            continue
        ksrc = relative(ksrc, root, kpath)
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
            hsrc = read_source(host_path, issues)
            if hsrc is not None:
                hsrc = relative(hsrc, root, host_path)
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
        if layout == "msopgen" and hsrc is not None:
            # The tiling function registered in another op_host source the host program does not include
            # (NPUKernelBench FeedsRepeat: IMPL_OP_OPTILING in feeds_repeat_tiling.cc): linked with it, as
            # CANN's CMake lists it. InferShape-only sources (its _proto.cc) stay out: the reference sizes
            # the outputs, and they pull in graph-engine headers the twin does not have.
            files.host_sources = [
                str(p.relative_to(root))
                for p in sorted(hdir.iterdir())
                if p.suffix in _SOURCE_SUFFIXES
                and p != host_path
                and p.name not in hsrc.text
                and "IMPL_OP_OPTILING" in p.read_text(errors="replace")
            ]
        if not data_path.exists() and layout == "msopgen":
            # A grad or variant operator registering a sibling's struct from the sibling's header
            # (`REGISTER_TILING_DATA_CLASS(FooGrad, FooTilingData)` in op_host/foo_tiling.h).
            data_path = registering_header(hdir, stem, hsrc) or data_path
        if data_path.exists():
            dsrc = read_source(data_path, issues)
            if dsrc is not None:
                dsrc = relative(dsrc, root, data_path)
                files.tiling_data = dsrc.path
                issues.extend(dsrc.syntax_issues())
        elif layout == "msopgen":
            issues.append(
                Issue(
                    file=files.kernel,
                    line=1,
                    message=f"no tiling data layout: expected {data_path.relative_to(root)}, or a header"
                    f" in op_host/ registering {_camel(stem)} (REGISTER_TILING_DATA_CLASS)",
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
        ops.append(assemble(root, name, layout, files, ksrc, fn, hsrc, dsrc, issues, result))
    # Per-SoC variants (`op_kernel/arch35/…`, `op_host/arch35/…`, as the open repos keep them): not
    # what a 910B build compiles; noted on the operator of their stem (else the first), never unclaimed.
    for folder in (kdir, hdir):
        for other in sorted(folder.rglob("*")):
            rel = str(other.relative_to(root))
            if (
                other.parent == folder
                or other.suffix not in (".cpp", ".h", ".hpp")
                or not is_arch_variant(rel)
            ):
                continue
            note = f"per-SoC variant ({rel}): built for another architecture than the 910B family's"
            result.variants[str(other.resolve())] = note
            owner = next((o for o in ops if Path(o.files.kernel).stem == other.stem), ops[0] if ops else None)
            if owner is not None and b"__global__" in other.read_bytes():
                owner.issues.append(Issue(file=rel, severity="info", code="variant", message=note))
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
    return ops
