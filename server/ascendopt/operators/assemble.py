"""The shared half of discovery: an OperatorProject assembled from the sources a layout found
(layouts/): the kernel entry and its parameters' roles, the tiling program and its data layout,
the OpDef, constants and knobs (headers followed as the SoC's build compiles them), the spec and
the repository context. Every layout ends in `assemble`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ascendopt.operators import checks, dataflow, domains, extract, launch
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue, SpecError
from ascendopt.operators.knobs import core_cap_knobs, knob_headers, knobs_of, merge_knobs
from ascendopt.operators.model import (
    Constant,
    KernelEntry,
    Knob,
    Layout,
    OperatorFiles,
    OperatorProject,
    RefusedConstant,
    Side,
    TilingField,
    TilingProgram,
)
from ascendopt.operators.project_files import project_files
from ascendopt.operators.repository import is_arch_variant, repo_context
from ascendopt.operators.soc import DEFAULT_SOC, resolve_soc
from ascendopt.operators.sources import read_source, relative
from ascendopt.operators.spec import SPEC_FILE, OperatorSpec, load_spec

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


def assemble(
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
    """The operator a layout found (kernel entry `name` in `ksrc`, tiling program `hsrc`, tiling data
    `dsrc`); problems go to its `issues`. `result`: the discovery so far (the specs kept outside the tree)."""
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
        issues.append(checks.runs_main_note(hsrc, tiling.host_program))
    else:
        main = hsrc if launch_site is not None else None
        issues.extend(checks.unsupported(kernel, ksrc.path, main, launch_site))
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
            op_type = "".join(part.capitalize() for part in name.split("_"))
            struct, fields, _ = extract.macro_tiling_fields(dsrc, op_type)
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
        if (h := read_source(root / rel, issues)) is not None:
            sources.append((relative(h, root, root / rel), "host"))
    # The kernel's class and the host's helpers live in headers beside them (op_kernel/<op>.h).
    # Constants count where the build compiles them: the kernel with the SoC's architecture macros.
    arch = dict(resolve_soc(None, None, spec).arch)
    scanned = {s.path for s, _ in sources}
    host_starts = [s for s in (hsrc.path if hsrc else None, *files.host_sources) if s]
    host_starts = [s for s in host_starts if not is_arch_variant(s)]
    elsewhere: dict[str, str] = {}  # a header another operator owns (a kernel's ../rms_norm/x.h) → the file
    for rel, (side, real) in knob_headers(root, [ksrc.path], host_starts, arch).items():
        header = read_source(real, issues) if rel not in scanned else None
        if header is not None:
            sources.append((relative(header, root, root / rel), side))
            if real != (root / rel).resolve():
                elsewhere[rel] = os.path.relpath(real, root.resolve())
    # Knobs by dataflow: every constant's value followed through all the sources at once (a host
    # constant reaches the kernel's buffers through the tiling data).
    # On the host also the tiling function's literal-initialised locals and its reads of the
    # platform's core count (a cap on the cores used).
    per_source = [
        (
            src,
            side_t,
            extract.constants(src, side_t),
            [
                *extract.more_constants(src, side_t),
                *(extract.local_literals(src, side_t) if side_t == "host" else []),
            ],
        )
        for src, side_t in sources
    ]
    core_reads = [
        (src, c) for src, side_t in sources if side_t == "host" for c in extract.core_count_reads(src, side_t)
    ]
    considered = [(src, c) for src, _, a, b in per_source for c in (*a, *b)]
    flow = dataflow.analyze(sources, [*considered, *core_reads])
    refused: list[RefusedConstant] = []
    for src, side_t, c, more in per_source:
        consts.extend(c)
        found = knobs_of(
            src, side_t, [*c, *more], issues, arch if side_t == "kernel" else {}, flow.verdicts, refused
        )
        for k in found if src.path in elsewhere else []:
            k.constraints.append(
                f"{src.path} is {elsewhere[src.path]}, another operator's header: "
                "that operator builds with it too"
            )
        knobs.extend(found)
    cores = resolve_soc(None, None, spec).core_num_aiv
    reads = [c for _, c in core_reads]
    knobs.extend(core_cap_knobs(reads, flow.verdicts, cores, refused, knobs, [c for _, c in considered]))
    knobs = merge_knobs(knobs)
    if spec is not None:  # the values each knob may take, from the spec's dtypes and shapes and the SoC
        domains.refine(knobs, spec, resolve_soc(None, None, spec), flow.buffer_slots or 2)
    if spec is not None:
        issues.extend(checks.spec_vs_kernel(spec, kernel, spec_file, spec_dir or root, opdef, ksrc))
    if spec is not None and spec_dir is None and (root / spec.reference.split(":", 1)[0]).exists():
        files.extra.append(spec.reference.split(":", 1)[0])
    named = set(files.named())
    files.context = [rel for rel in project_files(root, layout) if rel not in named]
    soc = spec.soc if spec is not None else spec_soc(root)
    in_repo = layout != "kernel_launch"
    repo = repo_context(root, files, issues, soc, layout == "cann_open") if in_repo else None
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
        refused=refused,
        spec=spec,
        issues=issues,
        repo=repo,
        external_spec=external,
    )
    return op


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


def spec_soc(root: Path) -> str:
    """The SoC of the operator's spec (read leniently: a broken spec is reported later), else 910B."""
    for candidate in sorted(root.glob(f"*{SPEC_FILE}")):
        try:
            return load_spec(candidate).soc
        except (SpecError, OSError, ValueError):
            continue
    return DEFAULT_SOC
