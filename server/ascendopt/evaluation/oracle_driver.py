"""Run a benchmark task's PyTorch oracle on its cases; the sandbox runs this file with `python -I`.

Standalone on purpose (stdlib, NumPy and torch only: it never imports ascendopt), since it runs
third-party code: the task's `prepare_inputs.py` and `module.py` (KernelBench convention). For each
case of the request it seeds torch, NumPy and `random`, calls `get_inputs(param)` and
`get_init_inputs(param)`, records what `ModelNew` hands the NPU binding (the arguments the kernel
gets, in the binding's order), runs `Model` on copies of the inputs, and writes
`<out>/<key>.npz` (arrays) and `<out>/<key>.json` (what each value is). The NPU-only imports the
task makes (`torch_npu`, its `transfer_to_npu`, the binding `kernel_gen_ops`) are empty stand-ins.

A request of kind `golden_script` runs a sample's golden generator instead (`run_script`).

Usage: python -I oracle_driver.py REQUEST.json OUT_DIR
"""

from __future__ import annotations

import json
import math
import os
import random
import runpy
import sys
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

try:  # a golden generator may need NumPy only
    import torch
except ImportError:
    torch = None  # type: ignore[assignment, unused-ignore]  # (unused where torch is absent)

# NPU-only modules, and the benchmark harness's `framework.utils` (its `check_precision` is the
# benchmark's comparison; ours replaces it, reading only the tolerances a task asks it for): empty
# modules here.
STAND_INS = (
    "torch_npu",
    "torch_npu.contrib",
    "torch_npu.contrib.transfer_to_npu",
    "kernel_gen_ops",
    "framework",
    "framework.utils",
)
PROBE_ELEMENTS = 1 << 16  # the most elements a tolerance probe's tensors hold (probe_shape)


class _Called(Exception):
    """Raised by the binding stand-in: ModelNew reached the kernel with these arguments."""

    def __init__(self, name: str, args: tuple[object, ...]) -> None:
        super().__init__(name)
        self.name = name
        self.args_seen = args


class _Tolerance(Exception):
    """Raised by the `check_precision` stand-in: the tolerances a task's custom check asked for."""

    def __init__(self, atol: object, rtol: object) -> None:
        super().__init__("tolerance")
        self.atol, self.rtol = atol, rtol


def _check_precision(outputs: object, new: object, max_abs_error: object, max_rel_error: object) -> object:
    raise _Tolerance(max_abs_error, max_rel_error)


def _allowance(
    check: Callable[..., object], param: object, shape: Sequence[int], value: float
) -> float | None:
    """The largest error `check` lets pass on an element whose expected value is `value` (the others
    exact), by bisection; None when it refuses no error or refuses an exact result. float32 tensors: the
    check's precision comes from `param` (a check keyed on the tensors' dtype gets float32's, stricter)."""

    def passes(error: float) -> bool:
        expected = torch.full(tuple(shape), value, dtype=torch.float32)
        got = expected.clone()
        got.view(-1)[0] = value + error
        verdict = check(param, expected, got)
        return bool(verdict[0] if isinstance(verdict, tuple | list) else verdict)

    top = max(1.0, abs(value))
    if not passes(0.0) or passes(top):
        return None
    low, high = 0.0, top
    for _ in range(48):
        mid = (low + high) / 2
        low, high = (mid, high) if passes(mid) else (low, mid)
    return low


def probe_shape(shape: Sequence[int]) -> list[int]:
    """The shape the probe's tensors take: the result's, or for a large result one of the same rank
    with its longest dims halved until it holds PROBE_ELEMENTS or fewer. The probe calls the check
    ~150 times; on a 105.6 M-element result (GroupedMatmulSliceKPerTokenDequant) that ran past the
    oracle's 10-minute limit, and an allowance per element does not depend on the count."""
    dims = list(shape)
    while math.prod(dims) > PROBE_ELEMENTS:
        longest = dims.index(max(dims))
        dims[longest] = (dims[longest] + 1) // 2
    return dims


