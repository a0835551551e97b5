"""Benchmark tasks as they sit (NPUKernelBench, KernelBench convention): `<task>/answer/<n>/` is an
operator (msOpGen layout) whose spec comes from the task itself; `<task>/question/` is the skeleton
a contestant fills in, listed and never run.

A task holds `validation/module.py` (a PyTorch `Model`, and a `ModelNew` that calls the NPU binding),
`validation/prepare_inputs.py` (`get_inputs(param)`, `get_init_inputs(param)`) and
`validation/test_cases.csv` (`case_id;shape;dtype…`, `;`-separated, one row per case). This module
reads those files and writes the spec's text from what the oracle gave on every case
(`evaluation/task_spec.py` runs it); it runs nothing.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ascendopt.operators.aclnn_front_ends import FRONT_ENDS, FrontEnd
from ascendopt.operators.cpp_source import COMMENT, split_top_level
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.issues import Issue, SpecError
from ascendopt.operators.model import OpDefAttr, OpDefTensor, OperatorProject
from ascendopt.operators.soc import BENCHMARK_SOC, calibration_note
from ascendopt.operators.spec_init import SpecDraft, _opdef_columns, ref_input

# The benchmark's tolerance (1e-3 absolute and relative), with bfloat16's 8-bit mantissa kept at the
# product's 4e-3 (spec.DEFAULT_TOLERANCES).
TASK_TOLERANCES = {"float16": 1e-3, "float32": 1e-3, "bfloat16": 4e-3, "complex64": 1e-3}
# A case whose tensors hold more elements than this is left out, saying so: the evaluation keeps its
# inputs, the expected values (float64) and the twin's GM copies in memory at once (a 512 Mi-element
# case took 16 GB before the OOM killer ended it), on machines shared by several jobs.
MAX_CASE_ELEMENTS = 64 * 1024 * 1024


@dataclass(frozen=True)
class TaskFiles:
    root: Path  # the task folder
    module: Path
    prepare: Path
    cases: Path

    @property
    def name(self) -> str:
        return self.root.name


def task_of(op_root: Path) -> TaskFiles | None:
    """The benchmark task `op_root` is the answer of (`<task>/answer/<n>`), else None."""
    if op_root.parent.name != "answer":
        return None
    return _task_files(op_root.parent.parent)


def skeleton_of(op_root: Path) -> TaskFiles | None:
    """The benchmark task `op_root` is the skeleton of (`<task>/question`), else None."""
    return _task_files(op_root.parent) if op_root.name == "question" else None


def _task_files(root: Path) -> TaskFiles | None:
    v = root / "validation"
    files = TaskFiles(root, v / "module.py", v / "prepare_inputs.py", v / "test_cases.csv")
    return files if files.module.is_file() and files.prepare.is_file() and files.cases.is_file() else None


def read_test_cases(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line, row) for every case of `test_cases.csv`; SpecError naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Issue(file=str(path), line=1, message=f"cannot read the case list: {exc}")]) from exc
    lines = text.splitlines()
    if not lines or "case_id" not in lines[0]:
        raise SpecError([Issue(file=str(path), line=1, message="no header `case_id;…` (columns split by ;)")])
    reader = csv.reader(io.StringIO(text), delimiter=";")
    header = [h.strip() for h in next(reader)]
    rows: list[tuple[int, dict[str, str]]] = []
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise SpecError(
                [
                    Issue(
                        file=str(path), line=line, message=f"{len(row)} columns, the header has {len(header)}"
                    )
                ]
            )
        rows.append((line, {h: c.strip() for h, c in zip(header, row, strict=True)}))
    if not rows:
        raise SpecError([Issue(file=str(path), line=1, message="no case rows")])
    return rows


Cell = str | int | float | bool


def typed_columns(rows: list[dict[str, str]]) -> list[dict[str, Cell]]:
    """The rows as the benchmark's harness hands them to get_inputs: read by pandas, each column
    typed as a whole (all integers: int; all numbers: float, so `1` beside `1.2` is 1.0; all
    True/False: bool; else the text)."""
    kinds: dict[str, type] = {}
    for name in rows[0] if rows else {}:
        column = [r[name] for r in rows]
        if all(_parses(v, int) for v in column):
            kinds[name] = int
        elif all(_parses(v, float) for v in column):
            kinds[name] = float
        elif all(v in ("True", "False", "true", "false") for v in column):
            kinds[name] = bool
        else:
            kinds[name] = str
    return [
        {k: (v.lower() == "true" if kinds[k] is bool else kinds[k](v)) for k, v in r.items()} for r in rows
    ]


def _parses(text: str, kind: type) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


@dataclass
class _Mapping:
    args: list[str]  # per binding argument: the OpDef input or attr it is, or ""
    outputs: list[str]  # per value the Model returns: the spec output it is
    notes: list[str] = field(default_factory=list)
    # spec output → the input whose buffer it is (an OpDef output named like an input, or, with no OpDef
    # output, the input the kernel writes its result into)
    aliases: dict[str, str] = field(default_factory=dict)
    mutated: list[str] = field(default_factory=list)  # outputs the OpDef lacks (no kernel parameter)
    unchecked: list[str] = field(default_factory=list)  # OpDef outputs the Model returns no value for
    flattened: list[str] = field(default_factory=list)  # list outputs the Model returns as one flat tensor
    flags: dict[str, str] = field(default_factory=dict)  # unchecked outputs the binding returns only if …
    # the binding argument whose truth picks what it returns, and the outputs returned when it is false
    # and when true (pybind.cpp's `if (flag) { result = {…}; } else { result = {…}; }`)
    by_flag: tuple[int, list[str], list[str]] | None = None
    front: FrontEnd | None = None  # the CANN aclnn front end the binding calls, when not the op's own

    def outputs_for(self, record: dict[str, object]) -> list[str]:
        """The outputs the Model's values are in the case of `record`."""
        if self.by_flag is None:
            return self.outputs
        k, when_false, when_true = self.by_flag
        flag = _values(record)[k] if k < len(_values(record)) else None
        return when_true if isinstance(flag, dict) and flag.get("value") else when_false


# What the binding passes for an optional input left out (`None`): the case's `absent`.
_ABSENT = ("none",)


class TaskSpecError(ValueError):
    """The task cannot be turned into a spec (why, in one sentence)."""


def _kind(desc: object) -> str:
    return str(desc.get("kind")) if isinstance(desc, dict) else "?"


