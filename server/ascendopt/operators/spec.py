"""The operator spec, `ascendopt.toml`: tensors, dtypes, cases, reference, tolerances.

Every error names the spec file and the line it comes from, so the editor can
put a diagnostic on it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ascendopt.operators.dtypes import DType
from ascendopt.operators.issues import Issue, SpecError
from ascendopt.operators.soc import DEFAULT_SOC
from ascendopt.operators.toml_lines import TomlLineIndex

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SPEC_FILE = "ascendopt.toml"
SCHEMA_VERSION = 1

# CANN's own precision conventions: fp16 1e-3, fp32 1e-4, bf16 ~4e-3, integers exact; complex64's real
# and imaginary parts as fp32.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3),
    "float32": (1e-4, 1e-4),
    "bfloat16": (4e-3, 4e-3),
    "complex64": (1e-4, 1e-4),  # each part, as float32
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TensorSpec(_Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    dtypes: list[DType] = Field(min_length=1)
    range: tuple[float, float] = (-1.0, 1.0)
    # The OpDef's ParamType: "dynamic" is a list of tensors (ParamType(DYNAMIC)); each case then gives
    # one shape per tensor, `shapes = { x = [[8, 16], [8, 16]] }`, and all of them share the dtype. A
    # list output has as many tensors, and their shapes, as the reference returns for it (a list).
    # "optional" (ParamType(OPTIONAL)): a case may leave it out (`absent = ["bias"]`); the kernel then
    # gets a null address for it and the tiling's GetOptionalInput* return nullptr.
    param_type: Literal["required", "dynamic", "optional"] = "required"
    # Outputs only. `alias`: the input whose GM buffer this output is (an in-place "ref" output, OpDef
    # output named like its input, kernel parameter `x_ref`): one buffer for both, holding the input's
    # values when the kernel starts and compared as this output after it. Such an output may carry its
    # input's name, as the OpDef does. `kernel_argument = false`: the kernel takes no parameter for it
    # (an OpDef with no output: the kernel writes its result into the input).
    alias: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    kernel_argument: bool = True
    # Outputs only. `check = false`: the kernel writes it (its buffer is sized by the OpDef's InferShape)
    # but nothing says what it should hold (a benchmark task's Model returns fewer values): not compared.
    check: bool = True

    @model_validator(mode="after")
    def _range_ordered(self) -> TensorSpec:
        if self.range[0] > self.range[1]:
            raise ValueError(f"range [{self.range[0]}, {self.range[1]}] has its low end above its high end")
        return self


# An attr's value: `.Float` / `.Int` / `.Bool` / `.String` / `.ListInt` in the OpDef.
AttrValue = float | int | bool | str | list[int]


def attr_value_error(type_: str, value: AttrValue) -> str | None:
    """Why `value` cannot be a `type_` attr's value, or None."""
    listed = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    if (type_ == "str") != isinstance(value, str) or (type_ == "list_int") != listed:
        return f"a {type_} attr cannot take {value!r}"
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        return "a string attr is one line"  # the case manifest gives each attr one line
    return None


class AttrSpec(_Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    type: Literal["float", "int", "bool", "str", "list_int"]
    default: AttrValue

    @model_validator(mode="after")
    def _default_fits(self) -> AttrSpec:
        why = attr_value_error(self.type, self.default)
        if why:
            raise ValueError(f"attr {self.name!r}: default: {why}")
        return self


class Tolerance(_Strict):
    rtol: float = Field(ge=0)
    atol: float = Field(ge=0)
    # Share of elements allowed outside rtol/atol (CANN's "99.9 % within 1e-3" style checks).
    mismatch_fraction: float = Field(default=0.0, ge=0, le=1)
    # How atol and rtol combine into an element's allowance: "sum", atol + rtol·|expected| (numpy's
    # allclose); "max", max(atol, rtol·|expected|) (a benchmark task's own mask, rtol·max(1, |expected|)).
    combine: Literal["sum", "max"] = "sum"


class OracleSpec(_Strict):
    """An oracle that makes the inputs and the expected outputs itself, in place of reference.py
    (paths relative to the spec), run sandboxed:

    - `kernelbench`: a benchmark task's PyTorch oracle (KernelBench convention): inputs from
      `get_inputs(params)` in `prepare`, expected outputs from `Model` in `module`. `args` names, in
      the NPU binding's order, the input or attr each argument is ("" for one the kernel does not
      take); `outputs` the output each value `Model` returns is.
    - `golden_script`: a sample's golden generator (`scripts/gen_data.py`, in `module`), run in a
      folder of its own under a fresh seed; `files` maps each tensor to the file it writes there
      (`x = "input/input_x.bin"`, `z = "output/golden.bin"`).

    `flattened`: list outputs that the Model returns as one tensor, their tensors flattened and
    concatenated in order (`torch.cat([t.flatten() for t in xs])`); each must alias a list input, whose
    tensors' sizes split it."""

    kind: Literal["kernelbench", "golden_script"] = "kernelbench"
    module: str
    prepare: str = ""
    args: list[str] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    flattened: list[str] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)


