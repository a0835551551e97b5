"""A benchmark task's PyTorch oracle: inputs from its `get_inputs`, expected outputs from its `Model`.

The task's Python is third-party code: `oracle_driver.py` runs it in the sandbox (bubblewrap, no
network, limits, only the interpreter, the task's `validation/` folder and an output folder in
view) and hands back, per case, what the NPU binding would receive (`ModelNew`'s call) and what
`Model` returns. `kernel_values` maps those onto the spec's tensors by the spec's `[oracle]` table:
`args` names, in the binding's order, the OpDef input or attr each argument is (the aclnn order:
inputs, then attrs), `outputs` the OpDef output each returned value is.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ascendopt.evaluation.sandbox import Confinement, Limits, run_limited
from ascendopt.evaluation.tensors import STORAGE, decode_raw, from_storage, to_storage
from ascendopt.operators.spec import OperatorSpec, OracleSpec, ResolvedCase, member_name, output_instances

DRIVER = Path(__file__).with_name("oracle_driver.py")
# Python with torch: the import alone is ~2 s of CPU; a case list is run in one process.
ORACLE_LIMITS = Limits(wall_seconds=600, cpu_seconds=600, memory_mb=16384, file_mb=4096)


CPU_INFO = ("/proc/cpuinfo", "/sys/devices/system/cpu")


class OracleError(RuntimeError):
    pass


@dataclass(frozen=True)
class OracleCase:
    """What the task's Python gave for one case: `record` describes each value (oracle_driver.py)."""

    record: dict[str, object]
    arrays: dict[str, np.ndarray]


def oracle_paths(root: Path, oracle: OracleSpec) -> list[Path]:
    """The oracle's own files (what its results depend on)."""
    paths = [(root / oracle.module).resolve()]
    return [*paths, (root / oracle.prepare).resolve()] if oracle.prepare else paths


async def run_oracle(
    root: Path,
    oracle: OracleSpec,
    cases: list[tuple[str, Mapping[str, str | int | float | bool], int]],
    *,
    values: bool = True,
) -> dict[str, OracleCase | str]:
    """Per case key: what the oracle gave, or why it failed (the task's traceback, shortened).
    `cases`: (key, the CSV row handed to get_inputs, seed). Without `values`, only what each value is
    (shapes, dtypes, kinds: deriving a spec needs no more)."""
    paths = oracle_paths(root, oracle)
    for path in paths:
        if not path.is_file():
            raise OracleError(f"{path}: the oracle's file is missing")
    module, prepare = paths[0], paths[-1]
    with tempfile.TemporaryDirectory(prefix="ascendopt-oracle-") as tmp:
        work = Path(tmp)
        out = work / "out"
        out.mkdir()
        request = {
            "kind": oracle.kind,
            "module": str(module),
            "prepare": str(prepare),
            "cases": [{"key": k, "params": p, "seed": s} for k, p, s in cases],
            "values": values,
        }
        (work / "request.json").write_text(json.dumps(request), encoding="utf-8")
        folders = {str(module.parent), str(prepare.parent)}
        # torch's cpuinfo reads what the CPU is (its half-precision kernels fail without it).
        cpu = [p for p in CPU_INFO if Path(p).exists()]
        confine = Confinement(
            read=sorted(
                {sys.prefix, sys.base_prefix, str(DRIVER), str(work / "request.json"), *folders, *cpu}
            ),
            write=[str(out)],
            env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
        )
        limits = ORACLE_LIMITS.model_copy(update={"confine": confine})
        argv = [sys.executable, "-I", str(DRIVER), str(work / "request.json"), str(out)]
        run = await run_limited(argv, out, limits)
        if (out / "error.txt").is_file():
            raise OracleError(f"the task's Python does not load: {_tail(out / 'error.txt')}")
        if run.returncode != 0:
            why = run.killed_reason or f"exit {run.returncode}"
            raise OracleError(f"the oracle did not run ({why}): {run.stderr.strip()[-600:]}")
        results: dict[str, OracleCase | str] = {}
        for key, _, _ in cases:
            if (out / f"{key}.error.txt").is_file():
                results[key] = f"the task's Python failed: {_tail(out / f'{key}.error.txt')}"
                continue
            try:
                record = json.loads((out / f"{key}.json").read_text(encoding="utf-8"))
                if oracle.kind == "golden_script":  # the files it wrote, as bytes (decoded per case)
                    arrays = {t: _read_written(out / key, rel) for t, rel in oracle.files.items()}
                elif not values:
                    arrays = {}
                else:
                    with np.load(out / f"{key}.npz", allow_pickle=False) as data:
                        arrays = {name: data[name] for name in data.files}
            except (OSError, ValueError) as exc:
                results[key] = f"the oracle wrote no usable result: {exc}"
                continue
            results[key] = OracleCase(record, arrays)
        return results


