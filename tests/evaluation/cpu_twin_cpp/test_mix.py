"""The mixed launch on the CPU twin (issue 28: Catlass kernels with KERNEL_TYPE_MIX_AIC_1_2): each block
one cube core and two vector cores, the kernel built once per core type as build.py builds it (the cube
build's symbols renamed by build.AIC_RENAME), the cores interleaved at cross-core flags. A look-alike
z = x @ y + 1 (the cube core multiplies into w, each vector core adds 1 to its half) and its hostile
variants: no wait for the cube's product (a race), a vector core writing L1 (fatal), a flag nobody sets
(deadlock), a wrong addend (a wrong output)."""

import json
import subprocess

import numpy as np
import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, _run, runtime_objs  # noqa: F401

from ascendopt.evaluation.cpu_twin.build import AIC_RENAME
from ascendopt.evaluation.cpu_twin.launcher import AIC_PREFIX

pytestmark = pytest.mark.slow

M, K, N = 16, 32, 16
SOURCE = HERE / "mix_cases.cpp"
LAUNCHER = """#include "ascendopt_twin/runner.h"
extern "C" void mix_cases(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
extern "C" void {p}mix_cases(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
static void aiv(uint8_t** a) {{ mix_cases(a[0], a[1], a[2], a[3], a[4]); }}
static void aic(uint8_t** a) {{ {p}mix_cases(a[0], a[1], a[2], a[3], a[4]); }}
int main(int argc, char** argv) {{ return ascendopt_twin::RunnerMain(argc, argv, &aiv, &aic); }}
"""


@pytest.fixture(scope="module")
def mix_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("mix")
    flags = [*CXX, "-std=c++20", "-DASCENDOPT_TWIN_KERNEL", "-DASCENDOPT_TWIN_MIX"]
    _run([*flags, "-c", str(SOURCE), "-o", str(d / "aiv.o")])
    _run([*flags, "-DASCENDOPT_TWIN_CUBE", "-c", str(SOURCE), "-o", str(d / "aic0.o")])
    _run(["sh", "-c", AIC_RENAME, "sh", str(d / "aic0.o"), str(d / "aic.o"), AIC_PREFIX])
    (d / "launch.cpp").write_text(LAUNCHER.format(p=AIC_PREFIX))
    _run([*CXX, "-c", str(d / "launch.cpp"), "-o", str(d / "launch.o")])
    exe = d / "runner"
    objs = [*runtime_objs, d / "aiv.o", d / "aic.o", d / "launch.o"]
    _run(["g++", "-o", str(exe), *map(str, objs), "-pthread"])
    return exe


def _run_key(runner, tmp_path, key):
    rng = np.random.default_rng(3)
    x = (rng.random((M, K)) - 0.5).astype(np.float16)
    y = (rng.random((K, N)) - 0.5).astype(np.float16)
    x.tofile(tmp_path / "x.bin")
    y.tofile(tmp_path / "y.bin")
    (tmp_path / "manifest.txt").write_text(
        f"soc Ascend910B2\ncore_num_aiv 48\ncore_num_aic 24\nub_size 196608\n"
        f"input x float16 1 {M * K} {tmp_path}/x.bin\ninput y float16 1 {K * N} {tmp_path}/y.bin\n"
        f"output z float32 1 {M * N} {tmp_path}/z.bin\noutput w float32 1 {M * N} {tmp_path}/w.bin\n"
        f"block_dim 1\ntiling_key {key}\ntrace {tmp_path}/trace.jsonl\nfindings {tmp_path}/findings.jsonl\n"
        f"result {tmp_path}/result.json\nsource_root {HERE}\n"
    )
    p = subprocess.run(
        [str(runner), str(tmp_path / "manifest.txt")], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    findings = [json.loads(s) for s in (tmp_path / "findings.jsonl").read_text().splitlines() if s.strip()]
    result = json.loads((tmp_path / "result.json").read_text())
    z = np.fromfile(tmp_path / "z.bin", dtype=np.float32).reshape(M, N)
    ref = x.astype(np.float32) @ y.astype(np.float32) + 1
    return z, ref, [f for f in findings if f["severity"] == "error"], result


def _line(tag):
    for i, text in enumerate(SOURCE.read_text().splitlines(), 1):
        if tag in text:
            return i
    raise AssertionError(tag)


def test_a_synchronised_mixed_kernel_verifies(mix_runner, tmp_path):
    z, ref, errors, result = _run_key(mix_runner, tmp_path, 0)
    np.testing.assert_allclose(z, ref, rtol=1e-5, atol=1e-5)
    assert errors == [] and result["status"] == "ok" and result["cores_per_block"] == 3, (errors, result)
    trace = [json.loads(s) for s in (tmp_path / "trace.jsonl").read_text().splitlines()[1:] if s.strip()]
    # the cube core (core 0) multiplies, the two vector cores (1, 2) add
    assert {r["b"] for r in trace if r["op"] == "Mmad"} == {0}
    assert {r["b"] for r in trace if r["op"] == "Adds"} == {1, 2}


def test_a_vector_core_reading_the_product_without_the_flag_races(mix_runner, tmp_path):
    _, _, errors, _ = _run_key(mix_runner, tmp_path, 1)
    races = [f for f in errors if f["kind"] == "cross_block_write_race"]
    assert races and races[0]["line"] == _line("TAG_READ_PRODUCT"), errors
    assert "core 1 (block 0's AIV 0) reads" in races[0]["message"] and "'w'" in races[0]["message"], errors


def test_a_vector_core_writing_l1_is_fatal(mix_runner, tmp_path):
    _, _, errors, result = _run_key(mix_runner, tmp_path, 2)
    bad = [f for f in errors if f["kind"] == "cube_memory_on_vector_core"]
    assert bad and bad[0]["line"] == _line("TAG_L1_ON_AIV") and result["status"] == "kernel_error", errors


def test_a_wait_the_cube_core_never_answers_is_the_deadlock_finding(mix_runner, tmp_path):
    _, _, errors, result = _run_key(mix_runner, tmp_path, 3)
    hang = [f for f in errors if f["kind"] == "crosscore_wait_deadlock"]
    assert hang and result["status"] == "kernel_error", errors


def test_a_wrong_mixed_kernel_gives_a_wrong_output(mix_runner, tmp_path):
    z, ref, errors, _ = _run_key(mix_runner, tmp_path, 4)
    assert errors == [], errors
    assert not np.allclose(z, ref, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(z, ref + 1, rtol=1e-5, atol=1e-5)


def test_the_timing_model_puts_a_mixed_blocks_cores_side_by_side(mix_runner, tmp_path):
    from ascendopt.evaluation.timing.model import estimate

    _run_key(mix_runner, tmp_path, 0)
    trace = (tmp_path / "trace.jsonl").read_bytes()
    mixed = estimate(trace, "Ascend910B2", 1, cores_per_block=3)
    # three cores of one AI Core at once: one wave, the block as long as its slowest core
    assert (mixed.cores_used, mixed.waves) == (3, 1)
    assert any("cross-core waits" in n for n in mixed.notes)
