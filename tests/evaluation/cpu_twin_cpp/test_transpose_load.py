"""LoadDataWithTranspose on int8 (CANN's documented form: two 16 x 32 B fractals joined into a 32 x 32
square, transposed, split by dstGap / dstFracGap), checked through an int8 matmul against numpy."""

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

RA, KD, ND = 16, 64, 64


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("transpose_load")
    k = d / "k.o"
    src = HERE / "transpose_load_cases.cpp"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-DASCENDOPT_TWIN_CUBE", "-c", str(src), "-o", str(k)])
    return _link(d, runtime_objs, [k], "transpose_load_cases")


def _matmul(runner, tmp_path, key):
    rng = np.random.default_rng(11)
    x = rng.integers(-16, 17, (RA, KD), dtype=np.int8)
    w = rng.integers(-16, 17, (KD, ND), dtype=np.int8)
    inputs = {"x": ("int8", RA * KD, x.tobytes()), "y": ("int8", KD * ND, w.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs, out=("int32", RA * ND))
    ref = x.astype(np.int32) @ w.astype(np.int32)
    return np.frombuffer(run.z, dtype=np.int32).reshape(RA, ND), ref, run.findings


def test_an_int8_matmul_through_the_transposing_load_matches_numpy(runner, tmp_path):
    z, ref, findings = _matmul(runner, tmp_path, 1)
    np.testing.assert_array_equal(z, ref)
    assert not [f for f in findings if f["severity"] == "error"], findings


def test_a_wrong_destination_gap_gives_a_wrong_product(runner, tmp_path):
    """Hostile: dstGap = 1 lays the second k square over the next column block's fractals; a twin that
    ignored dstGap (or moved nothing) would pass it as it passes the right one."""
    z, ref, _ = _matmul(runner, tmp_path, 2)
    assert not np.array_equal(z, ref)