class CaseSpec(_Strict):
    name: str
    # A list input (param_type "dynamic") has a list of shapes, one per tensor of the list.
    shapes: dict[str, list[int] | list[list[int]]]
    dtype: DType | None = None
    dtypes: dict[str, DType] = Field(default_factory=dict)
    attrs: dict[str, AttrValue] = Field(default_factory=dict)
    # Fixed contents for an input instead of random values (a tiling array a sample reads from a
    # file, a zeroed sync buffer): flattened, as many values as the shape holds.
    values: dict[str, list[float]] = Field(default_factory=dict)
    # The benchmark's row for this case (test_cases.csv), handed to the oracle's get_inputs.
    params: dict[str, str | int | float | bool] = Field(default_factory=dict)
    # Optional inputs (param_type "optional") this case does not pass: no shape, a null address.
    absent: list[str] = Field(default_factory=list)
    # The output each value the oracle's Model returns is, in this case, in place of [oracle] outputs (a
    # binding returning other outputs under a flag); the outputs left out are not compared in this case.
    outputs: list[str] | None = None
    # Shapes for outputs this case has no expected value for (not among its `outputs`), which the
    # kernel still writes: the buffers they are given (else the op's InferShape sizes them).
    output_shapes: dict[str, list[int]] = Field(default_factory=dict)


def member_name(name: str, i: int) -> str:
    """The name of tensor `i` of list input or output `name` (a dot: no spec tensor name has one)."""
    return f"{name}.{i}"


def output_instances(outputs: list[TensorSpec], names: Iterable[str]) -> list[tuple[TensorSpec, list[str]]]:
    """Each output with its instance names among `names` (a case's expected outputs): itself, or a
    list output's tensors `y.0`, `y.1`, … in order (as many as the reference returned)."""
    have = set(names)
    out = []
    for t in outputs:
        if t.param_type != "dynamic":
            out.append((t, [t.name]))
            continue
        n = 0
        while member_name(t.name, n) in have:
            n += 1
        out.append((t, [member_name(t.name, i) for i in range(n)]))
    return out


class ResolvedCase(BaseModel):
    """A case with every tensor's dtype and every attr's value decided.

    `input_shapes` holds one entry per tensor instance, in order: a required input by its name, a
    list input's tensors as `name.0`, `name.1`, … (`lists` gives their count); `dtypes` is per spec
    tensor (a list's tensors share one)."""

    index: int
    name: str
    input_shapes: dict[str, list[int]]
    dtypes: dict[str, DType]
    attrs: dict[str, AttrValue]
    values: dict[str, list[float]] = Field(default_factory=dict)
    lists: dict[str, int] = Field(default_factory=dict)
    params: dict[str, str | int | float | bool] = Field(default_factory=dict)
    absent: list[str] = Field(default_factory=list)  # optional inputs not passed (no instance)
    outputs: list[str] | None = None  # the case's own oracle outputs (CaseSpec.outputs)
    output_shapes: dict[str, list[int]] = Field(default_factory=dict)  # CaseSpec.output_shapes

    def instances(self, tensor: str) -> list[str]:
        """The instance names of an input: itself, its list's tensors, or none (absent)."""
        if tensor in self.absent:
            return []
        if tensor in self.lists:
            return [member_name(tensor, i) for i in range(self.lists[tensor])]
        return [tensor]

    def dtype_of(self, instance: str) -> DType:
        return self.dtypes[instance.split(".", 1)[0]]


class ShapeDomain(_Strict):
    """The shapes the operator accepts, beyond the spec's cases: the final re-check draws fresh
    shapes inside it (README, "The final re-check")."""

    fixed: bool = False  # only the spec's own shapes (e.g. a kernel with TOTAL_LENGTH compiled in)
    last_dim_multiple: int = Field(default=1, ge=1)  # elements; e.g. 16 when rows must be 32 B aligned
    elements_multiple: int = Field(default=1, ge=1)  # total elements per input; e.g. the core split × tile
    max_elements: int | None = Field(default=None, ge=1)  # per input; the largest size the operator takes

    def admits(self, shape: list[int]) -> str | None:
        """None if the domain takes `shape`, else why not."""
        n = 1
        for d in shape:
            n *= d
        if shape and shape[-1] % self.last_dim_multiple:
            return f"last dim {shape[-1]} is not a multiple of {self.last_dim_multiple}"
        if n % self.elements_multiple:
            return f"{n} elements is not a multiple of {self.elements_multiple}"
        if self.max_elements is not None and n > self.max_elements:
            return f"{n} elements is above max_elements {self.max_elements}"
        return None


