"""The lib/math elementwise APIs the Foreach answers use (issue 28): Sin … Log10, Sign and the three forms of
Power, each against Python's math on the same float32 inputs; one trace record each. Operand order
(scalar ^ tensor vs tensor ^ scalar) and the count are values a wrong implementation would not give."""

import math
import struct

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, N, _link, _run, runtime_objs  # noqa: F401
from tests.evaluation.cpu_twin_cpp.test_fused_vector import X, Y, _run_key

pytestmark = pytest.mark.slow


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


A = [f32(x * 0.125) for x in X]  # in [-1, 1]
B = [f32(y + 3.0) for y in Y]  # in [1, 5]

CASES = {
    1: ("Sin", lambda i: math.sin(A[i])),
    2: ("Cos", lambda i: math.cos(A[i])),
    3: ("Tan", lambda i: math.tan(A[i])),
    4: ("Asin", lambda i: math.asin(A[i])),
    5: ("Acos", lambda i: math.acos(A[i])),
    6: ("Atan", lambda i: math.atan(A[i])),
    7: ("Sinh", lambda i: math.sinh(A[i])),
    8: ("Cosh", lambda i: math.cosh(A[i])),
    9: ("Erf", lambda i: math.erf(A[i])),
    10: ("Erfc", lambda i: math.erfc(A[i])),
    11: ("Log2", lambda i: math.log2(B[i])),
    12: ("Log10", lambda i: math.log10(B[i])),
    13: ("Sign", lambda i: (A[i] > 0) - (A[i] < 0)),
    14: ("Power", lambda i: B[i] ** A[i]),
    15: ("Power", lambda i: B[i] ** 2.5),
    16: ("Power", lambda i: 2.0 ** A[i]),
}


@pytest.fixture(scope="module")
def math_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("math")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "math_apis.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "math_apis")


@pytest.mark.parametrize("key", sorted(CASES))
def test_math_api_values_and_trace(math_runner, tmp_path, key):
    name, fn = CASES[key]
    z, findings, trace = _run_key(math_runner, tmp_path, key)
    assert [f for f in findings if f["severity"] == "error"] == []
    # fp32 libm, rounded once: within a float32 ulp or two of the double-precision value
    assert z == pytest.approx([fn(i) for i in range(N)], rel=3e-7, abs=1e-7)
    assert [(r["op"], r["n"]) for r in trace if r["op"] == name] == [(name, N)]


def test_sign_keeps_zero_and_power_orders_its_operands():
    # the inputs the cases above rely on: zeros for Sign, exponents in (-1, 1) so that b^a != a^b
    assert 0.0 in A and any(a < 0 for a in A)
    assert any(abs(B[i] ** A[i] - A[i] ** B[i]) > 0.1 for i in range(N) if A[i] > 0)


def test_a_count_covers_only_its_elements(math_runner, tmp_path):
    z, findings, trace = _run_key(math_runner, tmp_path, 17)
    assert [f for f in findings if f["severity"] == "error"] == []
    assert z[: N // 2] == pytest.approx([math.sin(a) for a in A[: N // 2]], rel=3e-7, abs=1e-7)
    assert z[N // 2 :] == [-7.0] * (N // 2)
    assert [r["n"] for r in trace if r["op"] == "Sin"] == [N // 2]
