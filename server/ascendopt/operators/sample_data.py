"""What a sample itself says about its tensors: shapes, dtypes and value ranges, for `init-spec`.

Read, never run: `scripts/gen_data.py` (its `np.random.uniform(lo, hi, shape).astype(dtype)`
assignments up to `x.tofile("./input/input_x.bin")`), an `AclNNInvocationNaive/main.cpp`
(`std::vector<int64_t> inputXShape = {…}`), and the msOpGen op description `<Op>.json`.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.launch import int_value

# numpy's dtype names (and the aliases samples use) → the spec's
NP_DTYPES = {name: name for name in DTYPES} | {
    "half": "float16",
    "float": "float32",
    "bool_": "bool",
    "uint32": "int32",  # the spec has no unsigned 32-bit type; small values fit
}
ACL_DTYPES = {d.acl: name for name, d in DTYPES.items()}


@dataclass
class TensorHint:
    shape: list[int] | None = None
    dtype: str | None = None
    range: tuple[float, float] | None = None
    values: list[float] | None = None  # fixed contents (a tiling array, a zeroed sync buffer)
    source: str = ""


@dataclass
class _Arr:
    shape: list[int] | None
    dtype: str | None = None
    range: tuple[float, float] | None = None
    values: list[float] | None = None
    mutated: bool = False


@dataclass
class _GenData:
    path: str
    env: dict[str, object] = field(default_factory=dict)
    hints: dict[str, TensorHint] = field(default_factory=dict)
    mutated: set[str] = field(default_factory=set)


def gen_data_hints(path: Path, rel: str) -> dict[str, TensorHint]:
    """Tensor name (from `./input/input_<name>.bin`) → what gen_data.py writes into it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return {}
    g = _GenData(path=rel)
    for node in ast.walk(tree):  # arrays written element by element lose their known range
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    g.mutated.add(t.value.id)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            _run(stmt.body, g)
        else:
            _run([stmt], g)
    return g.hints


def _run(body: list[ast.stmt], g: _GenData) -> None:
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            value = _value(stmt.value, g)
            if isinstance(value, _Arr) and name in g.mutated:
                value = _Arr(value.shape, value.dtype, None, None, True)
            g.env[name] = value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if isinstance(call.func, ast.Attribute) and call.func.attr == "tofile" and call.args:
                target = call.args[0]
                arr = _value(call.func.value, g)
                if (
                    isinstance(target, ast.Constant)
                    and isinstance(target.value, str)
                    and "/input/" in target.value
                    and isinstance(arr, _Arr)
                ):
                    stem = target.value.rsplit("/", 1)[-1].removesuffix(".bin").removeprefix("input_")
                    g.hints[stem] = TensorHint(
                        shape=arr.shape,
                        dtype=arr.dtype,
                        range=arr.range,
                        values=arr.values,
                        source=f"{g.path}:{stmt.lineno}",
                    )


def _dtype(node: ast.expr, g: _GenData) -> str | None:
    if isinstance(node, ast.Attribute):
        if "bfloat16" in ast.unparse(node):  # tf.bfloat16.as_numpy_dtype, ml_dtypes.bfloat16
            return "bfloat16"
        return NP_DTYPES.get(node.attr)
    if isinstance(node, ast.Name):
        if node.id == "bfloat16":
            return "bfloat16"
        v = g.env.get(node.id)
        return v if isinstance(v, str) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return NP_DTYPES.get(node.value)
    return None