def refusal(op: OperatorProject) -> str | None:
    """Why the spec cannot hold this answer, read from its OpDef alone (before any of the task's
    Python runs), or None."""
    opdef = op.opdef
    if opdef is None:
        return "the answer has no OpDef to name its tensors"
    return None


def map_arguments(
    op: OperatorProject, record: dict[str, object], others: list[dict[str, object]] | None = None
) -> _Mapping:
    """Which OpDef input or attr each argument the binding receives is: the aclnn order, inputs
    then attrs (pybind.cpp's EXEC_NPU_CMD hands them on so), and which output each value the Model
    returns is (in order). `others`: the other cases' records, where one case cannot tell (a list
    of one 1-D tensor returned flattened or not)."""
    why = refusal(op)
    if why is not None:
        raise TaskSpecError(why)
    opdef = op.opdef
    assert opdef is not None
    values = record.get("args") if "args" in record else record.get("forward")
    if not isinstance(values, list):
        raise TaskSpecError("the oracle recorded no arguments")
    via = "ModelNew's call of the binding" if "args" in record else "Model.forward's arguments"
    n_in = len(opdef.inputs)
    if len(values) < n_in:
        raise TaskSpecError(
            f"{via} pass(es) {len(values)} value(s); the OpDef takes {n_in} input(s) "
            f"({', '.join(t.name for t in opdef.inputs)})"
        )
    task = task_of(op.root)
    elements = [t.name for t in opdef.inputs] + [a.name for a in opdef.attrs]
    front = _front_end(task.root, len(values), op) if task is not None and "args" in record else None
    if front is not None:  # CANN's own aclnn, not the op's: its parameters are the op's in its order
        elements = list(front[1].params)
    order = (
        _exec_order(task.root, len(values), len(elements) if front else 0)
        if task is not None and "args" in record
        else None
    )
    by_kind: list[str] | None = None
    if order is not None:  # the binding reorders its arguments for aclnn (pybind.cpp's EXEC_NPU_CMD)
        names = [elements[k] if 0 <= k < len(elements) else "" for k in order]
    else:
        by_kind = _by_kind(opdef.inputs, values[:n_in])
        names = by_kind + [a.name for a in opdef.attrs][: len(values) - n_in]
        names += [""] * (len(values) - len(names))
    for name, desc in zip(names, values, strict=True):
        kind = _kind(desc)
        attr = next((a for a in opdef.attrs if a.name == name), None)
        wanted = {"str": "str", "list_int": "numbers"}.get(attr.type or "", "number") if attr else ""
        if wanted == "number" and _one_value(desc):
            kind = "number"  # a one-element tensor for a number: pybind's float(t), as the binding takes it
        if attr is not None and (kind != wanted or attr.type is None):
            raise TaskSpecError(
                f"attr {name}: the binding passes a {kind} value, which the spec cannot carry yet"
            )
        optional = any(t.name == name and t.param_type == "OPTIONAL" for t in opdef.inputs)
        if attr is None and name and kind not in ("tensor", "list", "number", "numbers", *_ABSENT[:optional]):
            raise TaskSpecError(f"input {name}: the binding passes a {kind} value, which no tensor holds")
    outs = record.get("outputs")
    returned = outs if isinstance(outs, list) else []
    notes = [
        f"tensors and attrs from {via} (aclnn order: inputs, then attrs): "
        + ", ".join(n or "-" for n in names)
    ]
    if record.get("mutated"):
        notes.append(
            "Model.forward returns nothing and writes into its argument(s) "
            + ", ".join(str(i) for i in record["mutated"])  # type: ignore[attr-defined]
            + ": what they hold after it are its results"
        )
    if front is not None:
        notes.append(
            f"the binding calls CANN's {front[0]}, which launches {op.op_type} with its parameters as "
            f"{', '.join(front[1].params)} (aclnn_front_ends.py)"
        )
        if front[1].launched_dtypes is not None or front[1].other_op is not None or front[1].min_rank:
            notes.append(
                f"{front[0]} converts before it launches {op.op_type} (input dtypes, ranks) and launches "
                "another op in some cases: each case is written as the op is launched (aclnn_front_ends.py)"
            )
    if by_kind is not None and by_kind != [t.name for t in opdef.inputs]:
        notes.append(
            "the binding passes its lists and its tensors in another order than the OpDef: matched by kind"
        )
    inputs = [t.name for t in opdef.inputs]
    aliases = {t.name: src for t in opdef.outputs if (src := ref_input(t.name, inputs)) is not None}
    if not opdef.outputs:
        return _mutated_inputs(op, names, [record, *(others or [])], notes)
    chosen = _flag_returns(op, names, len(values), [record, *(others or [])])
    if chosen is not None:
        k, when_false, when_true = chosen
        binding = _binding_body(task.root, len(values)) if task is not None else None
        flag = binding[0][k] if binding is not None else str(k)
        mapping = _Mapping(names, [], notes, aliases, by_flag=chosen)
        mapping.outputs = mapping.outputs_for(record)
        mapping.unchecked = [t.name for t in opdef.outputs if t.name not in {*when_false, *when_true}]
        notes.append(
            f"the binding returns {', '.join(when_true)} when its argument {flag} is true, else "
            f"{', '.join(when_false)} (validation/pybind.cpp): each case compares those"
            + (f"; {', '.join(mapping.unchecked)}: never returned, left unchecked" * bool(mapping.unchecked))
        )
        if aliases:
            notes.append("in-place output(s), one buffer with their input: " + ", ".join(aliases))
        return mapping
    if len(opdef.outputs) == 1 and opdef.outputs[0].param_type == "DYNAMIC" and returned:
        returned = [returned]  # a Model whose only output is a list returns the list itself: that output
    if len(returned) > len(opdef.outputs):
        raise TaskSpecError(
            f"Model returns {len(returned)} value(s); the OpDef declares {len(opdef.outputs)} output(s) "
            f"({', '.join(t.name for t in opdef.outputs)})"
        )
    if not returned:
        raise TaskSpecError("the Model returns no tensor")
    outputs = [t.name for t in opdef.outputs[: len(returned)]]
    if front is not None and front[1].outputs:  # the binding returns the front end's outputs, in its order
        outputs = list(front[1].outputs[: len(returned)])
    elif task is not None and len(returned) == 1 and len(opdef.outputs) > 1:
        named = _returned_output(
            task.root, len(values), n_in + len(opdef.attrs), [t.name for t in opdef.outputs]
        )
        if named is not None:  # `return attention_out;`, the third output EXEC_NPU_CMD writes
            outputs = [named]
            notes.append(f"the binding returns the OpDef's output {named} (validation/pybind.cpp)")
    unchecked = [t.name for t in opdef.outputs if t.name not in outputs]
    if unchecked:
        notes.append(
            f"Model returns {len(returned)} value(s) for the OpDef's {len(opdef.outputs)} outputs: "
            f"{', '.join(outputs)} compared; {', '.join(unchecked)} left unchecked "
            "(nothing says their values)"
        )
    unset = _never_returned(op, len(values), [record, *(others or [])], [t.name for t in opdef.outputs])
    for name, flag in unset.items():
        if name in outputs and name not in unchecked:
            unchecked.append(name)
            notes.append(
                f"output {name}: the binding returns it only when its argument {flag} is true "
                "(validation/pybind.cpp), in no case here: left unchecked"
            )
    if aliases:
        notes.append("in-place output(s), one buffer with their input: " + ", ".join(aliases))
    known = front[1] if front is not None else None
    return _Mapping(names, outputs, notes, aliases, [], unchecked, flags=unset, front=known)


