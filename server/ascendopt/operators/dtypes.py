"""The one table of tensor dtypes a spec may name, and what each is called everywhere else.

The spec's `DType`, the raw-file storage (evaluation/tensors.py), the C++ type of `DTYPE_<NAME>`
(cpu_twin/build.py), the element size the timing model charges (timing/costs.py) and the aclnn
enum the CANN driver passes (cann/driver.py) all derive from `DTYPES`. The twin's C++ runner
keeps its own table (runtime/runner.cpp); tests/operators/test_dtypes.py checks it against this.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

DType = Literal[
    "float16", "float32", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64"
]


class DTypeInfo(NamedTuple):
    bytes: int
    storage: str  # numpy dtype of a raw little-endian file (bf16 as its 16 bits)
    ctype: str  # the C++ type CANN's build puts in DTYPE_<NAME>
    acl: str  # aclDataType
    ge: str  # ge::DataType


DTYPES: dict[str, DTypeInfo] = {
    "float16": DTypeInfo(2, "<f2", "half", "ACL_FLOAT16", "DT_FLOAT16"),
    "float32": DTypeInfo(4, "<f4", "float", "ACL_FLOAT", "DT_FLOAT"),
    "bfloat16": DTypeInfo(2, "<u2", "bfloat16_t", "ACL_BF16", "DT_BF16"),
    "int8": DTypeInfo(1, "i1", "int8_t", "ACL_INT8", "DT_INT8"),
    "int16": DTypeInfo(2, "<i2", "int16_t", "ACL_INT16", "DT_INT16"),
    "int32": DTypeInfo(4, "<i4", "int32_t", "ACL_INT32", "DT_INT32"),
    "int64": DTypeInfo(8, "<i8", "int64_t", "ACL_INT64", "DT_INT64"),
    "uint8": DTypeInfo(1, "u1", "uint8_t", "ACL_UINT8", "DT_UINT8"),
    "bool": DTypeInfo(1, "u1", "bool", "ACL_BOOL", "DT_BOOL"),
    # Two float32 (real, imaginary); CANN's build names its DTYPE_<NAME> `complex64`.
    "complex64": DTypeInfo(8, "<c8", "complex64", "ACL_COMPLEX64", "DT_COMPLEX64"),
}

assert set(get_args(DType)) == set(DTYPES), "DType and DTYPES name the same dtypes"