def _value(node: ast.expr, g: _GenData) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _value(node.operand, g)
        return -v if isinstance(v, int | float) else _scale(v, -1)
    if isinstance(node, ast.List | ast.Tuple):
        items = [_value(e, g) for e in node.elts]
        return items if all(isinstance(i, int | float) for i in items) else None
    if isinstance(node, ast.Name):
        return g.env.get(node.id, _dtype(node, g))
    if isinstance(node, ast.Attribute):
        return _dtype(node, g)
    if isinstance(node, ast.Dict):
        # `dtype_emu = {bfloat16: 0, np.float16: 1, …}`: keys by value (dtype names), to look up below.
        keys = [_value(k, g) if k is not None else None for k in node.keys]
        return {k: _value(v, g) for k, v in zip(keys, node.values, strict=True) if isinstance(k, str | int)}
    if isinstance(node, ast.Subscript):
        base, idx = _value(node.value, g), _value(node.slice, g)
        if isinstance(base, list) and isinstance(idx, int) and -len(base) <= idx < len(base):
            return base[idx]
        if isinstance(base, dict) and isinstance(idx, str | int) and idx in base:
            return base[idx]
        return None
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, g), _value(node.right, g)
        if isinstance(a, list) and isinstance(b, list) and isinstance(node.op, ast.Add):
            return a + b
        if isinstance(a, int | float) and isinstance(b, int | float):
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            if isinstance(node.op, ast.FloorDiv | ast.Div) and b:
                return a // b if isinstance(node.op, ast.FloorDiv) else a / b
            return ops.get(type(node.op))
        if isinstance(a, _Arr) and isinstance(b, int | float):
            if isinstance(node.op, ast.Mult):
                return _scale(a, b)
            if isinstance(node.op, ast.Add | ast.Sub):
                return _shift(a, b if isinstance(node.op, ast.Add) else -b)
        if isinstance(b, _Arr) and isinstance(a, int | float) and isinstance(node.op, ast.Mult):
            return _scale(b, a)
        return None
    if isinstance(node, ast.Call):
        return _call(node, g)
    return None


def _call(node: ast.Call, g: _GenData) -> object:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    args = list(node.args)

    def shape_of(n: ast.expr | None) -> list[int] | None:
        v = _value(n, g) if n is not None else None
        if isinstance(v, int):
            return [v]
        return [int(x) for x in v] if isinstance(v, list) else None

    if name == "astype" and isinstance(func, ast.Attribute) and args:
        arr = _value(func.value, g)
        if isinstance(arr, _Arr):
            return _Arr(arr.shape, _dtype(args[0], g), arr.range, arr.values, arr.mutated)
        return None
    if name == "uniform":
        lo, hi = (_value(a, g) for a in ([*args, ast.Constant(0.0), ast.Constant(1.0)])[:2])
        shape = shape_of(args[2] if len(args) > 2 else kw.get("size"))
        rng = (float(lo), float(hi)) if isinstance(lo, int | float) and isinstance(hi, int | float) else None
        return _Arr(shape, None, rng)
    if name == "randint":
        vals = [_value(a, g) for a in args[:2]]
        lo, hi = (0, vals[0]) if len(vals) == 1 else [*vals, None, None][:2]
        shape = shape_of(kw.get("size") or (args[2] if len(args) > 2 else None))
        rng = (float(lo), float(hi) - 1) if isinstance(lo, int) and isinstance(hi, int) else None
        return _Arr(shape, None, rng)
    if name in ("random", "rand", "random_sample"):
        return _Arr(shape_of(args[0] if args else kw.get("size")), None, (0.0, 1.0))
    if name == "arange" and args:
        n = _value(args[0], g)
        return _Arr([int(n)], None, (0.0, float(n) - 1)) if isinstance(n, int) else None
    if name in ("zeros", "ones") and args:
        fill = 0.0 if name == "zeros" else 1.0
        return _Arr(shape_of(args[0]), _dtype(kw["dtype"], g) if "dtype" in kw else None, (fill, fill))
    if name == "array" and args:
        v = _value(args[0], g)
        dtype = _dtype(kw["dtype"], g) if "dtype" in kw else None
        if isinstance(v, list):
            return _Arr([len(v)], dtype, (float(min(v)), float(max(v))), [float(x) for x in v])
        if isinstance(v, int | float):
            return _Arr([], dtype, (float(v), float(v)), [float(v)])
        return None
    if name == "concatenate" and args and isinstance(args[0], ast.Tuple | ast.List):
        parts = [_value(e, g) for e in args[0].elts]
        if all(isinstance(p, _Arr) and p.shape is not None for p in parts):
            arrs = [p for p in parts if isinstance(p, _Arr)]
            sizes = [_prod(a.shape or []) for a in arrs]
            ranges = [a.range for a in arrs]
            rng = None
            if all(r is not None for r in ranges):
                rng = (min(r[0] for r in ranges if r), max(r[1] for r in ranges if r))
            return _Arr([sum(sizes)], arrs[0].dtype, rng)
    return None


