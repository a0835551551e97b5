"""TBuf::AllocTensor and the Power forms with a temporary buffer (DequantSwigluQuant, ApplyFusedEmaAdam use
them), run on the twin's runner with a look-alike kernel (host_gaps_kernel.cpp) and checked against NumPy."""


import numpy as np
import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    HERE,
    _link,
    _run,
    run_kernel,
    runtime_objs,
)

pytestmark = pytest.mark.slow

N = 256
X = np.array([0.25 + (i % 13) * 0.5 for i in range(N)], dtype=np.float32)


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("host_gaps_kernel")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "host_gaps_kernel.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "host_gaps_kernel")


@pytest.mark.parametrize(
    ("key", "expected"), [(0, X**2), (1, np.float32(2.0) ** X), (2, X**X)], ids=["x^2", "2^x", "x^x"]
)
def test_power_with_a_temporary_buffer_on_tbuf_tensors(runner, tmp_path, key, expected):
    inputs = {"x": ("float32", N, X.tobytes()), "y": ("float32", N, X.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs, out=("float32", N))
    findings, z = run.findings, np.frombuffer(run.z, dtype=np.float32)
    assert [f for f in findings if f.get("severity", "error") == "error"] == []
    np.testing.assert_allclose(z, expected.astype(np.float32), rtol=1e-5)