class OperatorSpec(_Strict):
    schema_version: int = SCHEMA_VERSION
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    soc: str = DEFAULT_SOC
    reference: str = "reference.py:reference"
    block_dim: int | None = Field(default=None, ge=1, le=65535)
    inputs: list[TensorSpec] = Field(min_length=1)
    outputs: list[TensorSpec] = Field(min_length=1)
    attrs: list[AttrSpec] = Field(default_factory=list)
    cases: list[CaseSpec] = Field(min_length=1)
    tolerances: dict[DType, Tolerance] = Field(default_factory=dict)
    domain: ShapeDomain = Field(default_factory=ShapeDomain)
    oracle: OracleSpec | None = None  # a benchmark task's Model and get_inputs instead of the reference

    @model_validator(mode="after")
    def _check(self) -> OperatorSpec:
        if self.schema_version != SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {self.schema_version} is not supported (this is {SCHEMA_VERSION})"
            )
        if ":" not in self.reference:
            raise ValueError(f"reference {self.reference!r} must be 'file.py:function'")
        # An output aliasing an input may carry its name (the OpDef's `Output("x")` of `Input("x")`).
        names = [t.name for t in self.inputs] + [t.name for t in self.outputs if t.alias != t.name]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tensor names must be unique; repeated: {', '.join(dupes)}")
        self._check_aliases()
        return self

    def _check_aliases(self) -> None:
        inputs = {t.name: t for t in self.inputs}
        for t in self.inputs:
            if t.alias is not None or not t.kernel_argument or not t.check:
                raise ValueError(f"input {t.name}: alias, kernel_argument and check are for outputs")
        for t in self.outputs:
            if t.param_type == "optional":
                raise ValueError(f'output {t.name}: param_type "optional" is for inputs')
            if t.alias is None:
                if not t.kernel_argument:
                    raise ValueError(
                        f"output {t.name}: kernel_argument = false needs an alias "
                        "(the input it is written into)"
                    )
                continue
            source = inputs.get(t.alias)
            if source is None:
                raise ValueError(f"output {t.name}: alias {t.alias!r} is no input ({', '.join(inputs)})")
            if (source.param_type == "dynamic") != (t.param_type == "dynamic"):
                # a list output in place of a list input: tensor i is the input's tensor i
                raise ValueError(
                    f"output {t.name}: alias {t.alias!r}: a list output aliases a list input, "
                    "a tensor a tensor"
                )
        if self.oracle is not None:
            lists = {t.name for t in self.outputs if t.param_type == "dynamic" and t.alias}
            wrong = [n for n in self.oracle.flattened if n not in lists]
            if wrong:
                raise ValueError(
                    f"oracle.flattened: {', '.join(wrong)} is no list output aliasing a list input "
                    "(whose tensors' sizes split the Model's flat tensor)"
                )
        aliased = [t.alias for t in self.outputs if t.alias]
        twice = sorted({a for a in aliased if aliased.count(a) > 1})
        if twice:
            raise ValueError(f"input(s) {', '.join(twice)} aliased by more than one output")

    @property
    def checked_outputs(self) -> list[TensorSpec]:
        """The outputs compared with expected values (not those with `check = false`)."""
        return [t for t in self.outputs if t.check]

    def checked_in(self, case: ResolvedCase) -> list[TensorSpec]:
        """The outputs compared in `case`: the checked ones, among the case's own oracle outputs if it
        names them."""
        return [t for t in self.checked_outputs if case.outputs is None or t.name in case.outputs]

    @property
    def unchecked_outputs(self) -> list[str]:
        return [t.name for t in self.outputs if not t.check]

    def tolerance(self, dtype: str) -> Tolerance:
        if dtype in self.tolerances:
            return self.tolerances[dtype]
        rtol, atol = DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))
        return Tolerance(rtol=rtol, atol=atol)

    def resolve_cases(self) -> list[ResolvedCase]:
        """Decide each case's dtypes and attrs; raise ValueError naming the case on a mismatch."""
        return [self._resolve(i, c) for i, c in enumerate(self.cases)]

    def _resolve(self, index: int, case: CaseSpec) -> ResolvedCase:
        where = f"case {case.name!r}"
        input_names = [t.name for t in self.inputs]
        optional = {t.name for t in self.inputs if t.param_type == "optional"}
        wrong = [n for n in case.absent if n not in optional]
        if wrong:
            raise _CaseError(
                index,
                "absent",
                f'{where}: only optional inputs (param_type "optional") may be absent: {", ".join(wrong)}',
            )
        aliased = [n for n in case.absent if any(t.alias == n for t in self.outputs)]
        if aliased:
            raise _CaseError(index, "absent", f"{where}: {', '.join(aliased)} is aliased by an output")
        missing = [n for n in input_names if n not in case.shapes and n not in case.absent]
        extra = [n for n in case.shapes if n not in input_names or n in case.absent]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"no shape for input(s) {', '.join(missing)}")
            if extra:
                parts.append(f"shape(s) for unknown input(s) {', '.join(extra)}")
            raise _CaseError(
                index, "shapes", f"{where}: {'; '.join(parts)} (inputs are {', '.join(input_names)})"
            )
        shapes: dict[str, list[int]] = {}
        lists: dict[str, int] = {}
        for t in self.inputs:
            if t.name in case.absent:
                continue
            shape = case.shapes[t.name]
            nested = bool(shape) and all(isinstance(s, list) for s in shape)
            if t.param_type == "dynamic":
                if not nested:
                    raise _CaseError(
                        index,
                        "shapes",
                        f'{where}: {t.name!r} is a list input (param_type "dynamic"): give one shape per '
                        f"tensor, e.g. {t.name} = [{shape}, {shape}]",
                    )
                members = [list(s) for s in shape if isinstance(s, list)]
                lists[t.name] = len(members)
                for i, m in enumerate(members):
                    shapes[member_name(t.name, i)] = m
            elif nested or any(isinstance(d, list) for d in shape):
                raise _CaseError(
                    index,
                    "shapes",
                    f"{where}: {t.name!r} has a list of shapes, but it is one tensor "
                    f'(set param_type = "dynamic" on the input if it is a list)',
                )
            else:
                shapes[t.name] = [d for d in shape if isinstance(d, int)]
        for name, shape in shapes.items():
            if not shape or any(d <= 0 for d in shape):
                raise _CaseError(index, "shapes", f"{where}: shape {shape} of {name!r} needs positive dims")
        for name, vals in case.values.items():
            if name not in input_names:
                raise _CaseError(index, "values", f"{where}: values for unknown input {name!r}")
            if name in lists:
                raise _CaseError(index, "values", f"{where}: fixed values for a list input are not supported")
            size = 1
            for d in shapes[name]:
                size *= d
            if len(vals) != size:
                raise _CaseError(
                    index, "values", f"{where}: {len(vals)} values for {name!r}, whose shape holds {size}"
                )
        plain = {t.name for t in self.outputs if t.param_type != "dynamic"}
        sized = [n for n, s in case.output_shapes.items() if n not in plain or any(d <= 0 for d in s)]
        if sized:
            raise _CaseError(
                index, "output_shapes", f"{where}: no output (not a list) or a dim <= 0: {', '.join(sized)}"
            )
        wrong = [n for n in case.outputs or [] if n and n not in {t.name for t in self.outputs}]
        if wrong or (case.outputs is not None and self.oracle is None):
            bad = f"unknown output(s) {', '.join(wrong)}" if wrong else "outputs are the [oracle]'s"
            raise _CaseError(index, "outputs", f"{where}: {bad}")
        unknown = [n for n in case.dtypes if n not in {t.name for t in (*self.inputs, *self.outputs)}]
        if unknown:
            raise _CaseError(index, "dtypes", f"{where}: dtypes for unknown tensor(s) {', '.join(unknown)}")
        dtypes: dict[str, DType] = {}
        for t in (*self.inputs, *self.outputs):
            chosen = case.dtypes.get(t.name) or case.dtype or (t.dtypes[0] if len(t.dtypes) == 1 else None)
            if chosen is None:
                raise _CaseError(
                    index, "dtype", f"{where}: say which dtype {t.name!r} has ({', '.join(t.dtypes)})"
                )
            if chosen not in t.dtypes:
                raise _CaseError(
                    index,
                    "dtype",
                    f"{where}: {t.name!r} does not take {chosen} (it takes {', '.join(t.dtypes)})",
                )
            if t.name in dtypes and dtypes[t.name] != chosen:  # an output named like the input it aliases
                raise _CaseError(index, "dtype", f"{where}: {t.name!r} is one buffer: give it one dtype")
            dtypes[t.name] = chosen
        for t in self.outputs:
            if t.alias is not None and dtypes[t.name] != dtypes[t.alias]:
                raise _CaseError(
                    index,
                    "dtype",
                    f"{where}: output {t.name!r} is input {t.alias!r}'s buffer, so it has its dtype "
                    f"({dtypes[t.alias]}), not {dtypes[t.name]}",
                )
        self._check_dtype_column(index, where, dtypes)
        attrs: dict[str, AttrValue] = {a.name: a.default for a in self.attrs}
        types = {a.name: a.type for a in self.attrs}
        for k, v in case.attrs.items():
            if k not in attrs:
                raise _CaseError(index, "attrs", f"{where}: unknown attr {k!r}")
            why = attr_value_error(types[k], v)
            if why:
                raise _CaseError(index, "attrs", f"{where}: attr {k!r}: {why}")
            attrs[k] = v
        return ResolvedCase(
            index=index,
            name=case.name,
            input_shapes=shapes,
            dtypes=dtypes,
            attrs=attrs,
            values=case.values,
            lists=lists,
            params=case.params,
            absent=list(case.absent),
            outputs=case.outputs,
            output_shapes=case.output_shapes,
        )

    def _check_dtype_column(self, index: int, where: str, dtypes: dict[str, DType]) -> None:
        # OpDef dtype lists are columns: the i-th entry of every tensor forms one supported combination.
        tensors = [*self.inputs, *self.outputs]
        widths = {len(t.dtypes) for t in tensors}
        if len(widths) != 1:
            return
        for col in range(widths.pop()):
            if all(t.dtypes[col] == dtypes[t.name] for t in tensors):
                return
        combo = ", ".join(f"{n}={d}" for n, d in dtypes.items())
        raise _CaseError(
            index, "dtype", f"{where}: dtype combination {combo} is not one the operator declares"
        )


