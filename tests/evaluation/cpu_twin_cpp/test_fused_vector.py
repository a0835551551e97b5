"""The dual-input fused vector instructions (issue 28): AddRelu, SubRelu, FusedMulAdd, MulAddDst,
FusedMulAddRelu (count and mask forms), AddReluCast; values as the documents define them, one trace
record each, and the UB bounds check of Add."""

import struct

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    HERE,
    N,
    _link,
    _run,
    f32_inputs,
    run_kernel,
    runtime_objs,
)

pytestmark = pytest.mark.slow

X = [float(i % 17) - 8.0 for i in range(N)]
Y = [float(i % 5) - 2.0 for i in range(N)]


@pytest.fixture(scope="module")
def fused_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("fused")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "fused_vector.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "fused_vector")


def _run_key(runner, tmp_path, key):
    run = run_kernel(runner, tmp_path, key, f32_inputs(x=X, y=Y))
    return list(struct.unpack(f"<{N}f", run.z)), run.findings, run.trace()


CASES = {
    1: ("AddRelu", lambda x, y: max(x + y, 0.0)),
    2: ("SubRelu", lambda x, y: max(x - y, 0.0)),
    3: ("FusedMulAdd", lambda x, y: x * 2.0 + y),
    4: ("MulAddDst", lambda x, y: x * y + 2.0),
    5: ("FusedMulAddRelu", lambda x, y: max(x * 2.0 + y, 0.0)),
    6: ("AddRelu", lambda x, y: max(x + y, 0.0)),
    7: ("AddReluCast", lambda x, y: max(x + y, 0.0)),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_fused_values_and_trace(fused_runner, tmp_path, key):
    name, fn = CASES[key]
    z, findings, trace = _run_key(fused_runner, tmp_path, key)
    assert findings == [], findings
    assert z == [fn(x, y) for x, y in zip(X, Y, strict=True)]
    [rec] = [r for r in trace if r["op"] == name]
    assert rec["pipe"] == "V" and rec["n"] == N


def test_fused_out_of_ub_bounds_is_an_error(fused_runner, tmp_path):
    _, findings, _ = _run_key(fused_runner, tmp_path, 8)
    assert findings and all(f["severity"] == "error" for f in findings), findings
    assert any("AddRelu" in f["message"] for f in findings), findings


def test_fused_ops_are_costed():
    from ascendopt.evaluation.timing import costs

    for name in (
        "AddRelu",
        "SubRelu",
        "AddReluCast",
        "SubReluCast",
        "FusedMulAdd",
        "MulAddDst",
        "FusedMulAddRelu",
    ):
        assert costs.VEC_INTRINSICS[name]