def probe_tolerance(check: Callable[..., object], param: object, result: object) -> dict[str, object] | None:
    """The (atol, rtol, combine) a task's own precision check applies to a one-tensor float result,
    measured at expected values 0, 8 and 16: `max` where the allowance is max(atol, rtol·|x|) (the
    benchmark's masks, rtol·max(1, |x|)), else `sum`, atol + rtol·|x|. None when it cannot be told."""
    if not isinstance(result, torch.Tensor) or not result.is_floating_point() or result.numel() == 0:
        return None
    shape = probe_shape(result.shape)
    try:
        at = [_allowance(check, param, shape, v) for v in (0.0, 8.0, 16.0)]
    except Exception:  # third-party code given tensors it did not make: no tolerance from it
        return None
    if any(a is None for a in at):
        return None
    t0, t8, t16 = (float(a) for a in at if a is not None)
    if t16 <= t0 * (1 + 1e-3):  # no relative term
        return {"atol": t0, "rtol": 0.0, "combine": "sum"}
    # At 8, the larger term is half the allowance at 16; the sum is halfway between those at 0 and 16.
    if abs(t8 - t16 / 2) < abs(t8 - (t0 + t16) / 2):
        return {"atol": t0, "rtol": t16 / 16, "combine": "max"}
    return {"atol": t0, "rtol": (t16 - t0) / 16, "combine": "sum"}


def _binding(name: str) -> object:
    def call(*args: object, **kwargs: object) -> object:
        raise _Called(name, (*args, *kwargs.values()))

    return call


def _install_stand_ins() -> None:
    for name in STAND_INS:
        module = types.ModuleType(name)
        sys.modules[name] = module
    sys.modules["torch_npu"].contrib = sys.modules["torch_npu.contrib"]  # type: ignore[attr-defined]
    contrib = sys.modules["torch_npu.contrib"]
    contrib.transfer_to_npu = sys.modules["torch_npu.contrib.transfer_to_npu"]  # type: ignore[attr-defined]
    setattr(sys.modules["kernel_gen_ops"], "__getattr__", _binding)  # noqa: B010 (a module's __getattr__)
    sys.modules["framework"].utils = sys.modules["framework.utils"]  # type: ignore[attr-defined]
    sys.modules["framework.utils"].check_precision = _check_precision  # type: ignore[attr-defined]


def _load(path: Path, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def _describe(value: object, prefix: str, arrays: dict[str, np.ndarray] | None) -> dict[str, object]:
    """What a value is, its arrays stored in `arrays` under `prefix` (bfloat16 as float32: exact)."""
    if isinstance(value, torch.Tensor) and value.layout != torch.strided:
        # a sparse tensor (a Model's own input, e.g. torch.sparse_coo_tensor): no kernel takes one
        return {"kind": "other", "type": f"{str(value.layout).removeprefix('torch.')} tensor"}
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        dtype = str(t.dtype).removeprefix("torch.")
        if t.is_conj():  # a lazily conjugated view: its values, not its storage
            t = t.resolve_conj()
        if t.dtype == torch.bfloat16:
            t = t.float()
        if arrays is not None:  # None: shapes only (deriving a spec), no copy of the values
            arrays[prefix] = t.numpy().copy()
        described: dict[str, object] = {"kind": "tensor", "dtype": dtype, "shape": list(value.shape)}
        if t.numel() == 1 and not t.is_complex():  # what a binding taking a number gets (pybind: float(t))
            described["value"] = t.item()
        return described
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, torch.Tensor) for v in value):
            return {
                "kind": "list",
                "items": [_describe(v, f"{prefix}.{i}", arrays) for i, v in enumerate(value)],
            }
        if all(isinstance(v, bool | int | float) for v in value):
            return {"kind": "numbers", "value": list(value)}
        return {"kind": "other", "type": type(value).__name__}
    if isinstance(value, bool | int | float):
        return {"kind": "number", "value": value}
    if isinstance(value, np.bool_ | np.integer | np.floating):  # get_init_inputs' NumPy scalars
        return {"kind": "number", "value": value.item()}
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if value is None:
        return {"kind": "none"}
    return {"kind": "other", "type": type(value).__name__}


def _copy(values: list[object]) -> list[object]:
    """Copies of the arguments: the Model may write into its inputs (an in-place operator)."""
    return [_copy_one(v) for v in values]


def _copy_one(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list | tuple):
        return type(value)(_copy_one(v) for v in value)
    return value


