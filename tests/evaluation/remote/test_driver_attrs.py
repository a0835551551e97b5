"""The aclnn driver generated for an operator with string and list attrs (issue 28) hands them to
aclnn<Op>GetWorkspaceSize as CANN declares them (`char *`, `aclIntArray *`) and reads complex64 tensors
at 8 bytes an element: g++ checks the source against a declaration-only stand-in of acl.h written here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from ascendopt.evaluation.cann.driver import driver_source
from ascendopt.operators.spec import OperatorSpec

pytestmark = pytest.mark.slow

ACL_H = """\
#pragma once
#include <cstdint>
#include <cstddef>
typedef int aclError;
typedef void* aclrtStream;
struct aclTensor; struct aclTensorList; struct aclIntArray; struct aclOpExecutor;
enum aclDataType { ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8,
                   ACL_BOOL, ACL_COMPLEX64 };
enum aclFormat { ACL_FORMAT_ND };
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST };
enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST };
aclError aclInit(const char*); aclError aclFinalize(); aclError aclrtSetDevice(int32_t);
aclError aclrtResetDevice(int32_t); aclError aclrtCreateStream(aclrtStream*);
aclError aclrtDestroyStream(aclrtStream); aclError aclrtSynchronizeStream(aclrtStream);
aclError aclrtMalloc(void**, size_t, aclrtMemMallocPolicy);
aclError aclrtMemcpy(void*, size_t, const void*, size_t, aclrtMemcpyKind);
const char* aclGetRecentErrMsg();
aclTensor* aclCreateTensor(const int64_t*, uint64_t, aclDataType, const int64_t*, int64_t, aclFormat,
                           const int64_t*, uint64_t, void*);
aclTensorList* aclCreateTensorList(const aclTensor* const*, uint64_t);
aclIntArray* aclCreateIntArray(const int64_t*, uint64_t);
"""

ACLNN_H = """\
#pragma once
#include "acl/acl.h"
aclError aclnnLossLikeGetWorkspaceSize(const aclTensor*, char*, const aclIntArray*, double, const aclTensor*,
                                       uint64_t*, aclOpExecutor**);
aclError aclnnLossLike(void*, uint64_t, aclOpExecutor*, aclrtStream);
"""


def test_string_and_list_attrs_reach_aclnn_as_cann_declares_them(tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    spec = OperatorSpec.model_validate(
        {
            "name": "loss_like",
            "reference": "reference.py:reference",
            "inputs": [{"name": "x", "dtypes": ["complex64"]}],
            "outputs": [{"name": "y", "dtypes": ["complex64"]}],
            "attrs": [
                {"name": "reduction", "type": "str", "default": "mean"},
                {"name": "dims", "type": "list_int", "default": [1, 2]},
                {"name": "eps", "type": "float", "default": 1e-5},
            ],
            "cases": [{"name": "c0", "shapes": {"x": [8]}}],
        }
    )
    source = driver_source(SimpleNamespace(spec=spec, op_type="LossLike"))  # type: ignore[arg-type]
    assert 'if (d == "complex64") return 8;' in source
    (tmp_path / "acl").mkdir()
    (tmp_path / "acl" / "acl.h").write_text(ACL_H)
    (tmp_path / "aclnn_loss_like.h").write_text(ACLNN_H)
    (tmp_path / "driver.cpp").write_text(source)
    done = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-I", str(tmp_path), str(tmp_path / "driver.cpp")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
