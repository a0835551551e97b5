"""Write a starting `ascendopt.toml` from what the operator's code and the sample around it declare.

Tensors, dtypes and attrs (with defaults) come from the OpDef in the tiling program's file (or the
msOpGen `<Op>.json` when there is no OpDef); for a kernel-launch sample, from the kernel signature
with roles and names from the files main.cpp reads and writes. Shapes, dtypes and value ranges
come from the sample itself (`scripts/gen_data.py` beside it or in an `AclNNInvocation*/` folder
next to it, an `AclNNInvocationNaive/main.cpp`, a `TOTAL_LENGTH` constant in the kernel); the
block dim from the launch. `TODO` marks only what none of them says. The sample's own oracle is
taken where it ships one: its golden generator (`[oracle]`), or an ops-nn-style
`tests/assets/golden.py` function (the `reference`); its checker's tolerances
(`scripts/verify_result.py`) replace the spec's defaults.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.launch import initializer, int_value
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.sample_data import (
    TensorHint,
    aclnn_example_hints,
    gen_data_hints,
    golden_files,
    golden_function,
    naive_main_attrs,
    naive_main_hints,
    op_description,
    torch_test_hints,
    verify_tolerances,
)
from ascendopt.operators.soc import DEFAULT_SOC
from ascendopt.operators.spec import OperatorSpec

# ge::DataType → spec dtype
GE_DTYPES = {d.ge: name for name, d in DTYPES.items()}
_KERNEL_CTYPES = {"half": "float16", "float": "float32", "bfloat16_t": "bfloat16", "int8_t": "int8"}
_KERNEL_CTYPES |= {"int16_t": "int16", "int32_t": "int32", "uint8_t": "uint8"}
_LENGTH_CONSTANTS = ("TOTAL_LENGTH", "TOTAL_NUM", "TOTAL_SIZE", "totalLength")


@dataclass
class Tensor:
    name: str
    dtypes: list[str]
    hint: TensorHint | None = None
    param: str = "REQUIRED"  # the OpDef's ParamType
    members: list[TensorHint] = field(default_factory=list)  # a DYNAMIC input's tensors, from the sample


@dataclass
class SpecDraft:
    text: str
    notes: list[str] = field(default_factory=list)  # where each part came from, and what is a TODO
    case_names: list[str] = field(default_factory=list)
    oracle: str | None = None  # what the sample ships that checks the outputs (no reference to write)


def _hints(op: OperatorProject) -> tuple[dict[str, TensorHint], list[str]]:
    """Tensor hints from the sample's own scripts, nearest first."""
    notes: list[str] = []
    root = op.root
    path = _gen_data(op)
    if path is not None:
        notes.append(f"shapes, dtypes and ranges from {_shown(path, root)}")
        return gen_data_hints(path, _shown(path, root)), notes
    names = ([t.name for t in op.opdef.inputs], [t.name for t in op.opdef.outputs]) if op.opdef else None
    if op.layout == "cann_open" and names is not None:
        for path in sorted(root.glob("examples/test_aclnn_*.cpp")):
            hints = aclnn_example_hints(path, _shown(path, root), *names)
            if hints:
                notes.append(f"shapes from {_shown(path, root)}")
                return hints, notes
    call = op.tiling.host_program.call if op.tiling and op.tiling.host_program else None
    tensors = [n for n, kind in call.params if kind == "tensor"] if call is not None else []
    function = call.function if call is not None else ""
    for path in sorted(root.glob("*.py")) if call is not None else []:  # a torch extension's test
        hints = torch_test_hints(path, _shown(path, root), function, tensors)
        if hints:
            notes.append(f"shapes and dtypes from {_shown(path, root)}")
            return hints, notes
    for path in _naive_mains(op) if op.layout != "kernel_launch" else []:
        hints = naive_main_hints(path, _shown(path, root))
        if not hints and names is not None:  # cann-ops names the shapes after the tensors (xShape)
            hints = aclnn_example_hints(path, _shown(path, root), *names)
        if hints:
            notes.append(f"shapes and dtypes from {_shown(path, root)}")
            return hints, notes
    return {}, notes


