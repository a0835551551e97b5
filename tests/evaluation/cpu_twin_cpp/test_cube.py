"""The cube core on the CPU twin (issue 28, level-3 Catlass kernels): GM -> L1 ND2NZ, L1 -> L0A/L0B
LoadData (transposed for B), Mmad into L0C, Fixpipe L0C -> GM, checked against numpy; and the checks:
hand-overs between the cube pipes, L0A's size, unit flags, the cube core without a UB and the vector
core without L1/L0."""

import json

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

M, K, N = 20, 32, 24
SOURCE = HERE / "cube_cases.cpp"


def _runner(runtime_objs, d, cube):  # noqa: F811
    k = d / "k.o"
    _run(
        [
            *CXX,
            "-DASCENDOPT_TWIN_KERNEL",
            *(["-DASCENDOPT_TWIN_CUBE"] if cube else []),
            "-c",
            str(SOURCE),
            "-o",
            str(k),
        ]
    )
    return _link(d, runtime_objs, [k], "cube_cases")


@pytest.fixture(scope="module")
def cube_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    return _runner(runtime_objs, tmp_path_factory.mktemp("cube"), cube=True)


@pytest.fixture(scope="module")
def vector_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    return _runner(runtime_objs, tmp_path_factory.mktemp("cube_on_aiv"), cube=False)


def _operands():
    rng = np.random.default_rng(7)
    a = (rng.random((M, K)) * 2 - 1).astype(np.float16)
    b = (rng.random((K, N)) * 2 - 1).astype(np.float16)
    return a, b


def _run_key(runner, tmp_path, key, out="float32"):
    a, b = _operands()
    inputs = {"x": ("float16", M * K, a.tobytes()), "y": ("float16", K * N, b.tobytes())}
    run = run_kernel(runner, tmp_path, key, inputs, out=(out, M * N))
    z = np.frombuffer(run.z, dtype=out).reshape(M, N)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return z, ref, run.findings


def _line(tag):
    for i, text in enumerate(SOURCE.read_text().splitlines(), 1):
        if tag in text:
            return i
    raise AssertionError(tag)


def _errors(findings):
    return [f for f in findings if f["severity"] == "error"]


def test_a_synchronised_cube_matmul_matches_numpy(cube_runner, tmp_path):
    z, ref, findings = _run_key(cube_runner, tmp_path, 1)
    np.testing.assert_allclose(z, ref, rtol=1e-5, atol=1e-5)
    assert _errors(findings) == [], findings
    trace = [json.loads(s) for s in (tmp_path / "trace.jsonl").read_text().splitlines()[1:] if s.strip()]
    pipes = {r["op"]: r["pipe"] for r in trace if r["op"] in ("DataCopy", "LoadData", "Mmad", "Fixpipe")}
    assert pipes == {"DataCopy": "MTE2", "LoadData": "MTE1", "Mmad": "M", "Fixpipe": "FIX"}


def test_accumulation_over_k_and_unit_flags_give_the_half_product(cube_runner, tmp_path):
    z, ref, findings = _run_key(cube_runner, tmp_path, 2, out="float16")
    np.testing.assert_allclose(
        z.astype(np.float32), ref.astype(np.float16).astype(np.float32), rtol=2e-3, atol=2e-3
    )
    assert _errors(findings) == [], findings


def test_a_fixpipe_reading_l0c_before_the_m_pipe_hands_it_over_is_a_hazard(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 3)
    hazards = [f for f in _errors(findings) if f["kind"] == "pipe_hazard"]
    assert hazards and "M_FIX" in hazards[0]["message"] and "L0C" in hazards[0]["message"], findings


def test_loaddata_reading_l1_before_the_copy_is_handed_over_is_a_hazard(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 4)
    hazards = [f for f in _errors(findings) if f["kind"] == "pipe_hazard"]
    assert hazards and "MTE2_MTE1" in hazards[0]["message"] and "L1" in hazards[0]["message"], findings


def test_a_mmad_past_l0a_is_out_of_bounds(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 5)
    bad = [f for f in _errors(findings) if f["kind"] == "local_out_of_bounds"]
    assert bad and bad[0]["line"] == _line("TAG_PAST_L0A") and "65536 B L0A" in bad[0]["message"], findings


def test_a_fixpipe_waiting_on_a_unit_flag_no_mmad_set_would_hang(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 6)
    hang = [f for f in _errors(findings) if f["kind"] == "waitflag_without_setflag"]
    assert hang and hang[0]["line"] == _line("Fixpipe<T, float, CFG_ROW_MAJOR>"), findings


def test_the_cube_core_has_no_ub(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 7)
    bad = [f for f in _errors(findings) if f["kind"] == "ub_on_cube_core"]
    assert bad and bad[0]["line"] == _line("TAG_UB_ON_CUBE"), findings


def test_a_bias_table_starts_the_sum_and_an_identical_reload_is_no_hazard(cube_runner, tmp_path):
    z, ref, findings = _run_key(cube_runner, tmp_path, 8)
    _, b = _operands()
    bias = b.reshape(-1)[:N].astype(np.float32)
    np.testing.assert_allclose(z, ref + bias, rtol=1e-5, atol=1e-5)
    assert _errors(findings) == [], findings


def test_reloading_other_bias_while_the_mmad_may_read_it_is_a_hazard(cube_runner, tmp_path):
    _, _, findings = _run_key(cube_runner, tmp_path, 9)
    hazards = [f for f in _errors(findings) if f["kind"] == "pipe_hazard"]
    assert (
        hazards and hazards[0]["line"] == _line("TAG_BIAS_RELOAD") and "bias table" in hazards[0]["message"]
    )


def test_a_vector_core_writing_l1_is_refused(vector_runner, tmp_path):
    _, _, findings = _run_key(vector_runner, tmp_path, 1)
    bad = [f for f in _errors(findings) if f["kind"] == "cube_memory_on_vector_core"]
    assert bad and "L1" in bad[0]["message"], findings


def test_cube_work_is_timed_on_its_own_pipes(cube_runner, tmp_path):
    from ascendopt.evaluation.timing import costs
    from ascendopt.evaluation.timing.trace import CUBE, FIX, MOVE, MTE1, parse_trace
    from ascendopt.evaluation.timing.trace import M as M_PIPE

    _run_key(cube_runner, tmp_path, 1)
    parsed = parse_trace(tmp_path / "trace.jsonl", "Ascend910B4")
    recs = parsed.blocks[0]
    start = costs.CUBE_START_CYCLES
    # four LoadData of two 512 B fractals; one Mmad of 2 x 2 x 2 fractal triples of half
    cube = sorted((r[1], r[2]) for r in recs if r[0] == CUBE)
    assert cube == [(MTE1, start + 1024 / 256)] * 4 + [(M_PIPE, start + 8)]
    assert [(r[1], r[2]) for r in recs if r[0] == MOVE and r[1] == FIX] == [(FIX, M * N * 4)]