def _read_written(folder: Path, rel: str) -> np.ndarray:
    """A file the generator wrote in its folder, as bytes; never through a link, never outside it."""
    path = (folder / rel).resolve()
    if folder.resolve() not in path.parents or path.is_symlink() or not path.is_file():
        raise ValueError(f"{rel}: the generator wrote no such file")
    return np.fromfile(path, dtype=np.uint8)


def _tail(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return " | ".join(lines[-3:])[-600:]


def _as(values: np.ndarray, dtype: str) -> np.ndarray:
    """`values` as the spec dtype's numbers (bf16 rounded to its bits and back)."""
    return from_storage(to_storage(np.asarray(values), dtype), dtype)


def oracle_attrs(spec: OperatorSpec, case: ResolvedCase, got: OracleCase) -> dict[str, int | float | bool]:
    """The attrs the oracle's arguments give this evaluation, where they differ from the case's: a task
    whose get_inputs draws an attr at random (Tril's `diagonal = torch.randint(-1, 2)`) hands the Model
    another value under each seed, and the kernel must run with that one."""
    assert spec.oracle is not None
    values = got.record.get("args") or got.record.get("forward")
    if spec.oracle.kind != "kernelbench" or not isinstance(values, list):
        return {}
    types = {a.name: a.type for a in spec.attrs}
    out: dict[str, int | float | bool] = {}
    for target, desc in zip(spec.oracle.args, values, strict=False):
        # a number, or a one-element tensor for one (its value recorded: the binding takes float(t))
        if target not in types or not isinstance(desc, dict) or desc.get("kind") not in ("number", "tensor"):
            continue
        if not isinstance(desc.get("value"), int | float):
            continue
        value = desc["value"]
        kind = types[target]
        typed = bool(value) if kind == "bool" else int(value) if kind == "int" else float(value)
        if typed != case.attrs.get(target):
            out[target] = typed
    return out


def kernel_values(
    spec: OperatorSpec, case: ResolvedCase, got: OracleCase
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(inputs by instance name, expected outputs by name) for `case`; OracleError naming what does
    not fit the spec (a shape other than the case's, an argument of a kind the kernel cannot take)."""
    assert spec.oracle is not None
    if spec.oracle.kind == "golden_script":
        return _golden_values(spec, case, got)
    values = got.record.get("args") or got.record.get("forward")
    if not isinstance(values, list):
        raise OracleError("the oracle recorded no arguments")
    inputs: dict[str, np.ndarray] = {}
    names = {t.name for t in spec.inputs}
    for i, (target, desc) in enumerate(zip(spec.oracle.args, values, strict=False)):
        if target not in names:
            continue  # an attr (its value is the case's) or an argument the kernel does not take
        if target in case.absent:
            if isinstance(desc, dict) and desc.get("kind") == "none":
                continue
            raise OracleError(f"{target}: the case says absent, get_inputs gave a value")
        dtype = case.dtype_of(target)
        instances = case.instances(target)
        arrays = _arrays(desc, f"args.{i}" if "args" in got.record else f"forward.{i}", got.arrays)
        if len(arrays) != len(instances):
            raise OracleError(
                f"{target}: the oracle gave {len(arrays)} tensor(s), the case has {len(instances)}"
            )
        for name, a in zip(instances, arrays, strict=True):
            shape = case.input_shapes[name]
            # a 1-D value for any shape of its size, or the shape with trailing 1s (an aclnn front end
            # launches a low-rank input so, task.py): the same elements in the same order
            padded = shape[: a.ndim] == list(a.shape) and all(d == 1 for d in shape[a.ndim :])
            if list(a.shape) != shape and not (a.size == int(np.prod(shape)) and (a.ndim <= 1 or padded)):
                raise OracleError(f"{name}: get_inputs gave shape {list(a.shape)}, the case says {shape}")
            inputs[name] = _as(a.reshape(shape), dtype)
    missing = [n for t in spec.inputs for n in case.instances(t.name) if n not in inputs]
    if missing:
        raise OracleError(f"the oracle's arguments give no value for {', '.join(missing)}")
    outs = got.record.get("outputs")
    if not isinstance(outs, list):
        raise OracleError("the oracle's Model returned nothing")
    expected: dict[str, np.ndarray] = {}
    listed = {t.name for t in spec.outputs if t.param_type == "dynamic"}
    targets = spec.oracle.outputs if case.outputs is None else case.outputs
    results = _results(outs, targets, listed, got)
    aliases = {t.name: t.alias for t in spec.outputs}
    for target, arrays in zip(targets, results, strict=False):
        if not target:
            continue
        if target in spec.oracle.flattened:
            arrays = _split(
                target, arrays, [case.input_shapes[n] for n in case.instances(str(aliases[target]))]
            )
        if target not in listed and len(arrays) != 1:
            raise OracleError(f"output {target}: the Model returned {len(arrays)} tensors for it")
        members = [member_name(target, i) for i in range(len(arrays))] if target in listed else [target]
        for name, a in zip(members, arrays, strict=True):
            wide = np.complex128 if np.iscomplexobj(a) else np.float64
            expected[name] = a if a.dtype == np.bool_ else a.astype(wide)
    missing = [
        t.name
        for t, members in output_instances(spec.checked_in(case), expected)
        if not members or set(members) - expected.keys()
    ]
    if missing:
        raise OracleError(f"the Model's results give no value for output(s) {', '.join(missing)}")
    return inputs, expected


def _results(
    outs: list[object], targets: list[str], listed: set[str], got: OracleCase
) -> list[list[np.ndarray]]:
    """The tensors of each value the Model returned, one entry per target; a Model whose only output
    is a list returns that list itself, so all of its values are that output's tensors."""
    if len(targets) == 1 and targets[0] in listed and not (len(outs) == 1 and _is_list(outs[0])):
        return [[a for j, desc in enumerate(outs) for a in _arrays(desc, f"outputs.{j}", got.arrays)]]
    return [_arrays(desc, f"outputs.{j}", got.arrays) for j, desc in enumerate(outs[: len(targets)])]


def _split(target: str, arrays: list[np.ndarray], shapes: list[list[int]]) -> list[np.ndarray]:
    """A list output the Model returned flattened and concatenated, as its tensors (`shapes`: those of
    the list input it aliases)."""
    sizes = [int(np.prod(s)) for s in shapes]
    if len(arrays) != 1 or arrays[0].size != sum(sizes):
        got = [a.size for a in arrays]
        raise OracleError(
            f"output {target}: the Model returned {got} element(s) for its {len(sizes)} tensors "
            f"of {sum(sizes)} elements, flattened and concatenated"
        )
    flat = arrays[0].reshape(-1)
    ends = np.cumsum(sizes)
    return [flat[e - n : e].reshape(s) for n, e, s in zip(sizes, ends, shapes, strict=True)]


def _is_list(desc: object) -> bool:
    return isinstance(desc, dict) and desc.get("kind") == "list"


def _golden_values(
    spec: OperatorSpec, case: ResolvedCase, got: OracleCase
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A generator's files read as the case's tensors: inputs in the case's shapes, each output in the
    shape of the input with as many elements (else flat)."""
    inputs: dict[str, np.ndarray] = {}
    for t in spec.inputs:
        shape = case.input_shapes[t.name]
        try:
            inputs[t.name] = decode_raw(got.arrays[t.name].tobytes(), case.dtypes[t.name], shape, t.name)
        except (KeyError, ValueError) as exc:
            raise OracleError(f"{t.name}: {exc}") from exc
    expected: dict[str, np.ndarray] = {}
    for t in spec.outputs:
        raw = got.arrays.get(t.name)
        if raw is None:
            raise OracleError(f"output {t.name}: the spec's [oracle] files name no file for it")
        size = raw.size // STORAGE[case.dtypes[t.name]].itemsize
        shape = next((s for s in case.input_shapes.values() if int(np.prod(s)) == size), [size])
        try:
            values = decode_raw(raw.tobytes(), case.dtypes[t.name], shape, t.name)
        except ValueError as exc:
            raise OracleError(f"output {t.name}: {exc}") from exc
        expected[t.name] = values.astype(np.float64) if values.dtype != np.bool_ else values
    return inputs, expected


def _arrays(desc: object, key: str, arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The tensors one recorded value stands for: a tensor, a list of tensors, a number or numbers
    (a scalar the binding turns into a one-element tensor or an int array)."""
    if not isinstance(desc, dict):
        raise OracleError(f"{key}: unreadable record")
    kind = desc.get("kind")
    if kind == "tensor":
        if key not in arrays:
            raise OracleError(f"{key}: a {desc.get('dtype')} tensor, which the spec cannot hold")
        return [arrays[key]]
    if kind == "list":
        items = desc.get("items")
        return [a for i, item in enumerate(items or []) for a in _arrays(item, f"{key}.{i}", arrays)]
    if kind == "number":
        return [np.array([desc["value"]])]
    if kind == "numbers":
        return [np.array(desc["value"])]
    raise OracleError(f"{key}: a {desc.get('type') or kind} value, which no kernel tensor takes")
