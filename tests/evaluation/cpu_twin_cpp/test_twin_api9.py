"""Cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag in the block scheduler), the reduce advanced
APIs (Sum, Mean), SelectWithBytesMask, CreateVecIndex and the advanced Exp, run on the twin's runner
with a look-alike kernel (twin_api9.cpp) and checked against NumPy; each check has the kernel that must
be caught beside it."""

import subprocess

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

M = 1024
SLOT = 64
X = np.array([((i * 37) % 101) / 10.0 - 5 for i in range(M)], dtype=np.float32)
Y = np.array([float((i * 7) % 3) for i in range(M)], dtype=np.float32)  # a byte mask: 0, 1, 2


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("twin_api9")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "twin_api9.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "twin_api9")


def _run_key(runner, tmp_path, key, blocks=4):
    inputs = {"x": ("float32", M, X.tobytes()), "y": ("float32", M, Y.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs, out=("float32", M), block_dim=blocks)
    errors = {f["kind"] for f in run.findings if f.get("severity", "error") == "error" or f.get("error")}
    return errors, run.findings, np.frombuffer(run.z, dtype=np.float32), run.trace()


def _kinds(findings):
    return sorted({f["kind"] for f in findings} - {"output_not_written", "uninitialized_ub_read"})


def _exchanged(z, blocks=4):
    return [float(z[b * SLOT + SLOT // 2]) for b in range(blocks)]


def test_a_mode0_round_orders_every_blocks_writes_before_the_reads(runner, tmp_path):
    _, findings, z, trace = _run_key(runner, tmp_path, 1)
    assert _kinds(findings) == [], findings
    assert _exchanged(z) == [2.0, 3.0, 4.0, 1.0]
    waits = [r for r in trace if r["op"] == "CrossCoreWaitFlag"]
    assert sorted(r["b"] for r in waits) == [0, 1, 2, 3]


def test_the_same_exchange_without_the_flags_is_a_race(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 2)
    assert "cross_block_write_race" in _kinds(findings)


def test_a_wait_nobody_sets_is_a_deadlock_and_the_other_blocks_finish(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 3)
    dead = [f for f in findings if f["kind"] == "crosscore_wait_deadlock"]
    assert len(dead) == 1 and "block 0" in dead[0]["message"], findings
    # blocks 1..3 wrote their own slots; block 0 stopped in its wait and wrote nothing
    assert [float(z[b * SLOT]) for b in range(4)][1:] == [2.0, 3.0, 4.0] and np.isnan(z[0])


def test_a_round_one_block_never_joins_deadlocks_every_waiter(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 4)
    assert _kinds(findings) == ["crosscore_wait_deadlock"]
    # deduplicated by (kind, file, line): one finding, for the first waiter
    assert "block 0" in next(f for f in findings if f["kind"] == "crosscore_wait_deadlock")["message"]


def test_rounds_repeat_on_one_flag_and_mode1_is_the_blocks_own(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 5)
    assert _kinds(findings) == [], findings
    assert _exchanged(z) == [2.0, 3.0, 4.0, 1.0]


@pytest.mark.parametrize(
    ("key", "kind"),
    [(6, "crosscore_mode_unsupported"), (7, "crosscore_flag_overflow"), (8, "crosscore_flag_id")],
)
def test_misused_flags_are_findings(runner, tmp_path, key, kind):
    _, findings, _, _ = _run_key(runner, tmp_path, key)
    assert _kinds(findings) == [kind], findings


def test_one_block_passes_its_own_round(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 1, blocks=1)
    assert _kinds(findings) == [], findings
    assert _exchanged(z, 1) == [1.0]


def _row_sums(x, outter, inner, n, dtype=np.float32):
    return np.array([x[r * inner : r * inner + n].astype(dtype).sum(dtype=dtype) for r in range(outter)])


def test_sum_and_mean_along_the_last_axis(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 10)
    assert _kinds(findings) == [], findings
    sums = _row_sums(X, 6, 24, 20)
    np.testing.assert_allclose(z[:6], sums, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(z[8:14], sums / 20, rtol=1e-6, atol=1e-6)


def test_mean_in_half_with_float_or_half_accumulation(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 11)
    assert _kinds(findings) == [], findings
    h = X[: 3 * 64].astype(np.float16)
    ref = np.array([h[r * 64 : r * 64 + 50].astype(np.float64).mean() for r in range(3)])
    np.testing.assert_allclose(z[:3], ref, atol=2e-3)  # float accumulation, one rounding to half
    np.testing.assert_allclose(z[16:19], ref, atol=2e-2)  # half accumulation
    assert not np.array_equal(z[:3], z[16:19])  # the two precisions are not the same computation


def test_sum_with_n_above_inner_is_refused(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 12)
    assert "adv_api_bad_params" in _kinds(findings)


def test_sum_reading_rows_past_its_source_buffer_is_caught(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 13)
    assert "local_out_of_bounds" in _kinds(findings)


def test_select_with_bytes_mask_tensor_first_and_longer_mask_rows(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 20)
    assert _kinds(findings) == [], findings
    mask = Y[:64].reshape(2, 32)[:, :16].reshape(-1)
    np.testing.assert_array_equal(z[:32], np.where(mask == 0, X[:32], np.float32(-7.0)))


def test_select_with_bytes_mask_scalar_first_in_place_half(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 21)
    assert _kinds(findings) == [], findings
    ref = np.where(Y[:64] == 0, np.float16(3.5), X[:64].astype(np.float16)).astype(np.float32)
    np.testing.assert_array_equal(z[:64], ref)


def test_select_with_bytes_mask_reading_past_its_mask_buffer_is_caught(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 22)
    bad = [f for f in findings if f["kind"] == "local_out_of_bounds"]
    assert bad and "(mask)" in bad[0]["message"], findings


def test_select_with_bytes_mask_consumes_a_reused_mask(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 23)
    reads = [f for f in findings if f["kind"] == "uninitialized_ub_read"]
    assert reads and "(src)" in reads[0]["message"], findings  # the copy-out of the consumed mask
    np.testing.assert_array_equal(z[:32], np.ones(32, dtype=np.float32))


def test_create_vec_index(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 30)
    assert _kinds(findings) == [], findings
    np.testing.assert_array_equal(z[:100], np.arange(-5, 95, dtype=np.float32))
    ref = (np.float16(1000) + np.arange(64, dtype=np.float32)).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(z[128:192], ref)


def test_create_vec_index_past_its_buffer_is_caught(runner, tmp_path):
    _, findings, _, _ = _run_key(runner, tmp_path, 31)
    assert _kinds(findings) == ["local_out_of_bounds"], findings


def test_advanced_exp_with_a_taylor_level(runner, tmp_path):
    _, findings, z, _ = _run_key(runner, tmp_path, 40)
    assert _kinds(findings) == [], findings
    h = X[:64].astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(z[:64], np.exp(h).astype(np.float16).astype(np.float32), rtol=1e-3)


def test_region_proposal_apis_of_other_socs_fail_to_compile_naming_why(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(
        '#include "kernel_operator.h"\nusing namespace AscendC;\n'
        "template <typename T> void F(LocalTensor<T> a) { RpSort16(a, a, 1); }\n"
        "template void F<half>(LocalTensor<half>);\n"
    )
    p = subprocess.run(
        [*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(src), "-o", str(tmp_path / "k.o")],
        capture_output=True,
        text=True,
    )
    assert p.returncode != 0
    assert "RpSort16 is not supported on Ascend 910B (Atlas A2)" in p.stderr
