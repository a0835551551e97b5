"""Tensors on disk for a run: seeded random inputs per dtype, raw little-endian files, bf16 bits."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.spec import OperatorSpec, ResolvedCase, TensorSpec

# How each spec dtype is stored in a raw file (bf16 as its 16 bits).
STORAGE: dict[str, np.dtype] = {name: np.dtype(d.storage) for name, d in DTYPES.items()}


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """fp32 → bf16 bit patterns, round to nearest even (NaN kept quiet)."""
    # np.array, not np.ascontiguousarray: that makes a 0-d value 1-d (a scalar output compared as shape [1])
    f = np.array(values, dtype=np.float32)
    flat = f.reshape(-1)  # 1-d: array arithmetic (a 0-d value's would be scalar, warning on the wrap)
    bits = flat.view(np.uint32)
    # uint32 holds the sum for every non-NaN pattern (at most 0xFF800000 + 0x8000); NaN's wrap is replaced
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    rounded[np.isnan(flat)] = 0x7FC0
    return rounded.reshape(f.shape)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def to_storage(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return bf16_bits(values)
    if dtype == "bool":
        return (values != 0).astype(np.uint8)
    return np.asarray(values).astype(STORAGE[dtype])


def from_storage(raw: np.ndarray, dtype: str) -> np.ndarray:
    """Stored values as the numbers they mean (bf16 → float32)."""
    return bf16_values(raw) if dtype == "bfloat16" else raw


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """What a result looks like once stored in `dtype`, as float64 for comparison (`real_parts`)."""
    if dtype == "complex64":
        return real_parts(to_storage(np.asarray(values), dtype))
    return from_storage(to_storage(np.asarray(values, dtype=np.float64), dtype), dtype).astype(np.float64)


def real_parts(values: np.ndarray) -> np.ndarray:
    """Values as float64 for comparison: a complex tensor as its (real, imaginary) pairs on a last axis
    of 2, so that each part is held to the tolerance on its own."""
    a = np.asarray(values)
    if np.iscomplexobj(a):
        return np.stack([a.real, a.imag], axis=-1).astype(np.float64)
    return a.astype(np.float64)


def case_seed(seed: int, case: ResolvedCase, tensor: str) -> int:
    digest = hashlib.sha256(f"{seed}/{case.index}/{case.name}/{tensor}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def make_inputs(spec: OperatorSpec, case: ResolvedCase, seed: int) -> dict[str, np.ndarray]:
    """Every input tensor of a case by instance name (a list input's tensors as `x.0`, `x.1`, …)."""
    return {name: make_input(t, case, seed, name) for t in spec.inputs for name in case.instances(t.name)}


def make_input(spec: TensorSpec, case: ResolvedCase, seed: int, instance: str | None = None) -> np.ndarray:
    """Seeded random values in the spec's range, already representable in the case's dtype."""
    name = instance or spec.name
    dtype = case.dtypes[spec.name]
    shape = case.input_shapes[name]
    if name in case.values:  # fixed contents (a tiling array): the same whatever the seed
        return from_storage(to_storage(np.array(case.values[name]).reshape(shape), dtype), dtype)
    rng = np.random.default_rng(case_seed(seed, case, name))
    lo, hi = spec.range
    values: np.ndarray
    if dtype in ("float16", "float32", "bfloat16"):
        values = rng.uniform(lo, hi, size=shape)
    elif dtype == "complex64":  # the range holds each part
        values = rng.uniform(lo, hi, size=shape) + 1j * rng.uniform(lo, hi, size=shape)
    elif dtype == "bool":
        values = rng.integers(0, 2, size=shape)
    else:
        info = np.iinfo(STORAGE[dtype])
        values = rng.integers(max(int(lo), info.min), min(int(hi), info.max) + 1, size=shape)
    return from_storage(to_storage(values, dtype), dtype)


def tensor_bytes(case: ResolvedCase, shapes: dict[str, list[int]]) -> int:
    """Bytes the tensors of `shapes` (instance name -> shape; inputs and outputs) hold in their dtypes."""
    return sum(int(np.prod(s, dtype=np.int64)) * DTYPES[case.dtype_of(n)].bytes for n, s in shapes.items())


def write_raw(path: Path, values: np.ndarray, dtype: str) -> None:
    to_storage(values, dtype).tofile(path)


def read_raw(path: Path, dtype: str, shape: list[int]) -> np.ndarray:
    raw = np.fromfile(path, dtype=STORAGE[dtype])
    expected = int(np.prod(shape)) if shape else 1
    if raw.size != expected:
        raise ValueError(f"{path.name}: {raw.size} elements, expected {expected}")
    return from_storage(raw, dtype).reshape(shape)


def encode_raw(values: np.ndarray, dtype: str) -> bytes:
    """The bytes `write_raw` would write (inputs travel to a runner as bytes)."""
    return to_storage(values, dtype).tobytes()


def encode_inputs(case: ResolvedCase, inputs: dict[str, np.ndarray]) -> dict[str, bytes]:
    """Every input instance as the bytes of its file (`encode_raw` in the case's dtype)."""
    return {name: encode_raw(values, case.dtype_of(name)) for name, values in inputs.items()}


def decode_raw(data: bytes, dtype: str, shape: list[int], name: str = "output") -> np.ndarray:
    """The inverse of `encode_raw`, checking the size (a short file means the kernel wrote too little)."""
    raw = np.frombuffer(data, dtype=STORAGE[dtype])
    expected = int(np.prod(shape)) if shape else 1
    if raw.size != expected:
        raise ValueError(f"{name}: {raw.size} elements, expected {expected}")
    return from_storage(raw, dtype).reshape(shape)