def _returned_output(task_root: Path, n_args: int, n_before_outputs: int, outputs: list[str]) -> str | None:
    """The OpDef output the binding returns alone (`return attention_out;` where attention_out is an
    EXEC_NPU_CMD argument past the inputs and attrs), or None when pybind.cpp does not say."""
    found = _exec_call(task_root, n_args)
    if found is None:
        return None
    _, body, args, at = found
    ret = _RETURN.search(body, at)
    if ret is None or ret.group(1) not in args:
        return None
    k = args.index(ret.group(1)) - n_before_outputs
    return outputs[k] if 0 <= k < len(outputs) else None


# `at::Tensor softmax_max = torch::empty({batch, head_num, seq_len, 8}, …)`: an output buffer the binding
# makes
_EMPTY = r"\b{name}\s*=\s*(?:torch|at)::(?:empty|zeros)\s*\(\s*\{{([^{{}}]*)\}}"
_SIZE = re.compile(r"^(\w+)\s*\.\s*size\s*\(\s*(\d+)\s*\)$")


def _empty_shapes(
    task_root: Path, n_before_outputs: int, outputs: list[str], record: dict[str, object]
) -> dict[str, list[int]]:
    """Shapes of OpDef outputs as the binding allocates them (`torch::empty({…})`, each dim a number, an
    int argument, `arg.size(i)` or a local made so) for this case's arguments; the outputs it does not
    say left out."""
    values = _values(record)
    found = _exec_call(task_root, len(values))
    if found is None:
        return {}
    params, body, args, at = found

    def dim(expr: str) -> int | None:
        expr = expr.strip()
        local = re.search(
            rf"\b(?:const\s+)?(?:int64_t|int32_t|int|long|auto)\s+{re.escape(expr)}\s*=\s*([^;]+);", body[:at]
        )
        if local is not None:
            expr = local.group(1).strip()
        if re.fullmatch(r"\d+", expr):
            return int(expr)
        m = _SIZE.match(expr)
        name = m.group(1) if m else expr
        if name not in params:
            return None
        desc = values[params.index(name)]
        if not isinstance(desc, dict):
            return None
        if m is None:
            v = desc.get("value")
            return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
        shape = desc.get("shape")
        k = int(m.group(2))
        return int(shape[k]) if isinstance(shape, list) and k < len(shape) else None

    out: dict[str, list[int]] = {}
    for k, arg in enumerate(args[n_before_outputs:]):
        made = re.search(_EMPTY.format(name=re.escape(arg)), body[:at]) if k < len(outputs) else None
        if made is None:
            continue
        dims = [dim(d) for d in split_top_level(made.group(1), "([{<")]
        if dims and None not in dims:
            out[outputs[k]] = [d for d in dims if d is not None]
    return out


def _never_returned(
    op: OperatorProject, n_args: int, records: list[dict[str, object]], outputs: list[str]
) -> dict[str, str]:
    """Outputs the binding returns only under a flag argument that is false in every case (CrossEntropyLoss:
    zloss only with return_zloss), each with the flag's name: the benchmark never compares them."""
    task = task_of(op.root)
    assert op.opdef is not None
    if task is None:
        return {}
    before = len(op.opdef.inputs) + len(op.opdef.attrs)
    found = _binding_body(task.root, n_args)
    out = {}
    for name, k in _conditional_outputs(task.root, n_args, before, outputs).items():
        flags = [_values(r)[k] for r in records if k < len(_values(r))]
        if found is not None and flags and all(isinstance(f, dict) and not f.get("value") for f in flags):
            out[name] = found[0][k]
    return out


# pybind.cpp's binding: `at::Tensor f(at::Tensor &input, double alpha) { EXEC_NPU_CMD(…); return input; }`
_BINDING = re.compile(r"\b[\w:<>]+\s+(\w+)\s*\(([^)]*)\)\s*\{", re.S)
_RETURN = re.compile(r"\breturn\s+(\w+)\s*;")
_EXEC = re.compile(r"EXEC_NPU_CMD\s*\(")


def _binding_body(task_root: Path, n_args: int) -> tuple[list[str], str] | None:
    """The parameter names and body (to the file's end) of the binding function taking `n_args`
    arguments in the task's validation/pybind.cpp; None without one."""
    try:
        text = (task_root / "validation" / "pybind.cpp").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    text = COMMENT.sub(" ", text)  # comments (one inside EXEC_NPU_CMD's list)
    for m in _BINDING.finditer(text):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        if len(params) == n_args:
            names = [re.sub(r"=.*$", "", p).split()[-1].lstrip("&*") for p in params]
            return names, text[m.end() :]
    return None


