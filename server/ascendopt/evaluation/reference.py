"""Run an operator's NumPy reference (the user's `reference.py:function`) on a case's inputs."""

from __future__ import annotations

import importlib.util
import inspect
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ascendopt.operators.spec import OperatorSpec, ResolvedCase, member_name


class ReferenceError(RuntimeError):
    pass


def load_reference(root: Path, spec: OperatorSpec, source: str | None = None) -> Callable[..., object]:
    """The reference function; `source` (the candidate's copy of the file) wins over the file on disk."""
    rel, _, func = spec.reference.partition(":")
    path = root / rel
    try:
        code = source if source is not None else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReferenceError(f"{rel}: cannot read the reference: {exc}") from exc
    module_spec = importlib.util.spec_from_loader(f"ascendopt_reference_{spec.name}", loader=None)
    assert module_spec is not None
    module = importlib.util.module_from_spec(module_spec)
    module.__file__ = str(path)
    try:
        exec(compile(code, str(path), "exec"), module.__dict__)
    except Exception as exc:  # the user's code: any error is theirs to see, with its line
        raise ReferenceError(f"{_where(exc, rel, path)}: {_what(exc)}") from exc
    # `Class.golden`: a static method (ops-nn's `__spec__` goldens)
    head, _, attr = func.partition(".")
    fn = module.__dict__.get(head)
    fn = getattr(fn, attr, None) if attr else fn
    if not callable(fn):
        raise ReferenceError(f"{rel}: no function {func!r}")
    return fn


def _where(exc: BaseException, rel: str, path: Path) -> str:
    """`reference.py:LINE`: the line of the reference file the error happened on (a syntax error's own
    line; else the innermost traceback frame in that file), or just the file."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{rel}:{exc.lineno}"
    lines = [t.lineno for t in traceback.extract_tb(exc.__traceback__) if t.filename == str(path)]
    return f"{rel}:{lines[-1]}" if lines and lines[-1] else rel


def _what(exc: BaseException) -> str:
    message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    return f"{type(exc).__name__}: {message}"


def run_reference(
    fn: Callable[..., object], spec: OperatorSpec, case: ResolvedCase, inputs: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    def arg(name: str) -> np.ndarray:
        return inputs[name].astype(np.float32) if case.dtype_of(name) == "bfloat16" else inputs[name]

    # A list input (param_type "dynamic") arrives as a Python list of its tensors, in order; an optional
    # input the case leaves out, as None.
    args = [
        None
        if t.name in case.absent
        else [arg(n) for n in case.instances(t.name)]
        if t.name in case.lists
        else arg(t.name)
        for t in spec.inputs
    ]
    params = inspect.signature(fn).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs: dict[str, object] = {k: v for k, v in case.attrs.items() if takes_any or k in params}
    # bfloat16 inputs arrive as float32 arrays, so a reference that rounds intermediates the way the
    # operator does (CANN's goldens round x1 + x2 to the input dtype) asks for the case's dtypes by name.
    if "dtypes" in params and "dtypes" not in case.attrs:
        kwargs["dtypes"] = dict(case.dtypes)
    # ops-nn's golden functions (`tests/assets/golden.py`) read what the tensors are from their
    # **kwargs (lists in OpDef order; the twin's tensors are ND); another reference gets these only
    # by naming them.
    golden = Path(spec.reference.partition(":")[0]).name == "golden.py"
    described = {
        "input_dtypes": [case.dtype_of(t.name) for t in spec.inputs],
        "output_dtypes": [case.dtype_of(t.name) for t in spec.outputs],
        "input_formats": ["ND"] * len(spec.inputs),
        "output_formats": ["ND"] * len(spec.outputs),
        "input_ori_shapes": [
            case.input_shapes.get(next(iter(case.instances(t.name)), t.name)) for t in spec.inputs
        ],
        "attributes": dict(case.attrs),
    }
    for key, value in described.items():
        if ((takes_any and golden) or key in params) and key not in case.attrs:
            kwargs[key] = value
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:
        file = inspect.getsourcefile(fn) or spec.reference.partition(":")[0]
        rel = spec.reference.partition(":")[0]
        raise ReferenceError(
            f"{_where(exc, rel, Path(file))}: reference failed on case {case.name!r}: {_what(exc)}"
        ) from exc
    results = result if isinstance(result, tuple | list) else (result,)
    if len(spec.outputs) == 1 and spec.outputs[0].param_type == "dynamic" and isinstance(result, list):
        results = (result,)  # the only output is a list: the list returned is it
    checked = spec.checked_outputs  # an output with `check = false` has no expected value
    if len(results) != len(checked):
        raise ReferenceError(
            f"reference returned {len(results)} output(s); the spec declares {len(checked)} to check"
        )
    out: dict[str, np.ndarray] = {}
    for t, r in zip(checked, results, strict=True):
        if t.param_type != "dynamic":
            out[t.name] = np.asarray(r)
            continue
        # A list output: the reference returns its tensors as a list, one per instance `y.0`, `y.1`, ….
        if not isinstance(r, list | tuple) or not r:
            raise ReferenceError(f"reference: output {t.name!r} is a list output: return a list of arrays")
        out.update({member_name(t.name, i): np.asarray(a) for i, a in enumerate(r)})
    return out
