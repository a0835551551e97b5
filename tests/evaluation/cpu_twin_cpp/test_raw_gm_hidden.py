"""Raw `__gm__` stores the raw-store sweep must still catch now that it compares a keyed digest of each
GM chunk (runtime/gm_digest.cpp) instead of every byte: one changed bit, changes a plain sum, XOR or
swap-insensitive digest keeps, a store another block undoes (net zero after the launch), a raw store
an API write of another block covers, a store undone only after a SyncAll. A store undone before the
hand-over is invisible, as it was to the byte-by-byte comparison."""


import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    HERE,
    _link,
    _run,
    f32_inputs,
    run_kernel,
    runtime_objs,
)

pytestmark = pytest.mark.slow

M = 8192
BLOCKS = 8


@pytest.fixture(scope="module")
def hidden_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("raw_gm_hidden")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "raw_gm_hidden.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "raw_gm_hidden")


def _run_key(runner, tmp_path, key):
    run = run_kernel(
        runner, tmp_path, key, f32_inputs(x=range(M), y=[0.0] * M), out=("float32", M), block_dim=BLOCKS
    )
    stores = [(r["b"], r["n"], r["bytes"]) for r in run.trace() if r["op"] == "RawGm::WriteScalar"]
    return run.findings, stores


def test_one_flipped_bit_in_any_chunk_is_caught_and_laid_to_its_block(hidden_runner, tmp_path):
    _, stores = _run_key(hidden_runner, tmp_path, 1)
    assert stores == [(b, 1, 4) for b in range(BLOCKS)]


def test_changes_a_plain_sum_xor_or_swap_would_keep_are_caught(hidden_runner, tmp_path):
    # 0xFFFFFFFF -> 1000+b, 2000+b, 0: the three words' sum changes by a multiple of 2^32 for no pair,
    # but each single word moves; any digest blind to which word moved, or by how much, misses some
    _, stores = _run_key(hidden_runner, tmp_path, 2)
    assert stores == [(b, 3, 12) for b in range(BLOCKS)]


def test_a_store_another_block_undoes_is_caught_in_both(hidden_runner, tmp_path):
    findings, stores = _run_key(hidden_runner, tmp_path, 3)
    assert stores == [(0, 1, 4), (1, 1, 4)]
    races = [f for f in findings if f["kind"] == "cross_block_write_race"]
    assert len(races) == 1 and "block 1 stores through a raw GM pointer" in races[0]["message"], findings


def test_a_raw_store_an_api_write_covers_later_is_still_caught(hidden_runner, tmp_path):
    findings, stores = _run_key(hidden_runner, tmp_path, 4)
    assert (0, 1, 4) in stores
    races = [f for f in findings if f["kind"] == "cross_block_write_race"]
    assert (
        races and "block 1 writes byte 1200" in races[0]["message"] and "block 0 wrote" in races[0]["message"]
    ), findings


def test_a_store_undone_before_the_hand_over_is_not_seen_but_one_undone_after_a_syncall_is(
    hidden_runner, tmp_path
):
    _, stores = _run_key(hidden_runner, tmp_path, 5)
    # block 0's first slice left z[4000] changed (z[11] back as it was); its second slice put z[4000] back
    assert stores == [(0, 1, 4), (0, 1, 4)]


def test_a_raw_store_into_an_input_by_the_last_block_is_reported(hidden_runner, tmp_path):
    findings, stores = _run_key(hidden_runner, tmp_path, 6)
    assert stores == [(7, 1, 3)]  # an input has no written-byte tags: the changed bytes only (8189.0 -> -1.0)
    written = [f for f in findings if f["kind"] == "input_written"]
    assert len(written) == 1 and f"(element {M - 3})" in written[0]["message"], findings