def _exec_order(task_root: Path, n_args: int, n_elements: int) -> list[int] | None:
    """Per binding argument, its place among EXEC_NPU_CMD's arguments (the aclnn order: inputs, attrs,
    outputs), read from validation/pybind.cpp: the argument itself, or a local made from it
    (`mask_npu = mask.has_value() ? …`, `begin_acl = ConvertType(…begin…)`). None when pybind.cpp is
    missing or an argument is not found there and no free place takes it (then the binding's own
    order is taken)."""
    found = _exec_call(task_root, n_args)
    if found is None:
        return None
    names, body, args, at = found
    before = body[:at]
    order: list[int | None] = []
    for name in names:
        if name in args:
            order.append(args.index(name))
            continue
        made = [a for a in args if name in _made_from(a, before)]
        order.append(args.index(made[0]) if len(made) == 1 else None)
    # Arguments not followed (a switch turns `reduction` into `reduction_int`) take the places among
    # the `n_elements` inputs and attrs no other argument took, in order (0: none do).
    free = iter(k for k in range(n_elements) if k not in order)
    filled = [k if k is not None else next(free, None) for k in order]
    return None if None in filled or len(set(filled)) != len(filled) else [k for k in filled if k is not None]


def _front_end(task_root: Path, n_args: int, op: OperatorProject) -> tuple[str, FrontEnd] | None:
    """The CANN aclnn front end the binding calls for this op (FRONT_ENDS), when it names the OpDef's
    inputs and attrs; None for the op's own aclnn (`aclnn<Op>`, `aclnnCustomOp`)."""
    found = _binding_body(task_root, n_args)
    call = re.search(r"EXEC_NPU_CMD\s*\(\s*(\w+)", found[1]) if found is not None else None
    known = FRONT_ENDS.get(call.group(1)) if call is not None else None
    assert op.opdef is not None
    names = {t.name for t in op.opdef.inputs} | {a.name for a in op.opdef.attrs}
    outputs = {t.name for t in op.opdef.outputs}
    if call is None or known is None or known.op_type != op.op_type or not set(known.params) <= names:
        return None
    if not set(known.outputs) <= outputs:
        return None
    return call.group(1), known


def _exec_call(task_root: Path, n_args: int) -> tuple[list[str], str, list[str], int] | None:
    """The binding's parameter names, its body, EXEC_NPU_CMD's arguments after the aclnn name (inputs,
    attrs, outputs) and where the call starts in the body; None without one."""
    found = _binding_body(task_root, n_args)
    call = _EXEC.search(found[1]) if found is not None else None
    if found is None or call is None:
        return None
    names, body = found
    depth, end = 1, call.end()
    while end < len(body) and depth:
        depth += {"(": 1, ")": -1}.get(body[end], 0)
        end += 1
    args = [a.strip() for a in split_top_level(body[call.end() : end - 1], "([{<")][1:]  # [0]: the aclnn
    return names, body, args, call.start()


# `if (flag) { result.push_back(zlossOut); … }`: what a binding returns only when an argument says so
_IF_RETURNS = re.compile(r"\bif\s*\(\s*(\w+)\s*\)\s*\{([^{}]*)\}")
_PUSH = re.compile(r"\.\s*(?:push_back|emplace_back)\s*\(\s*(\w+)\s*\)")


def _conditional_outputs(
    task_root: Path, n_args: int, n_before_outputs: int, outputs: list[str]
) -> dict[str, int]:
    """OpDef outputs the binding returns only under `if (flag)` (pybind.cpp), each with the binding
    argument that is the flag: EXEC_NPU_CMD's arguments past the inputs and attrs are the outputs."""
    found = _exec_call(task_root, n_args)
    if found is None:
        return {}
    names, body, args, at = found
    out: dict[str, int] = {}
    for m in _IF_RETURNS.finditer(body, at):
        if m.group(1) not in names:
            continue
        for pushed in _PUSH.findall(m.group(2)):
            k = args.index(pushed) - n_before_outputs if pushed in args else -1
            if 0 <= k < len(outputs):
                out[outputs[k]] = names.index(m.group(1))
    return out


# `if (flag) { result = {a, b}; } else { result = {c}; }`: what a binding returns depends on an argument
_IF_ELSE_RETURNS = re.compile(
    r"\bif\s*\(\s*(\w+)\s*\)\s*\{\s*(\w+)\s*=\s*\{([^{}]*)\}\s*;\s*\}"
    r"\s*else\s*\{\s*\2\s*=\s*\{([^{}]*)\}\s*;\s*\}"
)


def _unreturned_shapes(
    mapping: _Mapping, got: dict[str, object]
) -> tuple[dict[str, dict[str, list[int]]], list[str]]:
    """Per case id, shapes for the outputs the binding returns only in other cases (the kernel writes
    them all the same), where every case returning one agrees on its shape being one input's with its
    last j dims 1 (a keepdim reduction: AddLayerNorm's mean, rstd) or the same: that rule, applied to
    the case's input; and the outputs so sized."""
    if mapping.by_flag is None:
        return {}, []
    records = {k: r for k, r in got.items() if isinstance(r, dict)}
    every = {*mapping.by_flag[1], *mapping.by_flag[2]}
    out: dict[str, dict[str, list[int]]] = {}
    said: list[str] = []
    for name in sorted(every):
        rules = None
        for r in records.values():
            outs = mapping.outputs_for(r)
            if name not in outs or outs.index(name) >= len(_values(r, "outputs")):
                continue
            shape = _shape_of(_values(r, "outputs")[outs.index(name)])
            given = _tensor_shapes(mapping.args, r)
            fit = {
                (a, j)
                for a, s in given.items()
                for j in range(len(s) + 1)
                if s[: len(s) - j] + [1] * j == shape
            }
            rules = fit if rules is None else rules & fit
        if not rules:
            continue
        for k, r in records.items():
            if name in mapping.outputs_for(r):
                continue
            given = _tensor_shapes(mapping.args, r)
            made = {tuple(s[: len(s) - j] + [1] * j) for a, j in rules if (s := given.get(a))}
            if len(made) == 1:
                out.setdefault(k, {})[name] = list(made.pop())
                said.append(name)
    return out, list(dict.fromkeys(said))


def _tensor_shapes(args: list[str], record: dict[str, object]) -> dict[str, list[int]]:
    """The shape of each tensor argument of a record, by the input it is."""
    return {
        a: [int(d) for d in d_["shape"]] or [1]
        for a, d_ in zip(args, _values(record), strict=False)
        if a and _kind(d_) == "tensor" and isinstance(d_, dict)
    }


