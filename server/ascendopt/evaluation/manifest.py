"""The case manifest: the text file a runner reads to run one case (op, platform, tensors, attrs,
where to write results), and the input files beside it. The CPU twin's runner and the generated
CANN driver read the same format (`cpu_twin/runtime/README.md`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath, PurePosixPath

from ascendopt.evaluation.toolchain import CaseJob
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import ResolvedCase, member_name, output_instances


def _manifest(
    project: OperatorProject,
    case: ResolvedCase,
    soc: Soc,
    inputs: Mapping[str, str | PurePath],
    outputs: Mapping[str, tuple[list[int] | None, str | PurePath]],
    work: str | PurePath,
    src_dir: str | PurePath,
    trace: bool,
    tiling_only: bool = False,
) -> str:
    assert project.spec is not None
    spec = project.spec
    lines = [
        f"op_type {project.op_type}",
        f"soc {soc.name}",
        f"core_num_aiv {soc.core_num_aiv}",
        f"ub_size {soc.ub_size}",
    ]
    for t in spec.inputs:
        if t.name in case.absent:  # an optional input this case leaves out: a null kernel argument
            lines.append(f"absent_input {t.name}")
        if t.name in case.lists:  # the next N input lines are the list's tensors
            lines.append(f"dynamic_input {t.name} {case.lists[t.name]}")
        for name in case.instances(t.name):
            lines.append(
                _tensor_line("input", name, case.dtypes[t.name], case.input_shapes[name], inputs[name])
            )
    compared = {t.name for t in spec.checked_in(case)}
    for t, names in output_instances(spec.outputs, outputs):
        if t.param_type == "dynamic":  # the next N output lines are the list's tensors
            lines.append(f"dynamic_output {t.name} {len(names)}")
        for i, name in enumerate(names):
            shape, path = outputs[name]
            if shape is None:  # not compared (check = false): sized by the OpDef's InferShape in the runner
                lines.append(" ".join(["output", name, case.dtypes[t.name], "infer", str(path)]))
            else:
                lines.append(_tensor_line("output", name, case.dtypes[t.name], shape, path))
                if t.name not in compared:  # sized by what the Model gave, compared with nothing
                    lines.append(f"unchecked {name}")
            if t.alias is not None:  # the input's buffer (a list's: its tensor of that index), with or
                # without a kernel parameter of its own
                source = member_name(t.alias, i) if t.param_type == "dynamic" else t.alias
                lines.append(f"alias {name} {source} {'argument' if t.kernel_argument else 'no_argument'}")
    opdef = project.opdef
    computed = [i for i, t in enumerate(opdef.outputs) if t.shape_depends_on_compute] if opdef else []
    if computed and opdef:  # CANN's extra kernel argument after the outputs, 9 uint64 per OpDef output
        slots = " ".join(f"{i} {opdef.outputs[i].name}" for i in computed)
        lines.append(f"shape_out {len(opdef.outputs)} {slots}")
    for a in spec.attrs:
        value = case.attrs[a.name]
        # A string is the rest of its line (the spec refuses one with a line break).
        if isinstance(value, list):  # list_int: the values, space-separated
            text = " ".join(str(int(v)) for v in value)
        elif a.type == "str":
            text = str(value)
        else:
            text = str(int(value)) if a.type in ("int", "bool") else repr(float(value))
        lines.append(f"attr {a.name} {a.type} {text}")
    if project.layout == "kernel_launch":
        # The launch in main.cpp decides (a block-dim knob rewrites it); the spec's block_dim stands in
        # where main.cpp does not fix one.
        launched = project.tiling.block_dim if project.tiling else None
        lines.append(f"block_dim {launched or spec.block_dim or 8}")
    elif spec.block_dim is not None:
        lines.append(f"block_dim {spec.block_dim}")
    work = PurePosixPath(work)
    if trace:  # the trace costs time; only profiling needs it
        lines.append(f"trace {work / 'trace.jsonl'}")
    if tiling_only:  # run the tiling program and stop (the episode's cheap pre-check)
        lines.append("tiling_only 1")
    lines += [
        f"findings {work / 'findings.jsonl'}",
        f"result {work / 'result.json'}",
        f"source_root {src_dir}",
    ]
    return "\n".join(lines) + "\n"


def _tensor_line(kind: str, name: str, dtype: str, shape: list[int], path: str | PurePath) -> str:
    # Fields joined one by one: a 0-d tensor has no dims, and the path must stay the last field.
    return " ".join([kind, name, dtype, str(len(shape)), *map(str, shape), str(path)])


def manifest_files(job: CaseJob, trace: bool = False, tiling_only: bool = False) -> dict[str, bytes]:
    """The files a case needs in its work folder (inputs + manifest, for the job's SoC), with paths as
    seen on the runner."""
    case, work = job.case, job.work
    files = {f"in_{name}.bin": data for name, data in job.input_bytes().items()}
    in_paths = {name: f"{work}/in_{name}.bin" for name in job.inputs}
    assert job.project.spec is not None
    # Every output instance (a list output's tensors one by one); an unchecked output has no shape.
    out_paths: dict[str, tuple[list[int] | None, str]] = {
        name: (job.output_shapes.get(name), f"{work}/out_{name}.bin")
        for _, names in output_instances(job.project.spec.outputs, job.output_shapes)
        for name in names
    }
    project, soc = job.project, job.soc
    manifest = _manifest(project, case, soc, in_paths, out_paths, work, job.src_dir, trace, tiling_only)
    if job.divide_value:
        manifest += f"divide_value {job.divide_value}\n"
    files["manifest.txt"] = manifest.encode("utf-8")
    return files
