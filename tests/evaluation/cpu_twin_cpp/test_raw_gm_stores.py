"""Stores through a raw `__gm__ T *` (issue 28): the twin finds the bytes a block's slice changed
that no API of that slice recorded (blocks run one at a time), so a correct kernel writing its
output that way is not refused with `output_not_written`; the stores are bounds- and race-checked,
and traced as S-pipe scalar work."""

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


@pytest.fixture(scope="module")
def raw_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("raw_gm")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "raw_gm_stores.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "raw_gm_stores")


def _run_key(runner, tmp_path, key, block_dim=4):
    x = [float(i) for i in range(N)]
    run = run_kernel(runner, tmp_path, key, f32_inputs(x=x, y=[0.0] * N), block_dim=block_dim)
    return struct.unpack(f"<{N}f", run.z), run.findings, run.trace()


def test_a_kernel_storing_its_output_through_a_raw_pointer_writes_it(raw_runner, tmp_path):
    z, findings, trace = _run_key(raw_runner, tmp_path, 1)
    assert list(z) == [2.0 * i for i in range(N)]
    assert findings == [], findings
    stores = [r for r in trace if r["op"] == "RawGm::WriteScalar"]
    got = [(r["b"], r["pipe"], r["n"], r["bytes"]) for r in stores]
    assert got == [(b, "S", N // 4, N) for b in range(4)]


def test_raw_stores_are_timed_as_scalar_gm_work(raw_runner, tmp_path):
    from ascendopt.evaluation.timing import costs
    from ascendopt.evaluation.timing.trace import SCALAR, parse_trace

    _run_key(raw_runner, tmp_path, 1)
    parsed = parse_trace(tmp_path / "trace.jsonl", "Ascend910B4")
    scalar = [rec for rec in parsed.blocks[0] if rec[0] == SCALAR]
    assert [rec[2] for rec in scalar] == [costs.DEFAULT_CONSTANTS.scalar_gm_cycles * (N // 4)]


def test_a_raw_store_past_the_end_is_an_error(raw_runner, tmp_path):
    _, findings, _ = _run_key(raw_runner, tmp_path, 2)
    oob = [f for f in findings if f["kind"] == "gm_out_of_bounds"]
    assert len(oob) == 1 and oob[0]["severity"] == "error", findings
    assert "block 3" in oob[0]["message"] and "past the end of output 'z'" in oob[0]["message"]
    assert "byte offset 4108" in oob[0]["message"]


def test_raw_stores_race_across_blocks(raw_runner, tmp_path):
    _, findings, _ = _run_key(raw_runner, tmp_path, 3)
    races = [f for f in findings if f["kind"] == "cross_block_write_race"]
    assert races and races[0]["severity"] == "error", findings


def test_a_raw_store_into_an_input_is_reported(raw_runner, tmp_path):
    _, findings, _ = _run_key(raw_runner, tmp_path, 4, block_dim=1)
    assert [f["kind"] for f in findings] == ["input_written"], findings
    assert "raw GM pointer" in findings[0]["message"] and "(element 5)" in findings[0]["message"]


def test_bytes_no_raw_store_changed_stay_unwritten(raw_runner, tmp_path):
    z, findings, _ = _run_key(raw_runner, tmp_path, 5, block_dim=2)
    missing = [f for f in findings if f["kind"] == "output_not_written"]
    assert len(missing) == 1 and "2048 of 4096 bytes" in missing[0]["message"], findings
    # the twin cannot tell a raw store of the fill's value from no store: a warning, the comparison judges
    assert missing[0]["severity"] == "warning" and "raw GM pointer" in missing[0]["message"]
    assert z[0] == 3.0 and z[N // 4] != z[N // 4]  # NaN where nothing was stored