def _flag_returns(
    op: OperatorProject, names: list[str], n_args: int, records: list[dict[str, object]]
) -> tuple[int, list[str], list[str]] | None:
    """The binding argument that picks what the binding returns, with the outputs it returns when
    false and when true, when validation/pybind.cpp returns `{…}` lists under `if (flag) … else …`: a
    returned local is the output EXEC_NPU_CMD passes it as, a returned argument the output in place
    of the input it is. None when the binding does not, or a returned name is neither, or a case's
    Model returns another number of values."""
    task = task_of(op.root)
    found = _exec_call(task.root, n_args) if task is not None else None
    assert op.opdef is not None
    if found is None:
        return None
    params, body, args, at = found
    m = _IF_ELSE_RETURNS.search(body, at)
    if m is None or m.group(1) not in params or not re.search(rf"\breturn\s+{m.group(2)}\s*;", body):
        return None
    outputs = [t.name for t in op.opdef.outputs]
    before = len(op.opdef.inputs) + len(op.opdef.attrs)
    inputs = [t.name for t in op.opdef.inputs]
    in_place = {src: t for t in outputs if (src := ref_input(t, inputs)) is not None}
    # An in-place aclnn passes its written inputs once, as inputs: its outputs are then the others.
    own = [t for t in outputs if t not in in_place.values()]
    passed = own if len(args) - before == len(own) < len(outputs) else outputs

    def output_of(var: str) -> str | None:
        if var in args and 0 <= args.index(var) - before < len(passed):
            return passed[args.index(var) - before]
        given = names[params.index(var)] if var in params and params.index(var) < len(names) else ""
        return in_place.get(given)

    lists = []
    for group in (m.group(4), m.group(3)):
        got = [output_of(v.strip()) for v in group.split(",") if v.strip()]
        if not got or None in got:
            return None
        lists.append([g for g in got if g is not None])
    k = params.index(m.group(1))
    chosen = (k, lists[0], lists[1])
    for r in records:
        want = _Mapping(names, [], by_flag=chosen).outputs_for(r)
        if len(_values(r, "outputs")) != len(want):
            return None
    return chosen


def _made_from(var: str, code: str, depth: int = 6) -> set[str]:
    """The names a local is made from, through the locals in between (`x_acl = ConvertType(x_vec)`,
    `std::vector<int64_t> x_vec(x_cpu.data_ptr…)`, `at::Tensor x_cpu = x.cpu()` → x_vec, x_cpu, x, …)."""
    if depth == 0 or not re.fullmatch(r"\w+", var):
        return set()
    words: set[str] = set()
    v = re.escape(var)
    # `var = …;` (not `a.var = …`, not `==`), a declaration `Type var(…);` / `Type var{…};`, what is
    # appended to it (`var.push_back(…);`), or the range it walks (`for (auto &var : range)`)
    defined = (
        rf"(?<![.\w>:]){v}\s*=(?!=)([^;]*);|[\w>]\s+{v}\s*[({{]([^;]*);"
        rf"|(?<![.\w>:]){v}\s*\.\s*(?:push_back|emplace_back)\s*\(([^;]*)\)\s*;"
        rf"|\bfor\s*\([^;:)]*[\s&*]{v}\s*:\s*([^;)]*)\)"
    )
    for m in re.finditer(defined, code):
        words |= set(re.findall(r"\b[A-Za-z_]\w*\b", next((g for g in m.groups() if g), "")))
    for w in list(words):
        if w != var:
            words |= _made_from(w, code, depth - 1)
    return words


def _returned_parameters(task_root: Path, n_args: int) -> list[int] | None:
    """The arguments of the binding that what its C++ returns is made of, in order (`return input;`, or
    `return ret;` with `ret.push_back(g)` over `for (auto &g : grads)`, in validation/pybind.cpp); None
    without a binding or a return."""
    found = _binding_body(task_root, n_args)
    ret = _RETURN.search(found[1]) if found is not None else None
    if found is None or ret is None:
        return None
    params, body = found
    made = {ret.group(1)} | _made_from(ret.group(1), body[: ret.start()])
    return [i for i, p in enumerate(params) if p in made]


def _mutated_inputs(
    op: OperatorProject, names: list[str], records: list[dict[str, object]], notes: list[str]
) -> _Mapping:
    """An OpDef with no output: the kernel writes into its input(s), and the Model's results are what
    they hold after the run. Which inputs: those the binding's return value is made of (pybind.cpp), in
    order, one Model value each (a lone list input: all the Model's values are its tensors); else the
    one input of the Model's one result's shape and dtype. A list's tensors may come back flattened
    and concatenated in one tensor (`flattened`)."""
    assert op.opdef is not None
    inputs = {t.name: t for t in op.opdef.inputs}
    values, returned = _values(records[0]), _values(records[0], "outputs")
    given = dict(zip(names, values, strict=True))
    task = task_of(op.root)
    at = _returned_parameters(task.root, len(values)) if task is not None else None
    targets = [names[i] for i in at or [] if i < len(names) and names[i] in inputs]
    why = "the binding returns {} (validation/pybind.cpp)"
    named = bool(targets)
    if not targets:
        one = len(returned) == 1
        same = [n for n in inputs if n in given and one and "same" in _fits(given[n], returned)]
        if len(same) != 1:
            raise TaskSpecError(
                f"the OpDef declares no output, the binding's return (validation/pybind.cpp) names no input, "
                f"and {len(same)} input(s) fit the Model's {len(returned)} result(s): which input(s) the "
                "kernel writes into is unknown"
            )
        targets, why = same, "the one input of the Model's result's shape and dtype"
    lone_list = len(targets) == 1 and inputs[targets[0]].param_type == "DYNAMIC"
    if not lone_list and len(returned) != len(targets):
        raise TaskSpecError(
            f"the OpDef declares no output; the binding returns what it wrote into {', '.join(targets)} "
            f"(validation/pybind.cpp), the Model returns {len(returned)} value(s)"
        )
    flattened: list[str] = []
    widened: list[str] = []
    for k, target in enumerate(targets):
        # another float dtype only for an input the binding names: the shape alone would not pick it
        how = {"same", "flattened"} | ({"widened"} if named else set())
        for record in records:  # every case's: one may fit both ways (a list of one 1-D tensor)
            got = dict(zip(names, _values(record), strict=False)).get(target)
            results = _values(record, "outputs")
            how &= _fits(got, results if lone_list else results[k : k + 1])
        if not how:
            raise TaskSpecError(
                f"the OpDef declares no output; the Model's result for input {target} (which the kernel "
                "writes into) has not its shape and dtype, nor is it its tensors flattened, concatenated"
            )
        if "same" in how:
            continue
        (flattened if "flattened" in how else widened).append(target)
    notes.append(
        f"no OpDef output: the kernel writes into input{'s' * (len(targets) > 1)} {', '.join(targets)} "
        f"({why.format('them' if len(targets) > 1 else 'it')}); "
        "compared after the run"
        + (
            f" ({', '.join(flattened)}: the Model returns the tensors flattened, concatenated)"
            if flattened
            else ""
        )
        + (
            f" ({', '.join(widened)}: the Model returns another float dtype; compared widened, as the "
            "benchmark compares)"
            if widened
            else ""
        )
    )
    return _Mapping(names, targets, notes, {t: t for t in targets}, targets, [], flattened)


