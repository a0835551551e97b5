"""Behaviour of the timing model on synthetic traces in the twin's format."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.evaluation.timing import calibration, synth
from ascendopt.evaluation.timing.costs import DEFAULT_CONSTANTS, CostConstants, constants_with
from ascendopt.evaluation.timing.model import TimingEstimate, classify_bound, estimate
from ascendopt.evaluation.timing.trace import TraceFormatError

SOC = "Ascend910B4"
LAUNCH = DEFAULT_CONSTANTS.launch_overhead_us
F = "op_kernel/k.cpp"


def body(e: TimingEstimate) -> float:
    return e.duration_us - e.launch_overhead_us


def vector_heavy(path: Path, blocks: int, passes: int = 400) -> Path:
    """Each block loads one 8 KB tile then runs many dependent Exp passes on it."""
    with synth.TraceWriter(path) as w:
        for b in range(blocks):
            w.rec(b=b, pipe="MTE2", op="AllocTensor", queue=0, buf=0, file=F, line=10)
            w.rec(b=b, pipe="MTE2", op="DataCopy", dtype="float32", n=2048, bytes=8192, file=F, line=11)
            w.rec(b=b, pipe="MTE2", op="EnQue", queue=0, buf=0, file=F, line=12)
            w.rec(b=b, pipe="V", op="DeQue", queue=0, buf=0, file=F, line=13)
            for _ in range(passes):
                w.rec(b=b, pipe="V", op="Exp", dtype="float32", n=2048, repeat=32, file=F, line=14)
                w.rec(b=b, pipe="V", op="PipeBarrier", file=F, line=15)
            w.rec(b=b, pipe="V", op="FreeTensor", queue=0, buf=0, file=F, line=16)
    return path


def test_double_buffering_is_estimated_faster(tmp_path: Path) -> None:
    kw = dict(total=64 * 4096, dtype="float16", block_dim=1, tile_elems=4096)
    single = estimate(synth.elementwise(tmp_path / "b1.jsonl", buffer_num=1, **kw), SOC, 1)
    double = estimate(synth.elementwise(tmp_path / "b2.jsonl", buffer_num=2, **kw), SOC, 1)
    assert double.duration_us < 0.9 * single.duration_us
    # Same work: the pipes are as busy either way, only the overlap differs.
    assert double.pipes["aiv_mte2_time(us)"] == pytest.approx(single.pipes["aiv_mte2_time(us)"], rel=0.05)


def test_pipe_all_barrier_after_every_op_serialises(tmp_path: Path) -> None:
    kw = dict(total=16 * 4096, dtype="float16", block_dim=1, tile_elems=4096)
    free = estimate(synth.elementwise(tmp_path / "free.jsonl", **kw), SOC, 1)
    serial = estimate(synth.elementwise(tmp_path / "serial.jsonl", barrier_all=True, **kw), SOC, 1)
    p = serial.pipes
    pipe_sum = (
        p["aiv_scalar_time(us)"] + p["aiv_vec_time(us)"] + p["aiv_mte2_time(us)"] + p["aiv_mte3_time(us)"]
    )
    # Only the scalar unit's dispatch of the barrier itself overlaps the pipe it waits for.
    assert p["aiv_time(us)"] == pytest.approx(pipe_sum, rel=0.1)
    assert p["aiv_time(us)"] >= p["aiv_vec_time(us)"] + p["aiv_mte2_time(us)"] + p["aiv_mte3_time(us)"]
    assert serial.duration_us > 1.2 * free.duration_us


def test_forty_blocks_on_forty_cores_take_about_one_block(tmp_path: Path) -> None:
    one = estimate(vector_heavy(tmp_path / "v1.jsonl", 1), SOC, 1)
    forty = estimate(vector_heavy(tmp_path / "v40.jsonl", 40), SOC, 40)
    assert one.bound == forty.bound == "vector"
    assert forty.cores_used == 40 and forty.waves == 1
    assert forty.duration_us == pytest.approx(one.duration_us, rel=0.1)


def test_memory_bound_work_split_over_forty_cores_is_slower_than_forty_times_less(tmp_path: Path) -> None:
    total = 40 * 64 * 1024
    one = estimate(synth.elementwise(tmp_path / "m1.jsonl", total, "float16", 1), SOC, 1)
    forty = estimate(synth.elementwise(tmp_path / "m40.jsonl", total, "float16", 40), SOC, 40)
    assert one.bound == forty.bound == "memory"
    assert body(forty) > 1.5 * body(one) / 40
    assert forty.duration_us < one.duration_us


def test_eighty_blocks_on_forty_cores_run_in_two_waves(tmp_path: Path) -> None:
    forty = estimate(vector_heavy(tmp_path / "w1.jsonl", 40), SOC, 40)
    eighty = estimate(vector_heavy(tmp_path / "w2.jsonl", 80), SOC, 80)
    assert (forty.waves, eighty.waves) == (1, 2)
    assert eighty.cores_used == 40
    assert body(eighty) == pytest.approx(2 * body(forty), rel=0.1)


@pytest.mark.parametrize("total", [40 * 4096, 40 * 64 * 1024, 40 * 1024 * 1024])
@pytest.mark.parametrize("more", [64, 80])
def test_the_same_work_in_more_blocks_than_cores_does_not_look_faster(
    tmp_path: Path, total: int, more: int
) -> None:
    # Campaign winners took BLOCK_DIM 64 on a 40-core SoC: the extra blocks run in a second round, and
    # each is handed out by the scheduler in turn, so starting them early cannot win time.
    forty = estimate(synth.elementwise(tmp_path / "c40.jsonl", total, "float16", 40), SOC, 40)
    split = estimate(synth.elementwise(tmp_path / "cn.jsonl", total, "float16", more), SOC, more)
    assert (forty.waves, split.waves) == (1, 2)
    assert split.duration_us >= forty.duration_us * 0.999, (split.duration_us, forty.duration_us)


def test_block_dim_beyond_traced_blocks_models_missing_blocks(tmp_path: Path) -> None:
    est = estimate(vector_heavy(tmp_path / "one.jsonl", 1), SOC, 80)
    assert est.waves == 2
    assert any("not in the trace" in n for n in est.notes)


def test_long_scalar_getvalue_loop_dominates(tmp_path: Path) -> None:
    path = tmp_path / "scalar.jsonl"
    with synth.TraceWriter(path) as w:
        w.rec(b=0, pipe="MTE2", op="DataCopy", dtype="float32", n=2048, bytes=8192, file=F, line=5)
        w.rec(b=0, pipe="MTE2", op="SetFlag", event=0, hard_event="MTE2_S", file=F, line=6)
        w.rec(b=0, pipe="S", op="WaitFlag", event=0, hard_event="MTE2_S", file=F, line=7)
        for _ in range(5000):
            w.rec(b=0, pipe="S", op="LocalTensor::GetValue", dtype="float32", file=F, line=30)
            w.rec(b=0, pipe="S", op="LocalTensor::SetValue", dtype="float32", file=F, line=31)
    est = estimate(path, SOC, 1)
    assert est.bound == "scalar"
    assert est.pipes["aiv_scalar_ratio"] > 0.9
    assert est.hot_lines[0][0] in (f"{F}:30", f"{F}:31")
    assert sum(share for _, share in est.hot_lines[:2]) > 0.8


def test_set_wait_flag_orders_pipes(tmp_path: Path) -> None:
    def trace(path: Path, synced: bool) -> Path:
        with synth.TraceWriter(path) as w:
            w.rec(b=0, pipe="V", op="Exp", dtype="float32", n=65536, repeat=1024, file=F, line=1)
            if synced:
                w.rec(b=0, pipe="V", op="SetFlag", event=1, hard_event="V_MTE3", file=F, line=2)
                w.rec(b=0, pipe="MTE3", op="WaitFlag", event=1, hard_event="V_MTE3", file=F, line=3)
            w.rec(b=0, pipe="MTE3", op="DataCopy", dtype="float32", n=65536, bytes=262144, file=F, line=4)
        return path

    racing = estimate(trace(tmp_path / "race.jsonl", False), SOC, 1)
    synced = estimate(trace(tmp_path / "sync.jsonl", True), SOC, 1)
    p = synced.pipes
    assert synced.duration_us == pytest.approx(
        LAUNCH + p["aiv_vec_time(us)"] + p["aiv_mte3_time(us)"] + 2 * 16 / 1650 + 16 / 1650, rel=0.05
    )
    assert racing.duration_us < synced.duration_us - 0.5 * p["aiv_vec_time(us)"]


def test_sync_all_waits_for_the_slowest_block(tmp_path: Path) -> None:
    path = tmp_path / "syncall.jsonl"
    with synth.TraceWriter(path) as w:
        for b, passes in ((0, 2000), (1, 10)):
            for _ in range(passes):
                w.rec(b=b, pipe="V", op="Adds", dtype="float32", n=64, repeat=1, file=F, line=1)
            w.rec(b=b, pipe="ALL", op="SyncAll", file=F, line=2)
            w.rec(b=b, pipe="V", op="Adds", dtype="float32", n=64, repeat=1, file=F, line=3)
    est = estimate(path, SOC, 2)
    alone = estimate(path, SOC, 2)
    assert est.duration_us == alone.duration_us
    assert est.duration_us > LAUNCH + DEFAULT_CONSTANTS.sync_all_us


@pytest.mark.parametrize("case", ["tiny", "memory", "vector", "serial", "scalar_tiles"])
def test_pipe_ratios_are_fractions_and_label_says_estimate(tmp_path: Path, case: str) -> None:
    path = tmp_path / f"{case}.jsonl"
    bd = 1
    if case == "tiny":
        synth.elementwise(path, 64, "float16", 1)
    elif case == "memory":
        bd = 8
        synth.elementwise(path, 8 * 128 * 1024, "bfloat16", bd, compute_dtype="float32")
    elif case == "vector":
        vector_heavy(path, 2, passes=50)
        bd = 2
    elif case == "serial":
        synth.elementwise(path, 8 * 1024, "float32", 1, barrier_all=True, tile_elems=256)
    else:
        synth.elementwise(path, 8 * 1024, "float32", 1, tile_elems=8)
    est = estimate(path, SOC, bd)
    ratios = {k: v for k, v in est.pipes.items() if k.endswith("_ratio")}
    assert set(ratios) == {"aiv_vec_ratio", "aiv_mte2_ratio", "aiv_mte3_ratio", "aiv_scalar_ratio"}
    assert all(0.0 <= v <= 1.0 for v in ratios.values())
    assert all(
        est.pipes[k] >= 0
        for k in ("aiv_vec_time(us)", "aiv_mte2_time(us)", "aiv_mte3_time(us)", "aiv_scalar_time(us)")
    )
    assert est.label.startswith("estimate") and "Ascend910B4 model" in est.label
    assert est.bound in ("memory", "vector", "scalar", "sync", "launch")
    assert est.hot_lines and all(0 < share <= 1.0 + 1e-9 for _, share in est.hot_lines)
    assert all(":" in line for line, _ in est.hot_lines)


def test_bound_classification(tmp_path: Path) -> None:
    tiny = estimate(synth.elementwise(tmp_path / "t.jsonl", 64, "float16", 1), SOC, 1)
    assert tiny.bound == "launch"
    big = estimate(synth.elementwise(tmp_path / "m.jsonl", 40 * 256 * 1024, "float16", 40), SOC, 40)
    assert big.bound == "memory"
    assert estimate(vector_heavy(tmp_path / "v.jsonl", 1), SOC, 1).bound == "vector"

    def pipes(vec: float, mte2: float, mte3: float, scalar: float) -> dict[str, float]:
        return {
            "aiv_vec_ratio": vec,
            "aiv_mte2_ratio": mte2,
            "aiv_mte3_ratio": mte3,
            "aiv_scalar_ratio": scalar,
        }

    assert classify_bound(pipes(0.2, 0.3, 0.7, 0.1), 100, 1) == "memory"
    assert classify_bound(pipes(0.3, 0.3, 0.3, 0.3), 100, 1) == "sync"
    assert classify_bound(pipes(0.1, 0.1, 0.1, 0.95), 100, 1) == "scalar"
    assert classify_bound(pipes(0.9, 0.9, 0.9, 0.9), 3, 2) == "launch"


def test_stand_in_soc_label(tmp_path: Path) -> None:
    est = estimate(synth.elementwise(tmp_path / "t.jsonl", 4096, "float16", 1), "Ascend910B2", 1)
    assert est.label == "estimate, Ascend910B1 model (stand-in for Ascend910B2)"


def test_small_unaligned_packets_cost_more_per_byte(tmp_path: Path) -> None:
    def trace(path: Path, rows: int, row_bytes: int) -> Path:
        with synth.TraceWriter(path) as w:
            w.rec(
                b=0,
                pipe="MTE2",
                op="DataCopyPad",
                dtype="float16",
                n=rows * row_bytes // 2,
                bytes=rows * row_bytes,
                repeat=rows,
                file=F,
                line=1,
            )
        return path

    padded = estimate(trace(tmp_path / "pad.jsonl", 1024, 20), SOC, 1)
    flat = estimate(trace(tmp_path / "flat.jsonl", 1, 20 * 1024), SOC, 1)
    assert padded.pipes["aiv_mte2_time(us)"] > 3 * flat.pipes["aiv_mte2_time(us)"]


def test_not_a_trace_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"b":0,"pipe":"V","op":"Add"}\n')
    with pytest.raises(TraceFormatError):
        estimate(path, SOC, 1)


REAL = Path(__file__).parent / "data" / "add_custom_bf16_4blocks.jsonl"


def test_real_twin_trace_of_add_custom(tmp_path: Path) -> None:
    """A trace the CPU twin wrote for templates/operators/add_custom (bf16, 4 blocks, 2 tiles each)."""
    est = estimate(REAL, SOC, 4)
    assert est.records == 92
    assert (est.cores_used, est.waves) == (4, 1)
    assert est.bound == "launch"
    assert est.hot_lines[0][0].startswith("op_kernel/add_custom.cpp:")
    assert est.pipes["aiv_mte2_time(us)"] > 0 and est.pipes["aiv_vec_time(us)"] > 0
    # Records outside any block (b = -1) are ignored.
    noisy = tmp_path / "noisy.jsonl"
    noisy.write_text(REAL.read_text() + '{"b":-1,"pipe":"MTE2","op":"DataCopy","bytes":99999999}\n')
    assert estimate(noisy, SOC, 4).duration_us == est.duration_us


def _adds(path: Path, barriers_after_each: int) -> Path:
    """One block: a tile loaded once, then 50 one-repeat Adds, each followed by that many barriers."""
    with synth.TraceWriter(path) as w:
        w.rec(b=0, pipe="MTE2", op="AllocTensor", queue=0, buf=0, file=F, line=10)
        w.rec(b=0, pipe="MTE2", op="DataCopy", dtype="float32", n=64, bytes=256, file=F, line=11)
        w.rec(b=0, pipe="MTE2", op="EnQue", queue=0, buf=0, file=F, line=12)
        w.rec(b=0, pipe="V", op="DeQue", queue=0, buf=0, file=F, line=13)
        for _ in range(50):
            w.rec(b=0, pipe="V", op="Adds", dtype="float32", n=64, repeat=1, file=F, line=14)
            for _ in range(barriers_after_each):
                w.rec(b=0, pipe="V", op="PipeBarrier", file=F, line=15)
        w.rec(b=0, pipe="V", op="FreeTensor", queue=0, buf=0, file=F, line=16)
    return path


def test_a_vector_barrier_exposes_the_write_back_once_per_instruction(tmp_path: Path) -> None:
    none = estimate(_adds(tmp_path / "b0.jsonl", 0), SOC, 1)
    one = estimate(_adds(tmp_path / "b1.jsonl", 1), SOC, 1)
    two = estimate(_adds(tmp_path / "b2.jsonl", 2), SOC, 1)
    cycle_us = 1.0 / calibration.soc_calibration(SOC).clock_mhz
    depth = 50 * DEFAULT_CONSTANTS.pipe_barrier_cycles * cycle_us
    # each barrier holds the next Adds until the last one, started pipe_barrier_cycles earlier, has written
    # back (a one-repeat Adds issues in a few cycles, so most of the depth shows, as vector busy time)
    assert 0.8 * depth <= one.duration_us - none.duration_us <= 1.05 * depth
    assert 0.8 * depth <= one.pipes["aiv_vec_time(us)"] - none.pipes["aiv_vec_time(us)"] <= depth
    # a second barrier in a row adds only its own dispatch
    assert two.duration_us - one.duration_us < 0.2 * depth
    assert one.hot_lines[0][0].endswith(":15")  # the barrier's line is where the time goes


def test_the_first_waves_blocks_start_one_dispatch_apart(tmp_path: Path) -> None:
    # Tiny work per block: eight blocks on eight cores take the time of one, plus the last block's
    # start, 7·δ after the first (the Add/Mul records: 1.3 µs at block dim 1, 2.9 at 8).
    trace = synth.elementwise(tmp_path / "d8.jsonl", 8 * 64, "float16", 8)
    one = estimate(synth.elementwise(tmp_path / "d1.jsonl", 64, "float16", 1), SOC, 1)
    eight = estimate(trace, SOC, 8)
    at_once = estimate(trace, SOC, 8, constants=CostConstants(block_dispatch_us=0.0))
    delta = DEFAULT_CONSTANTS.block_dispatch_us
    assert delta > 0
    assert eight.duration_us - at_once.duration_us == pytest.approx(7 * delta, rel=0.05)
    assert at_once.duration_us == pytest.approx(one.duration_us, abs=0.05)
    # A second wave's blocks are handed out in turn too: block 79 starts no earlier than 79·δ, when
    # its core is long free (this test said 39·δ, the stagger paid once per launch, which let the same
    # tiny work split into more blocks than cores look faster).
    waves = synth.elementwise(tmp_path / "d80.jsonl", 80 * 64, "float16", 80)
    two = estimate(waves, SOC, 80)
    two_at_once = estimate(waves, SOC, 80, constants=CostConstants(block_dispatch_us=0.0))
    assert two.waves == 2
    assert body(two) > 79 * delta > body(two_at_once)


def test_benchmark_overrides_name_what_is_wrong() -> None:
    c = constants_with(["block_dispatch_us=0", "pipe_barrier_cycles=64"])
    assert (c.block_dispatch_us, c.pipe_barrier_cycles) == (0.0, 64.0)
    assert c.launch_overhead_us == DEFAULT_CONSTANTS.launch_overhead_us
    with pytest.raises(ValueError, match="no_such is not a constant"):
        constants_with(["no_such=1"])
    with pytest.raises(ValueError, match="'fast' is not a number"):
        constants_with(["launch_overhead_us=fast"])


def test_a_trace_read_from_its_bytes_is_estimated_as_from_its_file(tmp_path: Path) -> None:
    """The twin hands the trace back as bytes (no temporary file since speed4): the same estimate, also
    for a file name (the candidate's `#line`) holding \\r, \\r\\n and separators str.splitlines would cut at
    (a file's lines are cut at newlines only), and for a malformed line."""
    path = vector_heavy(tmp_path / "t.jsonl", 3, passes=5)
    odd = 'op_kernel/a\\rb\\u2028c\\u0085d.cpp'
    extra = (
        '{"b":1,"pipe":"V","op":"Exp","dtype":"float32","n":64,"repeat":1,"file":"' + odd + '","line":7}\r\n'
        '{"b":2,"pipe":"S","op":"LocalTensor::GetValue","file":"x\u2028y","line":3}\n'
        "{not json\x0c}\n"
    )
    path.write_bytes(path.read_bytes() + extra.encode("utf-8"))
    from_file = estimate(path, SOC, 3)
    from_bytes = estimate(path.read_bytes(), SOC, 3)
    assert from_bytes == from_file
    assert any("unparsable" in n for n in from_file.notes)