def _gen_data(op: OperatorProject) -> Path | None:
    """The sample's golden generator nearest the operator that writes its inputs."""
    root = op.root
    places = [root / "scripts" / "gen_data.py"]
    if op.layout != "kernel_launch":
        places += sorted(root.parent.glob("*/scripts/gen_data.py"))
        # cann-ops: examples/gen_data.py, examples/AclNNInvocationNaive/gen_data.py
        places += sorted(root.glob("examples/gen_data.py")) + sorted(root.glob("examples/*/gen_data.py"))
    return next((p for p in places if p.exists() and gen_data_hints(p, _shown(p, root))), None)


def _golden_oracle(op: OperatorProject, ins: list[Tensor], outs: list[Tensor]) -> list[str]:
    """The `[oracle]` table when the sample's generator writes every input and as many golden files
    as the operator has outputs (the generator is then the reference, at its own shapes); else [].
    A reference.py the user wrote wins: it checks any shape, the generator only its own."""
    path = _gen_data(op)
    if path is None or (op.root / "reference.py").exists():
        return []
    inputs, outputs = golden_files(path)
    if not outputs or len(outputs) != len(outs) or any(t.name not in inputs for t in ins):
        return []
    files = {t.name: inputs[t.name] for t in ins} | {t.name: f for t, f in zip(outs, outputs, strict=True)}
    return [
        "",
        "[oracle]  # the sample's golden generator, re-run under a fresh seed for fresh values",
        'kind = "golden_script"',
        f"module = {json.dumps(str(path.resolve()))}",
        "files = { " + ", ".join(f"{n} = {json.dumps(f)}" for n, f in files.items()) + " }",
    ]


GOLDEN_PY = Path("tests") / "assets" / "golden.py"


def _golden_reference(op: OperatorProject) -> str | None:
    """`reference = …` for an ops-nn-style `tests/assets/golden.py` function registered for this
    kernel (its parameters: the OpDef's inputs in order, attrs as keywords, as a reference's are), by
    absolute path so a spec kept elsewhere finds it; None without one, or when the user wrote a
    reference.py (theirs wins)."""
    path = op.root / GOLDEN_PY
    if (op.root / "reference.py").exists() or not path.is_file():
        return None
    fn = golden_function(path, op.name)
    return f"{path.resolve()}:{fn}" if fn else None


def _checker_tolerances(op: OperatorProject, outs: list[Tensor]) -> tuple[list[str], list[str]]:
    """`[tolerances.<dtype>]` tables from the sample's checker (`verify_result.py` beside its golden
    generator, or in the operator's `scripts/`): for the dtype it reads the output as, else for every
    output dtype. ([], []) without one."""
    gen = _gen_data(op)
    places = ([gen.parent / "verify_result.py"] if gen else []) + [op.root / "scripts" / "verify_result.py"]
    path = next((p for p in places if p.is_file()), None)
    tol = verify_tolerances(path) if path else None
    if path is None or tol is None:
        return [], []
    dtypes = [tol.dtype] if tol.dtype else list(dict.fromkeys(d for t in outs for d in t.dtypes))
    where = f"{_shown(path, op.root)}:{tol.line}"
    lines = []
    for dtype in dtypes:
        lines += [
            "",
            f"[tolerances.{dtype}]  # the sample's checker, {where}",
            f"rtol = {tol.rtol!r}",
            f"atol = {tol.atol!r}",
            f"mismatch_fraction = {tol.mismatch_fraction!r}",
        ]
    return lines, [f"tolerances ({', '.join(dtypes)}) from the sample's checker {where}"]