def _values(record: dict[str, object], key: str = "") -> list[object]:
    """A record's binding arguments (else Model.forward's), or, with `key`, that list."""
    got = record.get(key) if key else record.get("args") if "args" in record else record.get("forward")
    return got if isinstance(got, list) else []


_FLOATS = {"float16", "bfloat16", "float32", "float64"}


def _fits(given: object, results: list[object]) -> set[str]:
    """How the Model's `results` may stand for an input's values after the run: "same" (a tensor of
    its shape and dtype; a list's tensors one by one or as one list), "widened" (a float tensor of its
    shape in another float dtype), "flattened" (a list's tensors flattened and concatenated in one
    tensor); none if they do not."""

    def key(desc: object) -> tuple[object, object]:
        return (desc.get("shape"), desc.get("dtype")) if isinstance(desc, dict) else (None, None)

    if _kind(given) == "tensor":
        if len(results) != 1 or key(results[0])[0] != key(given)[0]:
            return set()
        if key(results[0]) == key(given):
            return {"same", "widened"}  # widened by nothing: one case may fit so, another widened
        # a float buffer the Model computes wider (float32 for a float16 one): the benchmark compares
        # the two widened, as the oracle does
        return {"widened"} if {key(results[0])[1], key(given)[1]} <= _FLOATS else set()
    if _kind(given) != "list" or not isinstance(given, dict):
        return set()
    items = list(given.get("items") or [])
    how = set()
    one = results[0] if len(results) == 1 else None
    members = one.get("items") if isinstance(one, dict) and _kind(one) == "list" else results
    if [key(m) for m in members or []] == [key(i) for i in items]:
        how.add("same")
    if len(results) == 1 and _kind(results[0]) == "tensor" and items:
        shape, dtype = key(results[0])
        size = sum(_elements(list(i.get("shape") or [1])) for i in items)
        if isinstance(shape, list) and len(shape) == 1 and shape[0] == size and dtype == key(items[0])[1]:
            how.add("flattened")
    return how


def _by_kind(inputs: list[OpDefTensor], values: list[object]) -> list[str]:
    """The OpDef input each of the first values is: in OpDef order, unless that gives a list to a
    plain input or a tensor to a list input while matching lists to list inputs and the others to
    the rest, each in order, fits every one (a binding whose Python signature puts the list first,
    `f(x, scalar)` for an OpDef `scalar, x`, with pybind.cpp reordering them for aclnn)."""
    in_order = [t.name for t in inputs]
    listed = [_kind(v) == "list" for v in values]
    dynamic = [t.param_type == "DYNAMIC" for t in inputs]
    if listed == dynamic or sorted(listed) != sorted(dynamic):
        return in_order
    lists = iter(t.name for t in inputs if t.param_type == "DYNAMIC")
    others = iter(t.name for t in inputs if t.param_type != "DYNAMIC")
    return [next(lists) if is_list else next(others) for is_list in listed]


def _one_value(desc: object) -> bool:
    """A one-element tensor whose value the oracle recorded (a number attr passed as a tensor)."""
    return _kind(desc) == "tensor" and isinstance(desc, dict) and isinstance(desc.get("value"), int | float)


def _shape_of(desc: object) -> list[int] | list[list[int]]:
    kind = _kind(desc)
    assert isinstance(desc, dict)
    if kind == "tensor":
        return list(desc["shape"]) or [1]
    if kind == "list":
        return [list(i["shape"]) or [1] for i in desc["items"]]
    if kind == "number":
        return [1]
    return [len(desc["value"])]


def _dtype_of(desc: object) -> str | None:
    """The spec dtype a recorded value was (None: a number, or a float64 tensor: it takes the column's)."""
    if not isinstance(desc, dict):
        return None
    if desc.get("kind") == "list":
        items = desc.get("items") or []
        return _dtype_of(items[0]) if items else None
    if desc.get("kind") == "tensor":
        d = str(desc.get("dtype"))
        if d in DTYPES:  # torch's names for these are the spec's
            return d
        if d == "float64":
            return None
        return f"unsupported:{d}"
    return None