class _CaseError(ValueError):
    def __init__(self, index: int, key: str, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.key = key


def load_spec(path: Path) -> OperatorSpec:
    """Read and validate a spec; raise SpecError with file:line issues on any problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Issue(file=str(path), line=1, message=f"cannot read spec: {exc}")]) from exc
    return parse_spec(text, path)


def parse_spec(text: str, path: Path) -> OperatorSpec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _syntax_line(str(exc), getattr(exc, "lineno", None), getattr(exc, "colno", None), text)
        raise SpecError(
            [Issue(file=str(path), line=line, message=f"TOML syntax: {exc.args[0] if exc.args else exc}")]
        ) from exc
    index = TomlLineIndex(text)
    try:
        spec = OperatorSpec.model_validate(data)
    except ValidationError as exc:
        issues = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            got = err.get("input")
            shown = f" (got {got!r})" if isinstance(got, str | int | float | bool) else ""
            issues.append(
                Issue(file=str(path), line=index.line_of(loc), message=f"{_dotted(loc)}: {err['msg']}{shown}")
            )
        raise SpecError(issues) from exc
    try:
        spec.resolve_cases()
    except _CaseError as exc:
        keys = ("dtypes", "dtype") if exc.key in ("dtype", "dtypes") else (exc.key,)
        exact = [index.exact(("cases", exc.index, k)) for k in keys]
        line = next((n for n in exact if n), None) or index.line_of(("cases", exc.index))
        raise SpecError([Issue(file=str(path), line=line, message=str(exc))]) from exc
    return spec


def _dotted(loc: tuple[object, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "spec"


_LOOKS_BACK = ("Unclosed array", "Unclosed inline table", "Invalid value", "Unterminated string")


def _syntax_line(message: str, lineno: int | None, colno: int | None, text: str) -> int:
    """The line to blame for a TOML syntax error.

    tomllib (Python < 3.14 puts the position only in the message) reports where it noticed:
    inside an array it skips newlines first, so a missing comma or bracket is reported at
    the start of the next value's line, one line late. Then the previous non-blank line is
    the one to fix.
    """
    lines = text.splitlines()
    if lineno is None:
        if "at end of document" in message:
            written = [n for n, line in enumerate(lines, 1) if line.strip() and line.strip()[0] != "#"]
            return written[-1] if written else 1
        m = re.search(r"at line (\d+), column (\d+)", message)
        if not m:
            return 1
        lineno, colno = int(m.group(1)), int(m.group(2))
    if not message.startswith(_LOOKS_BACK) or lineno > len(lines) or lineno < 2:
        return max(1, lineno)
    here = lines[lineno - 1]
    at_start = colno is not None and colno <= len(here) - len(here.lstrip()) + 1
    if not at_start:
        return lineno
    for n in range(lineno - 1, 0, -1):
        prev = lines[n - 1].strip()
        if prev and not prev.startswith("#"):
            return n
    return lineno