def _prod(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _scale(v: object, k: float) -> object:
    if not isinstance(v, _Arr) or v.range is None:
        return v
    lo, hi = sorted((v.range[0] * k, v.range[1] * k))
    return _Arr(v.shape, v.dtype, (lo, hi), None, v.mutated)


def _shift(v: _Arr, k: float) -> _Arr:
    rng = (v.range[0] + k, v.range[1] + k) if v.range else None
    return _Arr(v.shape, v.dtype, rng, None, v.mutated)


_TORCH_MAKERS = {"rand", "randn", "ones", "zeros", "empty", "full", "randint", "tensor"}


def torch_test_hints(path: Path, rel: str, function: str, tensors: list[str]) -> dict[str, TensorHint]:
    """A torch extension's Python test: `x = torch.rand([8, 2048], dtype=torch.float16).npu()` and
    `ext.run_add_custom(x, y)` → the function's tensor parameters `tensors` (in order) take x's shape
    and dtype."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    made: dict[str, tuple[list[int], str | None, int]] = {}
    literals: dict[str, object] = {}  # `length = [8, 2048]`
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    for node in sorted(assigns, key=lambda n: n.lineno):
        target, call = node.targets[0], node.value
        if not isinstance(target, ast.Name):
            continue
        try:
            literals[target.id] = ast.literal_eval(call)
            continue
        except ValueError:
            pass
        while isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and not (
            isinstance(call.func.value, ast.Name) and call.func.value.id == "torch"
        ):
            call = call.func.value  # `.npu()`, `.to(…)` after the maker
        if isinstance(call, ast.Name) and call.id in made:  # `x_npu = x.npu()`
            made[target.id] = made[call.id]
            continue
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args):
            continue
        if call.func.attr not in _TORCH_MAKERS:
            continue
        arg = call.args[1] if call.func.attr == "randint" and len(call.args) > 2 else call.args[0]
        try:
            shape = literals.get(arg.id) if isinstance(arg, ast.Name) else ast.literal_eval(arg)
        except ValueError:
            continue
        if isinstance(shape, int):
            shape = [shape]
        if not (isinstance(shape, (list, tuple)) and all(isinstance(d, int) for d in shape)):
            continue
        dtype = next(
            (
                NP_DTYPES.get(k.value.attr)
                for k in call.keywords
                if k.arg == "dtype" and isinstance(k.value, ast.Attribute)
            ),
            None,
        )
        made[target.id] = (list(shape), dtype or "float32", node.lineno)
    short = function.rsplit("::", 1)[-1]
    for use in ast.walk(tree):
        if not isinstance(use, ast.Call):
            continue
        name = use.func.attr if isinstance(use.func, ast.Attribute) else getattr(use.func, "id", None)
        args = [_base_name(a) for a in use.args]
        if name != short or len(args) < len(tensors) or not all(a in made for a in args[: len(tensors)] if a):
            continue
        return {
            t: TensorHint(shape=made[a][0], dtype=made[a][1], source=f"{rel}:{made[a][2]}")
            for t, a in zip(tensors, args, strict=False)
            if a
        }
    return {}


def _base_name(node: ast.expr) -> str | None:
    """`x`, `x.npu()`, `x.to(dev)` → x."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


_NAIVE_SHAPE = re.compile(r"std::vector<int64_t>\s+input(\w+?)Shape\s*=\s*\{([^}]*)\}")
_NAIVE_TENSOR = re.compile(r"CreateAclTensor\(\s*\w+,\s*input(\w+?)Shape\s*,[^;]*aclDataType::(\w+)")


def naive_main_hints(path: Path, rel: str) -> dict[str, TensorHint]:
    """`AclNNInvocationNaive/main.cpp`: `std::vector<int64_t> inputXShape = {13, 123};` → x."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    src = CppSource.parse(rel, text)
    dtypes = {m.group(1).lower(): ACL_DTYPES.get(m.group(2)) for m in _NAIVE_TENSOR.finditer(text)}
    hints: dict[str, TensorHint] = {}
    for m in _NAIVE_SHAPE.finditer(text):
        dims = [int_value(d.strip(), src) for d in m.group(2).split(",") if d.strip()]
        if not dims or any(d is None for d in dims):
            continue
        name = m.group(1)[0].lower() + m.group(1)[1:]
        line = text.count("\n", 0, m.start()) + 1
        hints[name] = TensorHint(
            shape=[int(d) for d in dims if d is not None],
            dtype=dtypes.get(name.lower()),
            source=f"{rel}:{line}",
        )
    return hints


_ACLNN_SHAPE = re.compile(r"std::vector<int64_t>\s+(\w+)\s*=\s*\{([^}]*)\}")
# CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x), or with the
# arguments in another order (…, xShape, aclDataType::ACL_FLOAT, xDeviceAddr, x)
_ACLNN_CALL = re.compile(r"CreateAclTensor\(([^;{]*)\)\s*;")


def aclnn_example_hints(path: Path, rel: str, inputs: list[str], outputs: list[str]) -> dict[str, TensorHint]:
    """A CANN open-repo `examples/test_aclnn_<op>.cpp`: the shape vector and dtype each
    `CreateAclTensor(…, xShape, …, aclDataType::ACL_FLOAT16, &x)` passes, in call order. A tensor
    variable named after an OpDef input is that input; the other inputs take the remaining
    non-output tensors in order (`selfX` → x1)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    src = CppSource.parse(rel, text)
    shapes: dict[str, tuple[list[int], int]] = {}
    for m in _ACLNN_SHAPE.finditer(text):
        dims = [int_value(d.strip(), src) for d in m.group(2).split(",") if d.strip()]
        if dims and all(d is not None for d in dims):
            shapes[m.group(1)] = ([int(d) for d in dims if d is not None], text.count("\n", 0, m.start()) + 1)
    by_lower = {n.lower(): n for n in inputs}
    out_lower = {n.lower() for n in outputs}
    hints: dict[str, TensorHint] = {}
    spare: list[TensorHint] = []
    for m in _ACLNN_CALL.finditer(text):
        args = [a.strip() for a in m.group(1).split(",")]
        shape_var = next((a for a in args if a in shapes), None)
        if shape_var is None or not args[-1].lstrip("&").isidentifier():
            continue
        var = args[-1].lstrip("&")
        acl = next((a.rsplit("::", 1)[-1] for a in args if "aclDataType::" in a), "")
        shape, line = shapes[shape_var]
        hint = TensorHint(shape=shape, dtype=ACL_DTYPES.get(acl), source=f"{rel}:{line}")
        low = var.lower()
        if low in by_lower and by_lower[low] not in hints:
            hints[by_lower[low]] = hint
        elif low not in out_lower and not low.startswith("out"):
            spare.append(hint)
    for name in inputs:
        if name not in hints and spare:
            hints[name] = spare.pop(0)
    return hints


def naive_main_attrs(path: Path, op_type: str, inputs: int, attrs: list[str]) -> dict[str, int]:
    """The attr values `aclnn<Op>GetWorkspaceSize(inputs…, attrs…, outputs…, &ws, &exec)` passes,
    where main.cpp fixes them (`uint32_t axis = 1;`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    m = re.search(rf"aclnn{op_type}GetWorkspaceSize\(([^;]*)\)\s*;", text)
    if m is None:
        return {}
    src = CppSource.parse(path.name, text)
    args = [a.strip() for a in m.group(1).split(",")]
    out: dict[str, int] = {}
    for name, arg in zip(attrs, args[inputs : inputs + len(attrs)], strict=False):
        value = int_value(arg, src)
        if value is not None:
            out[name] = value
    return out


def op_description(
    root: Path, op_type: str
) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]] | None:
    """(inputs, outputs) as (name, dtypes) from the msOpGen `<Op>.json` for `op_type`, beside the
    project or one folder up."""
    for folder in (root, root.parent):
        for path in sorted(folder.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            for entry in data if isinstance(data, list) else [data]:
                if isinstance(entry, dict) and entry.get("op") == op_type:
                    return _desc(entry.get("input_desc")), _desc(entry.get("output_desc"))
    return None


def _desc(items: object) -> list[tuple[str, list[str]]]:
    out = []
    for t in items if isinstance(items, list) else []:
        if isinstance(t, dict) and "name" in t:
            raw = t.get("type")
            types = raw if isinstance(raw, list) else []
            out.append((str(t["name"]), [NP_DTYPES.get(str(x), str(x)) for x in types]))
    return out


def golden_files(path: Path) -> tuple[dict[str, str], list[str]]:
    """The files a golden generator writes, as paths relative to the folder it runs in: inputs by
    tensor name (`./input/input_x.bin` → x) and the golden outputs in the order it writes them
    (`./output/golden.bin`). Read without running it (constant paths only)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return {}, []
    inputs: dict[str, str] = {}
    outputs: list[str] = []
    calls = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for call in calls:
        assert isinstance(call.func, ast.Attribute)
        if call.func.attr != "tofile" or not call.args:
            continue
        target = call.args[0]
        if not (isinstance(target, ast.Constant) and isinstance(target.value, str)):
            continue
        rel = target.value.removeprefix("./")
        if rel.startswith("input/"):
            inputs[rel.rsplit("/", 1)[-1].removesuffix(".bin").removeprefix("input_")] = rel
        elif rel.startswith("output/") and rel not in outputs:
            outputs.append(rel)
    return inputs, outputs


def golden_function(path: Path, op_name: str) -> str | None:
    """The function an ops-nn-style `tests/assets/golden.py` registers for kernel `op_name`, read
    without running it: `__golden__ = {"kernel": {op: "fn"}}` gives `fn`; `__spec__ = {op: "Cls"}`
    (a class with a static `golden`) gives `Cls.golden`. The sole registration is taken when none is
    keyed by `op_name`. None when the file registers no function it defines."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {
        n.name
        for n in tree.body
        if isinstance(n, ast.ClassDef)
        and any(isinstance(m, ast.FunctionDef) and m.name == "golden" for m in n.body)
    }
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            continue
        registry = (
            value.get("kernel") if node.targets[0].id == "__golden__" and isinstance(value, dict) else None
        )
        if node.targets[0].id == "__spec__" and isinstance(value, dict):
            registry = value
        if not isinstance(registry, dict) or not registry:
            continue
        name = registry.get(op_name, next(iter(registry.values())) if len(registry) == 1 else None)
        if node.targets[0].id == "__golden__" and name in defined:
            return str(name)
        if node.targets[0].id == "__spec__" and name in classes:
            return f"{name}.golden"
    return None


@dataclass(frozen=True)
class VerifyTolerance:
    """A sample checker's tolerances (`scripts/verify_result.py`): np.isclose's rtol and atol, and
    the share of elements allowed outside them, for the dtype it reads the output as (None: unsaid)."""

    dtype: str | None
    rtol: float
    atol: float
    mismatch_fraction: float
    line: int  # of relative_tol, for the spec's note


_TOL_NAMES = {"relative_tol": "rtol", "absolute_tol": "atol", "error_tol": "mismatch_fraction"}


def verify_tolerances(path: Path) -> VerifyTolerance | None:
    """The module-level `relative_tol`, `absolute_tol` (and `error_tol`) of a sample's checker, and
    the dtype of its first `np.fromfile(…, dtype=np.X)`; read without running it. None without both
    tolerances as plain numbers."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    found: dict[str, float] = {}
    line = 0
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = _TOL_NAMES.get(node.targets[0].id)
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if key and isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                found[key] = float(value)
                line = node.lineno if key == "rtol" else line
    if "rtol" not in found or "atol" not in found:
        return None
    dtype = None
    for call in sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)
    ):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "fromfile":
            kw = next((k.value for k in call.keywords if k.arg == "dtype"), None)
            if isinstance(kw, ast.Attribute):
                dtype = NP_DTYPES.get(kw.attr)
                break
    return VerifyTolerance(
        dtype, found["rtol"], found["atol"], min(found.get("mismatch_fraction", 0.0), 1.0), line
    )