def task_spec_text(
    op: OperatorProject, task: TaskFiles, rows: list[tuple[int, dict[str, Cell]]], got: dict[str, object]
) -> SpecDraft:
    """The spec's TOML for the answer `op` of `task`: `got` is, per case id, the oracle's record on
    seed 0 (or why it failed). Cases the kernel cannot take (a dtype no column has, one the spec has
    not) or the oracle failed on are left commented out, with the reason."""
    assert op.opdef is not None
    first = next((r for r in got.values() if isinstance(r, dict)), None)
    if first is None:
        why = next((str(r) for r in got.values()), "no case")
        raise TaskSpecError(f"the oracle ran on no case: {why}")
    mapping = map_arguments(op, first, [r for r in got.values() if isinstance(r, dict) and r is not first])
    notes = [f"benchmark task {task.root}: the oracle is its Model (validation/module.py), sandboxed"]
    notes.append(f"SoC {calibration_note(BENCHMARK_SOC)}")
    notes += mapping.notes
    tensors = [*op.opdef.inputs, *op.opdef.outputs]
    kept, left_out = _opdef_columns([t.dtypes for t in tensors])
    columns = [dict(zip([t.name for t in tensors], col, strict=False)) for col in zip(*kept, strict=False)]
    if left_out:
        notes.append(f"dtype columns left out: {', '.join(left_out)} (no spec dtype)")
    inputs = {t.name: t for t in op.opdef.inputs}
    attrs = {a.name: a for a in op.opdef.attrs}
    lines = [
        "# AscendOptimizer operator spec, derived from the benchmark task around the operator.",
        "schema_version = 1",
        f'name = "{op.name}"',
        f'soc = "{BENCHMARK_SOC}"  # {calibration_note(BENCHMARK_SOC)}',
        'reference = "reference.py:unused"  # the [oracle] below is the reference',
        "",
        "[oracle]",
        'kind = "kernelbench"',
        f"module = {_q(str(task.module))}",
        f"prepare = {_q(str(task.prepare))}",
        "args = [" + ", ".join(_q(a) for a in mapping.args) + "]",
        "outputs = [" + ", ".join(_q(a) for a in mapping.outputs) + "]",
    ]
    if mapping.flattened:
        lines.append(
            "flattened = [" + ", ".join(_q(a) for a in mapping.flattened) + "]"
            "  # the Model returns these lists' tensors flattened, concatenated"
        )
    in_types = {t.name: t.param_type for t in op.opdef.inputs}
    mutated = [
        OpDefTensor(name=n, dtypes=[], param_type=in_types.get(n, "REQUIRED")) for n in mapping.mutated
    ]
    for table, group in (("inputs", op.opdef.inputs), ("outputs", [*op.opdef.outputs, *mutated])):
        for t in group:
            dtypes = [c[t.name] for c in columns if t.name in c]  # the OpDef's columns, in order
            lines += [
                "",
                f"[[{table}]]",
                f'name = "{t.name}"',
                "dtypes = [" + ", ".join(_q(d) for d in dtypes) + "]",
            ]
            if t.param_type == "DYNAMIC":
                lines.append('param_type = "dynamic"')
            if t.param_type == "OPTIONAL" and table == "inputs":
                lines.append('param_type = "optional"  # a case may leave it out (absent: a null address)')
            if table == "outputs" and t.name in mapping.aliases:
                lines.append(f'alias = "{mapping.aliases[t.name]}"  # in place: one GM buffer with the input')
            if table == "outputs" and t.name in mapping.mutated:
                lines.append("kernel_argument = false  # no OpDef output: the kernel writes into the input")
            if table == "outputs" and t.name in mapping.unchecked:
                why = (
                    f"the binding returns it only when {mapping.flags[t.name]}, in no case here"
                    if t.name in mapping.flags
                    else "the task's Model returns no value for it"
                )
                lines.append(f"check = false  # {why}: not compared")
    for a in op.opdef.attrs:
        if a.type is None:
            raise TaskSpecError(f"attr {a.name}: a list attr, which the spec cannot carry yet")
        zero: object = {"bool": False, "str": "", "list_int": []}.get(a.type, 0)
        default = a.default if a.default is not None else zero
        shown = _attr_toml(a.type, default)
        lines += ["", "[[attrs]]", f'name = "{a.name}"', f'type = "{a.type}"', f"default = {shown}"]
    names: list[str] = []
    case_lines: list[str] = []
    out_dtypes: dict[str, str] = {}  # case id -> its first output's dtype (what tolerances are keyed by)
    sized, said = _unreturned_shapes(mapping, got)
    if said:
        notes.append(
            "outputs sized in the cases that do not return them by the shape every returning case gives "
            f"them (an input's, last dims 1): {', '.join(said)}"
        )
    if (
        mapping.unchecked and not mapping.flags and op.opdef is not None
    ):  # never compared: sized as the binding allocates them
        before = len(op.opdef.inputs) + len(op.opdef.attrs)
        made = {
            k: _empty_shapes(task.root, before, [t.name for t in op.opdef.outputs], r)
            for k, r in got.items()
            if isinstance(r, dict)
        }
        allocated = sorted({n for shapes in made.values() for n in shapes if n in mapping.unchecked})
        for k, shapes in made.items():
            for n in allocated:
                if n in shapes:
                    sized.setdefault(k, {})[n] = shapes[n]
        if allocated:
            notes.append(
                f"outputs sized as the binding allocates them (validation/pybind.cpp): {', '.join(allocated)}"
            )
    for line, row in rows:
        case_id = str(row.get("case_id", line))
        record = got.get(case_id)
        name = f"case{case_id}"
        block, column, why = _case_block(name, row, record, mapping, inputs, attrs, columns)
        if not why and sized.get(case_id):
            shown = ", ".join(f"{n} = {list(v)}" for n, v in sized[case_id].items())
            block.insert(-1, "output_shapes = { " + shown + " }  # not returned here, still written")
        if why:
            case_lines += ["", f"# left out: {name} ({task.cases.name}:{line}): {why}"]
            case_lines += [f"# {x}" for x in block]
            notes.append(f"case {name} left out: {why}")
        else:
            case_lines += ["", *block]
            names.append(name)
            out_dtypes[case_id] = column[mapping.outputs[0]]
    tolerances = {d: (t, t, "sum") for d, t in TASK_TOLERANCES.items()}
    asked = _asked_tolerances(got, out_dtypes)
    if asked:
        tolerances.update(asked)
        notes.append(
            f"tolerances from {task.prepare.name}'s custom_check_precision: "
            + ", ".join(f"{d} rtol {r!r} atol {a!r} ({c})" for d, (r, a, c) in asked.items())
        )
    for dtype, (rtol, atol, combine) in tolerances.items():
        lines += ["", f"[tolerances.{dtype}]", f"rtol = {rtol!r}", f"atol = {atol!r}"]
        if combine != "sum":
            lines.append(f"combine = {_q(combine)}  # max(atol, rtol·|expected|), as the task's check")
    lines += ["", "[domain]", "fixed = true  # the benchmark's cases (get_inputs makes their inputs)"]
    lines += case_lines
    if not names:
        whys = list(dict.fromkeys(n.split(": ", 1)[1] for n in notes if n.startswith("case ")))
        raise TaskSpecError(f"no case the kernel can take ({len(rows)} left out): " + "; ".join(whys[:3]))
    notes.append(f"cases from {task.cases} ({len(names)} of {len(rows)})")
    return SpecDraft(text="\n".join(lines) + "\n", notes=notes, case_names=names)