def _opdef_columns(lists: list[list[str]]) -> tuple[list[list[str]], list[str]]:
    """Spec dtypes per tensor from the OpDef's `DataType({…})` lists, without the columns (the same
    position in every list) that hold a type the spec cannot name (DT_COMPLEX64, DT_DOUBLE …)."""
    width = max((len(x) for x in lists), default=0)
    aligned = all(len(x) == width for x in lists)
    bad = {i for x in lists for i, d in enumerate(x) if d not in GE_DTYPES} if aligned else set()
    kept = [[GE_DTYPES[d] for i, d in enumerate(x) if i not in bad and d in GE_DTYPES] for x in lists]
    if not aligned:
        return kept, sorted({d for x in lists for d in x if d not in GE_DTYPES})
    named = [(i, "/".join(sorted({x[i] for x in lists} - GE_DTYPES.keys()))) for i in sorted(bad)]
    return kept, [f"{i + 1} ({types})" for i, types in named]


def _naive_mains(op: OperatorProject) -> list[Path]:
    """`AclNNInvocationNaive/main.cpp` next to an msOpGen project, or in its `examples/` (cann-ops)."""
    return sorted(op.root.parent.glob("*Naive*/main.cpp")) + sorted(op.root.glob("examples/*Naive*/main.cpp"))


