"""LoadDataWithTranspose (CANN's documented forms), checked through matmuls against numpy: int8 (two
16 x 32 B fractals stacked into a 32 x 32 square, transposed, split by dstGap / dstFracGap) and float (two
16 x 8 fractals side by side in a 16 x 16 square, as Catlass's float Gemm loads B); and its bounds."""

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
from tests.evaluation.cpu_twin_cpp.test_cube import _errors

pytestmark = pytest.mark.slow

RA, KD, ND = 16, 64, 64
FM, FK, FN = 16, 32, 48
SOURCE = HERE / "transpose_load_cases.cpp"


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("transpose_load")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-DASCENDOPT_TWIN_CUBE", "-c", str(SOURCE), "-o", str(k)])
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


def _float_operands():
    rng = np.random.default_rng(12)
    # small integers: every product and sum is exact in float32, so the twin's result must equal numpy's
    return (
        rng.integers(-8, 9, (FM, FK)).astype(np.float32),
        rng.integers(-8, 9, (FK, FN)).astype(np.float32),
    )


def _float_run(runner, tmp_path, key, w_given=None):
    x, w = _float_operands()
    given = w if w_given is None else w_given
    inputs = {"x": ("float32", FM * FK, x.tobytes()), "y": ("float32", FK * FN, given.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs, out=("float32", FM * FN))
    return np.frombuffer(run.z, dtype=np.float32).reshape(FM, FN), x @ w, run.findings


def _l1_for_the_other_joining(w):
    """w laid out in L1 so that a twin reading each square as one row-major 16 x 16 (its 1024 B as they lie),
    transposing it and splitting it into its first and second 512 B, leaves in L0B what Mmad needs: float L0B
    fractal (fk, fn) holds w[8 fk + k, 16 fn + n] at n * 8 + k. Key 5 copies this image to L1 as it is."""
    n1 = FN // 16
    frac = w.reshape(FK // 8, 8, n1, 16).transpose(0, 2, 3, 1)  # [fk, fn, n, k]
    squares = np.empty((FK // 16, n1, 256), np.float32)
    for i in range(FK // 16):
        for j in range(n1):
            t = np.concatenate([frac[2 * i, j].ravel(), frac[2 * i + 1, j].ravel()]).reshape(16, 16)
            squares[i, j] = t.T.ravel()
    return squares.reshape(FK, FN)


def test_a_float_matmul_through_the_transposing_load_matches_numpy(runner, tmp_path):
    """Catlass's float Gemm's B path: L1 zZ (16 x 8 fractals along n), squares of two neighbours side by side,
    dstGap 0, dstFracGap = n / 16 - 1."""
    z, ref, findings = _float_run(runner, tmp_path, 3)
    np.testing.assert_array_equal(z, ref)
    assert not [f for f in findings if f["severity"] == "error"], findings


def test_a_wrong_fractal_gap_gives_a_wrong_float_product(runner, tmp_path):
    """Hostile: dstFracGap 0 puts each square's k 8-15 fractal on the next n block's k 0-7 one; a twin that
    ignored dstFracGap, or placed the second fractal right after the first, would pass it."""
    z, ref, _ = _float_run(runner, tmp_path, 4)
    assert not np.array_equal(z, ref)


def test_a_kernel_written_for_the_other_joining_gives_a_wrong_float_product(runner, tmp_path):
    """Hostile: w already arranged for the other reading (the two fractals as the square's first and second
    512 B). A twin joining that way gets this product right and the first float test's wrong; the twin must
    get it wrong."""
    _, w = _float_operands()
    z, ref, _ = _float_run(runner, tmp_path, 5, w_given=_l1_for_the_other_joining(w))
    assert not np.array_equal(z, ref)


def _line(tag):
    return next(i for i, text in enumerate(SOURCE.read_text().splitlines(), 1) if tag in text)


@pytest.mark.parametrize(
    ("key", "tag", "where"),
    [(6, "TAG_SQUARE_PAST_L1", "524288 B L1"), (7, "TAG_FRACTAL_PAST_L0B", "65536 B L0B")],
)
def test_a_float_square_past_l1_or_fractal_past_l0b_is_out_of_bounds(runner, tmp_path, key, tag, where):
    _, _, findings = _float_run(runner, tmp_path, key)
    bad = [f for f in _errors(findings) if f["kind"] == "local_out_of_bounds"]
    assert bad and bad[0]["line"] == _line(tag) and where in bad[0]["message"], findings
