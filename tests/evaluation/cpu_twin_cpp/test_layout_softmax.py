"""The VNCHWCONV transposes (TransDataTo5HD, TransDataTo5HDImpl, scatter_vnchwconv_b8/b16/b32 through the VA
registers), the raw-pointer vector intrinsics around them, SoftMax and SoftmaxGrad (issue 28), checked against
NumPy; and for each check the kernel that must be caught (layout_softmax.cpp, keys 20 and up)."""


import numpy as np
import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    HERE,
    N,
    _link,
    _run,
    run_kernel,
    runtime_objs,
)

pytestmark = pytest.mark.slow

# Distinct 16-bit halves everywhere, so a transpose that picks the wrong element shows.
X = (np.arange(N, dtype=np.float32) % 23 - 11.0) * 0.37 + np.arange(N, dtype=np.float32) * 1e-3
Y = (np.arange(N, dtype=np.float32) % 7 - 3.0) * 0.21


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("layout")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "layout_softmax.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "layout_softmax")


def _run_key(runner, tmp_path, key):
    inputs = {"x": ("float32", N, X.tobytes()), "y": ("float32", N, Y.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs)
    return np.frombuffer(run.z, dtype=np.float32), run.findings, run.trace()


def _errors(findings):
    return [f for f in findings if f["severity"] == "error"]


def test_b16_scatter_through_va_registers_transposes_each_repeat(runner, tmp_path):
    z, findings, trace = _run_key(runner, tmp_path, 1)
    assert _errors(findings) == []
    want = X.view(np.uint16)[:1024].reshape(4, 16, 16).transpose(0, 2, 1).reshape(-1)
    assert np.array_equal(z.view(np.uint16)[:1024], want)
    assert np.all(z[512:] == 0)
    assert [r["repeat"] for r in trace if r["op"] == "TransDataTo5HD"] == [8]  # 4 x 512 B as 256 B repeats


def test_b32_list_form_adds_the_stride_once_on_a_single_repeat(runner, tmp_path):
    z, findings, _ = _run_key(runner, tmp_path, 2)
    assert _errors(findings) == []
    src = X.reshape(64, 16)[:16, 8:]  # block i starts at 16 * i, moved on by one 32 B block
    want = np.concatenate([np.concatenate([src[:8, k], src[8:, k]]) for k in range(8)])
    assert np.array_equal(z[:128], want)
    assert not np.array_equal(z[:16], np.concatenate([X.reshape(64, 16)[:8, 0], X.reshape(64, 16)[8:16, 0]]))


def test_b8_scatter_moves_high_halves_and_keeps_low_halves(runner, tmp_path):
    z, findings, _ = _run_key(runner, tmp_path, 3)
    assert _errors(findings) == []
    src = X.view(np.uint8)[:512].reshape(16, 32)
    got = z.view(np.uint8)[:512].reshape(16, 32)
    assert np.array_equal(got[:, 16:], src[:, 16:].T)
    assert np.array_equal(got[:, :16], Y.view(np.uint8)[:512].reshape(16, 32)[:, :16])


def test_impl_on_raw_pointer_lists_repeats_with_strides(runner, tmp_path):
    z, findings, trace = _run_key(runner, tmp_path, 4)
    assert _errors(findings) == []
    want = X.view(np.uint16)[:512].reshape(2, 16, 16).transpose(0, 2, 1).reshape(-1)
    assert np.array_equal(z.view(np.uint16)[:512], want)
    assert any(r["op"] == "TransDataTo5HDImpl" and r["pipe"] == "V" for r in trace)


def test_raw_intrinsics_copy_dup_transpose_or(runner, tmp_path):
    z, findings, trace = _run_key(runner, tmp_path, 5)
    assert _errors(findings) == []
    assert np.array_equal(z.view(np.uint16)[:256], X.view(np.uint16)[:256].reshape(16, 16).T.reshape(-1))
    assert {"DataCopy", "Duplicate", "Transpose", "Or"} <= {r["op"] for r in trace}


def _softmax(x, red):
    mx = x[:, :red].max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e[:, :red].sum(axis=1, keepdims=True)
    return e / s, s[:, 0], mx[:, 0]


def test_softmax_fp32_reduces_over_ori_src_k_and_writes_sum_and_max(runner, tmp_path):
    z, findings, _ = _run_key(runner, tmp_path, 6)
    assert _errors(findings) == []
    want, s, mx = _softmax(X[:512].reshape(8, 64).astype(np.float64), 60)
    np.testing.assert_allclose(z[:512].reshape(8, 64), want, rtol=1e-5)
    np.testing.assert_allclose(z[512:576].reshape(8, 8), np.repeat(s[:, None], 8, axis=1), rtol=1e-5)
    np.testing.assert_allclose(z[576:640].reshape(8, 8), np.repeat(mx[:, None], 8, axis=1), rtol=1e-6)
    assert not np.allclose(z[:512].reshape(8, 64), _softmax(X[:512].reshape(8, 64), 64)[0], rtol=1e-3)


def test_softmax_fp16_in_place_takes_the_shape_from_the_tiling(runner, tmp_path):
    z, findings, _ = _run_key(runner, tmp_path, 7)
    assert _errors(findings) == []
    want = _softmax(X.astype(np.float16).astype(np.float64).reshape(16, 64), 64)[0]
    np.testing.assert_allclose(z.reshape(16, 64), want, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("key", [8, 9])
def test_softmax_grad(runner, tmp_path, key):
    z, findings, _ = _run_key(runner, tmp_path, key)
    assert _errors(findings) == []
    g, y = X.reshape(16, 64).astype(np.float64), Y.reshape(16, 64).astype(np.float64)
    s = (g * y).sum(axis=1, keepdims=True)
    if key == 8:
        np.testing.assert_allclose(z.reshape(16, 64), (g - s) * y, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_allclose(z[:128].reshape(16, 8), np.repeat(s, 8, axis=1), rtol=1e-5)


@pytest.mark.parametrize(
    ("key", "kind", "words"),
    [
        (20, "local_out_of_bounds", "VA0 slot 0"),
        (21, "pipe_hazard", "TransDataTo5HD"),
        (22, "bad_register", "VA4 and VA5"),
        (23, "local_out_of_bounds", "dst["),
        (24, "overlapping_operands", "sharedTmpBuffer"),
        (25, "pipe_hazard", "SoftMax"),
        (26, "misaligned_operand", "source block 3"),
    ],
)
def test_hostile_kernels_are_caught_at_their_line(runner, tmp_path, key, kind, words):
    _, findings, _ = _run_key(runner, tmp_path, key)
    hits = [f for f in _errors(findings) if f["kind"] == kind and words in f["message"]]
    assert hits, findings
    # pinned to the kernel's own line inside its case, not to the twin's headers
    src = (HERE / "layout_softmax.cpp").read_text().splitlines()
    first = next(i for i, s in enumerate(src, 1) if f"TILING_KEY_IS({key})" in s)
    last = next((i for i, s in enumerate(src, 1) if i > first and "TILING_KEY_IS(" in s), len(src))
    assert all(f["file"].endswith("layout_softmax.cpp") and first < f["line"] < last for f in hits), hits