def soc_binary_dtypes(op: OperatorProject, names: list[str]) -> tuple[dict[str, list[str]], str] | None:
    """The dtype columns the spec's SoC builds, from `op_host/config/<soc>/<op>_binary.json` (each
    `op_list` entry one combination), when the repository ships one."""
    family = op.repo.soc_family if op.repo is not None else "ascend910b"
    for path in sorted((op.root / "op_host" / "config" / family).glob("*_binary.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        columns: dict[str, list[str]] = {n: [] for n in names}
        seen: set[tuple[str, ...]] = set()
        for entry in data.get("op_list", []) if isinstance(data, dict) else []:
            combo = {
                t.get("name"): _BINARY_DTYPES.get(str(t.get("dtype")), str(t.get("dtype")))
                for t in (*entry.get("inputs", []), *entry.get("outputs", []))
                if isinstance(t, dict)
            }
            key = tuple(combo.get(n, "") for n in names)
            if "" in key or key in seen:
                continue
            seen.add(key)
            for n, d in zip(names, key, strict=True):
                columns[n].append(d)
        if seen:
            return columns, str(path.relative_to(op.root))
    return None


_BINARY_DTYPES = {"float": "float32", "float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}
_BINARY_DTYPES |= {"int32": "int32", "int8": "int8", "int16": "int16", "int64": "int64", "uint8": "uint8"}
_BINARY_DTYPES |= {"bool": "bool", "bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(Path("..") / path.relative_to(root.parent))


def _kernel_length(op: OperatorProject) -> tuple[int | None, str]:
    ksrc = CppSource.parse(op.files.kernel, (op.root / op.files.kernel).read_text(encoding="utf-8"))
    for name in _LENGTH_CONSTANTS:
        init = initializer(ksrc, name)
        value = int_value(init, ksrc) if init else None
        if value:
            return value, f"{op.files.kernel}: {name} = {value}"
    return None, ""


def _kernel_dtype(op: OperatorProject) -> str | None:
    text = (op.root / op.files.kernel).read_text(encoding="utf-8")
    for ctype, dtype in _KERNEL_CTYPES.items():
        if f"__gm__ {ctype} *" in text or f"GlobalTensor<{ctype}>" in text:
            return dtype
    return None


def _tensors(
    op: OperatorProject, hints: dict[str, TensorHint]
) -> tuple[list[Tensor], list[Tensor], list[str]]:
    notes: list[str] = []
    desc = op_description(op.root, op.op_type) if op.layout != "kernel_launch" else None
    if op.opdef is not None:
        notes.append(f"tensors and dtypes from the OpDef in {op.files.opdef or op.files.host}")
        kept, left_out = _opdef_columns([t.dtypes for t in (*op.opdef.inputs, *op.opdef.outputs)])
        n_in = len(op.opdef.inputs)
        ins = [Tensor(t.name, c, param=t.param_type) for t, c in zip(op.opdef.inputs, kept, strict=False)]
        outs = [Tensor(t.name, c) for t, c in zip(op.opdef.outputs, kept[n_in:], strict=False)]
        if left_out:
            notes.append(f"dtype columns left out: {', '.join(left_out)} (no spec dtype)")
        soc = soc_binary_dtypes(op, [t.name for t in (*ins, *outs)])
        if soc is not None:
            columns, where = soc
            for t in (*ins, *outs):
                t.dtypes = columns[t.name]
            notes.append(f"dtype columns the SoC builds from {where}")
    elif (call := op.tiling.host_program.call if op.tiling and op.tiling.host_program else None) is not None:
        notes.append(
            f"tensors from {call.function} ({op.files.host}:{call.line}): its tensor parameters are the "
            "inputs, what it returns the outputs"
        )
        dtype = _kernel_dtype(op) or "float16"
        tensors = [n for n, k in call.params if k == "tensor"]
        ins = [Tensor(n, [(hints[n].dtype if n in hints else None) or dtype]) for n in tensors]
        outs = [Tensor(n, [dtype]) for n in call.outputs]
        for n in (n for n, k in call.params if k == "scalar"):
            notes.append(f"TODO attr {n}: a scalar parameter of {call.function}; add it under [[attrs]]")
    elif desc is not None:
        notes.append(f"tensors and dtypes from the op description {op.op_type}.json")
        ins = [Tensor(n, d) for n, d in desc[0]]
        outs = [Tensor(n, d) for n, d in desc[1]]
    else:
        kernel_dtype = _kernel_dtype(op)
        ins, outs = [], []
        for p in op.kernel.params:
            if p.role not in ("input", "output"):
                continue
            name = p.tensor or p.name
            hint = hints.get(name)
            dtype = (hint.dtype if hint else None) or kernel_dtype or "float16"
            listed = p.role == "input" and p.name in _list_params(op)
            (ins if p.role == "input" else outs).append(
                Tensor(name, [dtype], param="DYNAMIC" if listed else "REQUIRED")
            )
        notes.append(
            f"tensors from the signature of {op.kernel.name} ({op.files.kernel}:{op.kernel.range.start_line})"
            + (
                ", roles from the files main.cpp reads and writes"
                if any(p.tensor for p in op.kernel.params)
                else ""
            )
        )
    for t in ins:
        t.hint = hints.get(t.name)
    # A list input takes the sample's input files that no other input claims, in order (the AddN
    # samples' gen_data.py writes input_x.bin and input_y.bin: the two tensors of srcList).
    lists = [t for t in ins if t.param == "DYNAMIC" and t.hint is None]
    if len(lists) == 1:
        names = {t.name for t in (*ins, *outs)}
        lists[0].members = [h for n, h in hints.items() if n not in names and h.shape and h.values is None]
        if lists[0].members:
            notes.append(
                f"the tensors of list input {lists[0].name}: the sample's inputs "
                + ", ".join(n for n in hints if n not in names)
            )
    if outs and ins and op.opdef is None and desc is None:
        first = next((t for t in ins if t.hint is None or t.hint.values is None), ins[0])
        for o in outs:
            o.dtypes = list(first.dtypes)
    return ins, outs, notes


def ref_input(output: str, inputs: list[str]) -> str | None:
    """The input an output is in place on (a "ref" output): named like it, as CANN's OpDefs write
    `Output("var")` for `Input("var")`, or after it (`x_ref`, `xRef`, the kernel parameter's name)."""
    for name in inputs:
        if output in (name, f"{name}_ref", f"{name}Ref"):
            return name
    return None


def starting_spec(op: OperatorProject) -> SpecDraft:
    """TOML text for the operator, with notes on where every part came from."""
    hints, notes = _hints(op)
    ins, outs, tnotes = _tensors(op, hints)
    notes = tnotes + notes
    lines = [
        "# AscendOptimizer operator spec: what the kernel computes and how to test it.",
        "# Written by `ascendopt init-spec` from the operator and its sample; check it, then write",
        "# reference.py (a NumPy function of the inputs, attrs as keywords, returning the outputs).",
        "schema_version = 1",
        f'name = "{op.name}"',
        f'soc = "{DEFAULT_SOC}"',
    ]
    golden_ref = _golden_reference(op)
    if golden_ref:
        lines.append(f"reference = {json.dumps(golden_ref)}  # the repository's golden function")
        notes.append(
            f"the reference: {golden_ref.rpartition(':')[2]} in {GOLDEN_PY.as_posix()}; no reference.py"
        )
    else:
        lines.append(f'reference = "reference.py:{op.name}"')
    if op.layout == "kernel_launch":
        bd = op.tiling.block_dim if op.tiling else None
        where = f"{op.files.host}:{op.tiling.range.start_line}" if op.tiling else "main.cpp"
        if bd is not None:
            launch = op.tiling.launch if op.tiling else ""
            lines.append(f"block_dim = {bd}  # the launch's block dim ({launch} at {where})")
        else:
            lines.append("block_dim = 8  # TODO: the block dim main.cpp launches with (not a constant)")
            notes.append(f"TODO block_dim: {where} launches with a value main.cpp does not fix")
    for table, tensors in (("inputs", ins), ("outputs", outs)):
        for t in tensors:
            dtypes = ", ".join(f'"{d}"' for d in t.dtypes) or '"float16"'
            lines += ["", f"[[{table}]]", f'name = "{t.name}"', f"dtypes = [{dtypes}]"]
            if t.param == "DYNAMIC":
                lines.append(
                    'param_type = "dynamic"  # a list of tensors: each case gives one shape per tensor'
                )
            if t.param == "OPTIONAL" and table == "inputs":
                lines.append(
                    'param_type = "optional"  # a case may leave it out: absent = ["' + t.name + '"]'
                )
            source = ref_input(t.name, [i.name for i in ins]) if table == "outputs" else None
            if source is not None:
                lines.append(
                    f'alias = "{source}"  # in place (a ref output): one GM buffer with input {source}'
                )
            if table == "inputs":
                hint = t.hint or next((h for h in t.members if h.range is not None), None)
                if hint is not None and hint.range is not None:
                    lo, hi = (float(v) + 0.0 for v in hint.range)  # + 0.0: no "-0.0"
                    lines.append(f"range = [{lo!r}, {hi!r}]  # {hint.source}")
                else:
                    lines.append("range = [-1.0, 1.0]  # TODO: the values the operator is meant for")
    for attr in op.opdef.attrs if op.opdef else []:
        lines += ["", "[[attrs]]", f'name = "{attr.name}"']
        if attr.type is not None and attr.default is not None:
            default = (
                json.dumps(attr.default)
                if attr.type in ("str", "list_int")
                else str(attr.default).lower()
                if attr.type == "bool"
                else repr(attr.default)
            )
            lines += [
                f'type = "{attr.type}"',
                f"default = {default}  # the OpDef default ({op.files.opdef or op.files.host}:{attr.line})",
            ]
        else:
            # A required attr (`.Attr("N").Int()`) has a type but no default; a list attr neither.
            kind = attr.type or "float"
            zero = {"int": "0", "bool": "false", "str": '""', "list_int": "[]"}.get(kind, "0.0")
            lines += [
                f'type = "{kind}"',
                f"default = {zero}"
                "  # TODO: the OpDef gives no default (a required attr, or a type the spec does not take)",
            ]
            notes.append(f"TODO attr {attr.name}: no default in the OpDef")
    golden = _golden_oracle(op, ins, outs) if not golden_ref else []  # a function checks any shape
    if golden:
        where = _shown(_gen_data(op) or op.root, op.root)
        notes.append(f"the oracle: {where} writes the inputs and the golden output(s); no reference.py")
        lines += golden
        lines += ["", "[domain]", "fixed = true  # the generator's own shapes"]
    else:
        lines += _domain(op, ins)
    case_attrs: dict[str, int] = {}
    if op.opdef is not None and op.opdef.attrs and op.layout != "kernel_launch":
        for path in _naive_mains(op):
            case_attrs = naive_main_attrs(path, op.op_type, len(ins), [a.name for a in op.opdef.attrs])
            if case_attrs:
                notes.append(f"attr values of the sample's call from {_shown(path, op.root)}")
                break
    case_lines, case_names, case_notes = _cases(op, ins, case_attrs, outs, grow=not golden)
    lines += case_lines
    notes += case_notes
    tol_lines, tol_notes = _checker_tolerances(op, outs)
    lines += tol_lines
    notes += tol_notes
    oracle = "the sample's golden generator" if golden else None
    if golden_ref and not golden:
        oracle = f"the repository's golden function ({GOLDEN_PY.as_posix()})"
    return SpecDraft(text="\n".join(lines) + "\n", notes=notes, case_names=case_names, oracle=oracle)


def _list_params(op: OperatorProject) -> set[str]:
    """Kernel parameters the kernel reads as a list of tensors (handed to `ListTensorDesc`)."""
    text = (op.root / op.files.kernel).read_text(encoding="utf-8")
    names = {p.name for p in op.kernel.params}
    found: set[str] = set()
    for m in re.finditer(r"\bListTensorDesc\b[^;{]*?\(([^;]*?)\)\s*;", text):
        found |= names & set(re.findall(r"\b\w+\b", m.group(1)))
    return found


def _domain(op: OperatorProject, ins: list[Tensor]) -> list[str]:
    # A torch extension's function computes the sizes from whatever shape it is called with.
    host = op.tiling.host_program if op.tiling is not None else None
    if host is not None and host.call is None:
        return [
            "",
            "[domain]",
            "fixed = true  # main.cpp runs and fixes the shapes (its host code computes tiling and sizes)",
        ]
    tiling = any(p.role == "tiling" for p in op.kernel.params)
    if host is None and op.layout == "kernel_launch" and not tiling:
        data_hints = [t.hint for t in ins if t.hint is not None and t.hint.values is None]
        if data_hints or _kernel_length(op)[0]:
            return [
                "",
                "[domain]",
                "fixed = true  # the kernel has its sizes compiled in (no tiling): only the sample's shapes",
            ]
    return [
        "",
        "[domain]  # TODO: the shapes the operator takes, for the final re-check's fresh shapes",
        "# last_dim_multiple = 16",
        "# elements_multiple = 1",
        "# max_elements = 16777216",
    ]


def _cases(
    op: OperatorProject,
    ins: list[Tensor],
    attrs: dict[str, int],
    outs: list[Tensor] | None = None,
    grow: bool = True,
) -> tuple[list[str], list[str], list[str]]:
    outs = outs or []
    notes: list[str] = []
    shapes: dict[str, list[int]] = {}
    values: dict[str, list[float]] = {}
    todo = False
    length, length_note = _kernel_length(op)
    lists: dict[str, list[list[int]]] = {}
    for t in ins:
        if t.param == "DYNAMIC" and t.hint is None:
            if t.members:
                lists[t.name] = [list(h.shape or []) for h in t.members]
                shapes[t.name] = lists[t.name][0]
            else:
                todo = True
        elif t.hint is not None and t.hint.shape:
            shapes[t.name] = t.hint.shape
            if t.hint.values is not None:
                values[t.name] = t.hint.values
        elif length and op.layout == "kernel_launch":
            shapes[t.name] = [length]
            notes.append(f"shape of {t.name} from {length_note}")
        else:
            todo = True
    if todo or not shapes:
        first = next((s for s in shapes.values()), [8, 2048])
        for t in ins:
            shapes.setdefault(t.name, list(first))
        notes.append(
            "TODO cases: the sample gives no shape for "
            + ", ".join(t.name for t in ins if t.hint is None and not t.members)
        )
    for t in ins:  # a list without the sample's tensors: two of the first shape, to edit
        if t.param == "DYNAMIC" and t.name not in lists:
            lists[t.name] = [list(shapes[t.name])] * 2
    dtype = None
    column = 0
    for t in ins:
        hint_dtype = t.hint.dtype if t.hint else None
        if t.hint is None or t.hint.values is None:
            dtype = hint_dtype if hint_dtype in t.dtypes else t.dtypes[0] if t.dtypes else "float16"
            column = t.dtypes.index(dtype) if dtype in t.dtypes else 0
            break
    # A column whose tensors differ (x float16 with rstd float32): the others named per tensor.
    tensors = [*ins, *outs]
    mixed = {
        t.name: t.dtypes[column]
        for t in tensors
        if len(t.dtypes) > column and len(t.dtypes) > 1 and t.dtypes[column] != dtype
    }
    mixed_line = ("dtypes = { " + ", ".join(f'{n} = "{d}"' for n, d in mixed.items()) + " }") if mixed else ""
    names = ["sample"]
    out = ["", "[[cases]]", f'name = "sample"{"  # TODO: shapes" if todo else ""}']
    if all(len(t.dtypes) == 1 for t in ins):
        pass  # one dtype per tensor: nothing to choose
    elif dtype:
        out.append(f'dtype = "{dtype}"')
        if mixed_line:
            out.append(mixed_line)
    out.append("shapes = { " + ", ".join(f"{n} = {lists.get(n, s)}" for n, s in shapes.items()) + " }")
    if values:
        out.append(
            "values = { " + ", ".join(f"{n} = {[_num(v) for v in vs]}" for n, vs in values.items()) + " }"
        )
    attr_line = ("attrs = { " + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + " }") if attrs else ""
    if attr_line:
        out.append(attr_line)
    if op.layout != "kernel_launch" and not todo and grow:
        # A second, larger case for the search to weigh, when the inputs grow alike.
        grown = {n: [s[0] * 4, *s[1:]] for n, s in shapes.items()}
        alike = all(len({tuple(m) for m in ms}) == 1 for ms in lists.values())
        if (
            alike
            and len({tuple(s) for s in shapes.values()}) == 1
            and math.prod(next(iter(grown.values()))) <= 1 << 24
        ):
            names.append("sample-x4")
            out += ["", "[[cases]]", 'name = "sample-x4"  # the sample\'s shape with 4x the first dim']
            if dtype and not all(len(t.dtypes) == 1 for t in ins):
                out.append(f'dtype = "{dtype}"')
                if mixed_line:
                    out.append(mixed_line)
            out.append(
                "shapes = { "
                + ", ".join(f"{n} = {[s] * len(lists[n]) if n in lists else s}" for n, s in grown.items())
                + " }"
            )
            if attr_line:
                out.append(attr_line)
    return out, names, notes


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def drop_case(text: str, name: str, why: str) -> str:
    """The draft with case `name` commented out, and why."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block and any(line.startswith(f'name = "{name}"') for line in block):
            out.append(f"# left out: the operator refuses this case ({why})")
            out.extend(f"# {line}" if line else line for line in block)
        else:
            out.extend(block)
        block.clear()

    for line in text.splitlines():
        if line.startswith("[") or (not line and block):
            flush()
        (block if line.startswith("[[cases]]") or block else out).append(line)
    flush()
    return "\n".join(out) + "\n"


_ATTR_TYPES = {"float": "float", "int": "int", "bool": "bool", "str": "str", "list_int": "list[int]"}


def reference_signature(spec: OperatorSpec) -> str:
    """The `def` line reference.py must have for `spec`: the inputs in order (a dynamic input as a
    list of arrays), the attrs as keywords with their defaults, the outputs returned in order."""
    fn = spec.reference.partition(":")[2] or "reference"
    params = [
        f"{t.name}: list[np.ndarray]" if t.param_type == "dynamic" else f"{t.name}: np.ndarray"
        for t in spec.inputs
    ]
    for a in spec.attrs:
        default = str(bool(a.default)) if a.type == "bool" else repr(a.default)
        params.append(f"{a.name}: {_ATTR_TYPES[a.type]} = {default}")
    n = len(spec.checked_outputs)
    returns = "np.ndarray" if n == 1 else f"tuple[{', '.join(['np.ndarray'] * n)}]"
    outs = ", ".join(t.name for t in spec.checked_outputs)
    return f"def {fn}({', '.join(params)}) -> {returns}:  # returns {outs}"