def _asked_tolerances(
    got: dict[str, object], out_dtypes: dict[str, str]
) -> dict[str, tuple[float, float, str]]:
    """(rtol, atol, how they combine) per output dtype (`out_dtypes`: each kept case's) from what the
    task's `custom_check_precision` asked the benchmark's check for on each case, or applies itself
    (the oracle records either); where cases of one dtype differ, the strictest (the larger term, not
    the sum, where any case's is so: never more than either allows)."""
    out: dict[str, tuple[float, float, str]] = {}
    for case_id, record in got.items():
        dtype = out_dtypes.get(case_id)
        if dtype is None or not isinstance(record, dict) or not isinstance(record.get("tolerance"), dict):
            continue
        asked = record["tolerance"]
        try:
            rtol, atol = float(asked["rtol"]), float(asked["atol"])
        except (KeyError, TypeError, ValueError):
            continue
        combine = "max" if asked.get("combine") == "max" else "sum"
        if not (rtol >= 0 and atol >= 0):
            continue
        was = out.get(dtype, (rtol, atol, combine))
        out[dtype] = (min(rtol, was[0]), min(atol, was[1]), "max" if "max" in (combine, was[2]) else "sum")
    return out


def _case_block(
    name: str,
    row: dict[str, Cell],
    record: object,
    mapping: _Mapping,
    inputs: dict[str, OpDefTensor],
    attrs: dict[str, OpDefAttr],
    columns: list[dict[str, str]],
) -> tuple[list[str], dict[str, str], str]:
    """The case's lines, the OpDef dtype column it takes, and why it is left out ("" if it is not)."""
    block = ["[[cases]]", f"name = {_q(name)}"]
    params = "params = { " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in row.items()) + " }"
    if not isinstance(record, dict):
        return [*block, params], {}, str(record)
    values = record.get("args") if "args" in record else record.get("forward")
    assert isinstance(values, list)
    shapes: dict[str, object] = {}
    seen: dict[str, str] = {}
    results: dict[str, str] = {}
    case_attrs: dict[str, object] = {}
    absent: list[str] = []
    for target, desc in zip(mapping.args, values, strict=False):
        if target in inputs and _kind(desc) in _ABSENT and inputs[target].param_type == "OPTIONAL":
            absent.append(target)
        elif target in inputs:
            if _kind(desc) not in ("tensor", "list", "number", "numbers"):
                return (
                    [
                        *block,
                        params,
                    ],
                    {},
                    f"input {target} is passed a {_kind(desc)} value, which no tensor holds",
                )
            d = _dtype_of(desc)
            if d is not None and d.startswith("unsupported:"):
                return (
                    [*block, params],
                    {},
                    f"input {target} is {d.split(':')[1]}, which the spec cannot hold",
                )
            if d is not None:
                seen[target] = d
            shapes[target] = _shape_of(desc)
        elif target in attrs and isinstance(desc, dict):
            case_attrs[target] = desc.get("value")
    for out, desc in zip(mapping.outputs_for(record), record.get("outputs") or [], strict=False):
        d = _dtype_of(desc)
        if d is not None and d.startswith("unsupported:"):
            return [*block, params], {}, f"output {out} is {d.split(':')[1]}, which the spec cannot hold"
        if d is not None:  # the Model's result dtype picks among those columns (a cast's dst_type)
            results[out] = d
    front = mapping.front
    other = front.other_op(shapes, case_attrs) if front is not None and front.other_op else ""
    if other:
        return [*block, params], {}, other
    if front is not None and front.launched_dtypes is not None:
        seen = front.launched_dtypes(seen)  # the dtypes it casts to before it launches the op
    for n, rank in (front.min_rank or {}).items() if front is not None else ():
        shape = shapes.get(n)
        if isinstance(shape, list) and len(shape) < rank:
            shapes[n] = [*shape, *[1] * (rank - len(shape))]  # as the front end launches it
    elements = sum(_elements(s) for s in shapes.values())
    if elements > MAX_CASE_ELEMENTS:
        return (
            [*block, params],
            {},
            (f"{elements} input elements, over the {MAX_CASE_ELEMENTS} a case may hold here (memory)"),
        )
    fits = [c for c in columns if all(_takes(c.get(n), d) for n, d in seen.items())]
    column = next(
        (c for c in fits if all(c.get(n) == d for n, d in results.items())), fits[0] if fits else None
    )
    if column is None:
        got = ", ".join(f"{n}={d}" for n, d in seen.items())
        return [*block, params], {}, f"no OpDef dtype column takes {got}"
    block.append("dtypes = { " + ", ".join(f"{n} = {_q(d)}" for n, d in column.items()) + " }")
    block.append("shapes = { " + ", ".join(f"{n} = {s}" for n, s in shapes.items()) + " }")
    if absent:
        block.append("absent = [" + ", ".join(_q(n) for n in absent) + "]  # passed as None")
    if case_attrs:
        shown = []
        for k, v in case_attrs.items():
            shown.append(f"{k} = {_attr_toml(attrs[k].type, v)}")
        block.append("attrs = { " + ", ".join(shown) + " }")
    if mapping.by_flag is not None:
        block.append("outputs = [" + ", ".join(_q(n) for n in mapping.outputs_for(record)) + "]")
    block.append(params)
    return block, column, ""


def _takes(column: str | None, dtype: str) -> bool:
    """Whether an OpDef column's dtype takes a tensor of `dtype` as the binding hands it on: itself, or a
    bool tensor for a uint8 input (the same bytes, 0 or 1: ScatterList's mask)."""
    return column == dtype or (column == "uint8" and dtype == "bool")


def _elements(shape: object) -> int:
    """Elements in a shape, or in a list input's shapes."""
    if isinstance(shape, list) and shape and all(isinstance(s, list) for s in shape):
        return sum(_elements(s) for s in shape)
    n = 1
    for d in shape if isinstance(shape, list) else []:
        n *= int(d)
    return n


def _attr_toml(kind: str | None, value: object) -> str:
    """An attr's value as TOML, in its type (the oracle records a float attr's 1 as an int)."""
    if kind == "str":
        return json.dumps(str(value))  # a TOML basic string: JSON's escapes are TOML's
    if kind == "list_int":
        return "[" + ", ".join(str(int(v)) for v in value) + "]"  # type: ignore[attr-defined]
    if kind == "bool":
        return str(bool(value)).lower()
    return repr(int(value) if kind == "int" else float(value))  # type: ignore[call-overload,arg-type]


def _toml(value: Cell) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not math.isfinite(value):
        return {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan")
    return repr(value) if isinstance(value, int | float) else _q(value)


def _q(text: str) -> str:
    """A TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(text: str) -> str:
    return text if text.replace("_", "").replace("-", "").isalnum() else _q(text)