def run_case(
    module: types.ModuleType, prepare: types.ModuleType, case: dict[str, object], values: bool = True
) -> tuple[dict[str, object], dict[str, np.ndarray]]:
    seed = int(case["seed"])  # type: ignore[call-overload]
    torch.manual_seed(seed)
    np.random.seed(seed % (1 << 32))
    random.seed(seed)
    param = dict(case["params"])  # type: ignore[call-overload]
    inputs = prepare.get_inputs(param)
    inputs = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
    init_fn = getattr(prepare, "get_init_inputs", None)
    init = list(init_fn(param)) if init_fn is not None else []
    arrays: dict[str, np.ndarray] = {}
    keep = arrays if values else None  # deriving a spec needs the shapes only: no copies of big tensors
    out: dict[str, object] = {"forward": [_describe(v, f"forward.{i}", keep) for i, v in enumerate(inputs)]}
    new = getattr(module, "ModelNew", None)
    if new is not None:
        try:
            new(*_copy(init)).forward(*_copy(inputs))
        except _Called as called:
            out["binding"] = called.name
            out["args"] = [_describe(v, f"args.{i}", keep) for i, v in enumerate(called.args_seen)]
        except Exception as exc:  # ModelNew is only a witness of the binding's order: Model still runs
            out["binding_error"] = f"{type(exc).__name__}: {exc}"
    model = module.Model(*_copy(init))
    args = _copy(inputs)
    versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
    result = model.forward(*args)  # with autograd: a gradient operator's Model calls backward
    if result is None:  # an in-place Model returning nothing: what it wrote into its arguments is its result
        mutated = [
            i
            for i, (a, v) in enumerate(zip(args, versions, strict=True))
            if isinstance(a, torch.Tensor) and a._version != v
        ]
        out["mutated"] = mutated
        result = [args[i] for i in mutated]
    results = list(result) if isinstance(result, list | tuple) else [result]
    out["outputs"] = [_describe(v, f"outputs.{i}", keep) for i, v in enumerate(results)]
    custom = getattr(prepare, "custom_check_precision", None)
    # The task's own tolerances for this case (the benchmark compares with them): read when deriving
    # the spec, the only reader; an evaluation's oracle run does not ask again (probing calls the
    # check some 150 times, on tensors of up to PROBE_ELEMENTS).
    if custom is not None and not values:
        try:
            custom(param, result, result)
        except _Tolerance as asked:
            out["tolerance"] = {"atol": asked.atol, "rtol": asked.rtol}
        except Exception as exc:
            out["tolerance_error"] = f"{type(exc).__name__}: {exc}"
        else:  # a check computing its own mask: its allowance, asked of it
            probed = probe_tolerance(custom, param, result)
            if probed is not None:
                out["tolerance"] = probed
    out["arrays"] = sorted(arrays)
    return out, arrays


def run_script(script: Path, out_dir: Path, case: dict[str, object]) -> None:
    """A sample's golden generator, as `python3 scripts/gen_data.py` runs it from the sample's folder
    (it writes ./input/*.bin and ./output/golden.bin), seeded: `<out>/<key>/` is that folder."""
    work = out_dir / str(case["key"])
    for sub in ("input", "output", "scripts"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    seed = int(case["seed"])  # type: ignore[call-overload]
    np.random.seed(seed % (1 << 32))
    random.seed(seed)
    if torch is not None:
        torch.manual_seed(seed)
    os.chdir(work)
    sys.argv = [str(script)]
    runpy.run_path(str(script), run_name="__main__")
    (out_dir / f"{case['key']}.json").write_text(json.dumps({"folder": str(work)}), encoding="utf-8")


def main() -> int:
    request = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out_dir = Path(sys.argv[2])
    if request.get("kind") == "golden_script":
        script = Path(request["module"])
        sys.path.insert(0, str(script.parent))
        for case in request["cases"]:
            try:
                run_script(script, out_dir, case)
            except BaseException:
                text = traceback.format_exc(limit=8)
                (out_dir / f"{case['key']}.error.txt").write_text(text, encoding="utf-8")
        return 0
    if torch is None:
        (out_dir / "error.txt").write_text("torch is not installed", encoding="utf-8")
        return 3
    torch.set_num_threads(1)
    _install_stand_ins()
    validation = Path(request["module"]).parent
    sys.path.insert(0, str(validation))  # module.py may import its neighbours
    try:
        prepare = _load(Path(request["prepare"]), "prepare_inputs")
        module = _load(Path(request["module"]), "module")
    except BaseException:
        (out_dir / "error.txt").write_text(traceback.format_exc(limit=8), encoding="utf-8")
        return 3
    for case in request["cases"]:
        key = case["key"]
        try:
            record, arrays = run_case(module, prepare, case, bool(request.get("values", True)))
        except BaseException:
            (out_dir / f"{key}.error.txt").write_text(traceback.format_exc(limit=8), encoding="utf-8")
            continue
        if request.get("values", True):
            np.savez(out_dir / f"{key}.npz", **arrays)
        (out_dir / f"{key}.json").write_text(json.dumps(record), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
