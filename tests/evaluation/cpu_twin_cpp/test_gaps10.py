"""Twin gaps NPUKernelBench answers hit (issue 28, round 10), on look-alike kernels (gaps10_cases.cpp) run by
the twin's runner: blocks storing identical bytes to one GM address (no race; different bytes, a read, a
partial overlap and a later different store still are), the mask-mode intrinsics set_mask_count /
set_mask_norm, and GatherMask's counter mode (mask elements per repeat, past 256 B; a pattern too short
for them is caught)."""

import struct

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, _link, _run, run_case, runtime_objs  # noqa: F401

pytestmark = pytest.mark.slow

X = [float(i) for i in range(1024)]


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("gaps10")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "gaps10_cases.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "gaps10_cases")


def _floats(z, n):
    return list(struct.unpack_from(f"<{n}f", z, 0))


def _races(findings):
    return [f for f in findings if f["kind"] == "cross_block_write_race"]


def test_blocks_storing_the_same_flag_value_do_not_race(runner, tmp_path):
    z, findings, _ = run_case(runner, tmp_path, 1, X, block_dim=4)
    assert _races(findings) == []
    assert _floats(z, 1) == [1.0]


def test_blocks_storing_the_same_32_bytes_by_datacopy_do_not_race(runner, tmp_path):
    z, findings, _ = run_case(runner, tmp_path, 6, X, block_dim=3)
    assert _races(findings) == []
    assert _floats(z, 8) == [1.0] * 8


def test_blocks_storing_different_values_still_race(runner, tmp_path):
    _, findings, _ = run_case(runner, tmp_path, 2, X, block_dim=3)
    races = _races(findings)
    assert races and races[0]["block"] == 1 and "block 0" in races[0]["message"], findings


def test_reading_a_flag_several_blocks_stored_still_races(runner, tmp_path):
    # identical stores are order-free, a read of them is not: block 1 may read before block 0's store lands
    _, findings, _ = run_case(runner, tmp_path, 3, X, block_dim=3)
    races = _races(findings)
    assert races and "reads" in races[0]["message"] and "several blocks" in races[0]["message"], findings


def test_reading_what_another_block_stored_still_races(runner, tmp_path):
    _, findings, _ = run_case(runner, tmp_path, 4, X, block_dim=2)
    races = _races(findings)
    assert races and races[0]["block"] == 1 and "reads" in races[0]["message"], findings


def test_a_copy_whose_bytes_are_partly_the_same_still_races(runner, tmp_path):
    # elements 0..7 are the same 1.0s, 8..15 are 2.0 against 1.0: 0x40000000 and 0x3F800000 share
    # their two low bytes, so the first differing byte is byte 34
    _, findings, _ = run_case(runner, tmp_path, 5, X, block_dim=2)
    races = _races(findings)
    assert races and "byte 34 " in races[0]["message"] and "other bytes" in races[0]["message"], findings


def test_a_later_different_store_to_a_shared_flag_still_races(runner, tmp_path):
    # block 1 matched block 0's 1.0, then stores 2.0: on the NPU block 0's 1.0 may land last
    _, findings, _ = run_case(runner, tmp_path, 7, X, block_dim=3)
    races = _races(findings)
    assert races and races[0]["block"] == 1 and "several blocks" in races[0]["message"], findings


def test_set_mask_count_and_set_mask_norm_switch_the_register_mode(runner, tmp_path):
    z, findings, _ = run_case(runner, tmp_path, 8, X)
    assert [f for f in findings if f["severity"] == "error" and f["kind"] != "output_not_written"] == []
    out = _floats(z, 128)
    # counter mode: the first 100 elements (normal mode would take lanes 2, 5, 6 of 0b1100100)
    assert out[0] == sum(range(100))
    # normal mode: lanes 0..3 of bits 0xF (counter mode would take 15 elements)
    assert out[64:72] == [3.0, 4.0, 5.0, 6.0, -1.0, -1.0, -1.0, -1.0]


def test_gather_mask_counter_mode_takes_mask_elements_past_one_repeat(runner, tmp_path):
    z, findings, _ = run_case(runner, tmp_path, 9, X)
    assert [f for f in findings if f["kind"] == "bad_mask"] == []
    out = _floats(z, 128)
    kept = [float(i) for i in range(200) if i % 3 == 0]
    assert out[100] == len(kept) == 67
    assert out[:67] == kept and out[67] == -1.0


def test_gather_mask_counter_mode_repeats_from_the_repeat_stride(runner, tmp_path):
    z, _, _ = run_case(runner, tmp_path, 10, X)
    out = _floats(z, 256)
    assert out[200] == 140.0
    assert out[:140] == [float(i) for i in range(70)] + [float(i) for i in range(32, 102)]


def test_gather_mask_counter_mode_reading_past_a_short_pattern_is_caught(runner, tmp_path):
    _, findings, _ = run_case(runner, tmp_path, 11, X)
    assert any(f["severity"] == "error" and "src1Pattern" in f["message"] for f in findings), findings
