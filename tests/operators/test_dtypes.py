"""One dtype table (operators/dtypes.py): the Python tables derive from it, and the twin's C++
runner (runtime/runner.cpp, DtypeInfo) agrees with it on every dtype a spec may name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ascendopt.evaluation.cann.driver import _ACL_DTYPES
from ascendopt.evaluation.cpu_twin.build import CTYPES
from ascendopt.evaluation.tensors import STORAGE
from ascendopt.evaluation.timing.costs import DTYPE_BYTES
from ascendopt.operators.dtypes import DTYPES

RUNNER_CPP = Path(__file__).resolve().parents[2] / "server/ascendopt/evaluation/cpu_twin/runtime/runner.cpp"


def runner_table(text: str) -> dict[str, tuple[str, int]]:
    """name → (ge::DataType, bytes) from runner.cpp's `{"float16", ge::DT_FLOAT16, 2}` entries."""
    return {n: (g, int(s)) for n, g, s in re.findall(r'\{"(\w+)",\s*ge::(\w+),\s*(\d+)\}', text)}


def test_the_cpp_runner_knows_every_spec_dtype_as_the_table_does() -> None:
    table = runner_table(RUNNER_CPP.read_text(encoding="utf-8"))
    assert table, "runner.cpp's DtypeInfo table was not found"
    for name, d in DTYPES.items():
        assert table.get(name) == (d.ge, d.bytes), f"runner.cpp says {table.get(name)} for {name}"


def test_the_python_tables_derive_from_the_one_table() -> None:
    for name, d in DTYPES.items():
        assert DTYPE_BYTES[name] == d.bytes == STORAGE[name].itemsize
        assert CTYPES[name] == d.ctype and _ACL_DTYPES[name] == d.acl
    assert STORAGE["bfloat16"] == np.dtype("<u2")  # bf16 travels as its 16 bits


def test_the_parser_sees_a_disagreement() -> None:
    assert runner_table('{"float16", ge::DT_FLOAT, 4}')["float16"] != (DTYPES["float16"].ge, 2)
