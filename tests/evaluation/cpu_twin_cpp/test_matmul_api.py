"""The high-level Matmul API on the CPU twin (issue 28: FlashAttentionScoreWithLargeHeadDim,
InplaceFusedMatmulSoftmaxGrad): a look-alike mixed kernel whose vector cores each ask a matmul::Matmul for
their half of w = a @ b^T + bias, then read w back (z = w + 1), built as build.py builds a mixed kernel; and a
host program filling a TCubeTiling with MultiCoreMatmulTiling. Hostile variants: C past the output's end (an
error at the call), a wrong SetOrgShape (a wrong output, no pass)."""

import json
import subprocess

import numpy as np
import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, INC, _run, runtime_objs  # noqa: F401

from ascendopt.evaluation.cpu_twin import bisheng
from ascendopt.evaluation.cpu_twin.build import AIC_RENAME
from ascendopt.evaluation.cpu_twin.launcher import AIC_PREFIX

pytestmark = pytest.mark.slow

M, K, N = 32, 32, 48
SOURCE = HERE / "matmul_api_cases.cpp"
LAUNCHER = """#include "ascendopt_twin/runner.h"
extern "C" void matmul_api_cases(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
extern "C" void {p}matmul_api_cases(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
static void aiv(uint8_t** a) {{ matmul_api_cases(a[0], a[1], a[2], a[3], a[4], a[5]); }}
static void aic(uint8_t** a) {{ {p}matmul_api_cases(a[0], a[1], a[2], a[3], a[4], a[5]); }}
int main(int argc, char** argv) {{ return ascendopt_twin::RunnerMain(argc, argv, &aiv, &aic); }}
"""


@pytest.fixture(scope="module")
def mm_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    assert bisheng.mixed_kernel(SOURCE.read_text()) and not bisheng.cube_kernel(SOURCE.read_text())
    d = tmp_path_factory.mktemp("mmapi")
    flags = [*CXX, "-std=c++20", "-DASCENDOPT_TWIN_KERNEL", "-DASCENDOPT_TWIN_MIX"]
    _run([*flags, "-c", str(SOURCE), "-o", str(d / "aiv.o")])
    _run([*flags, "-DASCENDOPT_TWIN_CUBE", "-c", str(SOURCE), "-o", str(d / "aic0.o")])
    _run(["sh", "-c", AIC_RENAME, "sh", str(d / "aic0.o"), str(d / "aic.o"), AIC_PREFIX])
    (d / "launch.cpp").write_text(LAUNCHER.format(p=AIC_PREFIX))
    _run([*CXX, "-c", str(d / "launch.cpp"), "-o", str(d / "launch.o")])
    exe = d / "runner"
    _run(
        [
            "g++",
            "-o",
            str(exe),
            *map(str, [*runtime_objs, d / "aiv.o", d / "aic.o", d / "launch.o"]),
            "-pthread",
        ]
    )
    return exe


def _run_key(runner, tmp_path, key):
    rng = np.random.default_rng(5)
    a = (rng.random((M, K)) - 0.5).astype(np.float16)
    b = (rng.random((N, K)) - 0.5).astype(np.float16)
    bias = (rng.random(N) - 0.5).astype(np.float32)
    for name, v in (("a", a), ("b", b), ("bias", bias)):
        v.tofile(tmp_path / f"{name}.bin")
    (tmp_path / "manifest.txt").write_text(
        "soc Ascend910B2\ncore_num_aiv 48\ncore_num_aic 24\nub_size 196608\n"
        f"input a float16 1 {M * K} {tmp_path}/a.bin\ninput b float16 1 {N * K} {tmp_path}/b.bin\n"
        f"input bias float32 1 {N} {tmp_path}/bias.bin\n"
        f"output w float32 1 {M * N} {tmp_path}/w.bin\noutput z float32 1 {M * N} {tmp_path}/z.bin\n"
        f"block_dim 1\ntiling_key {key}\ntrace {tmp_path}/trace.jsonl\nfindings {tmp_path}/findings.jsonl\n"
        f"result {tmp_path}/result.json\nsource_root {HERE}\n"
    )
    p = subprocess.run(
        [str(runner), str(tmp_path / "manifest.txt")], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    findings = [json.loads(s) for s in (tmp_path / "findings.jsonl").read_text().splitlines() if s.strip()]
    w = np.fromfile(tmp_path / "w.bin", dtype=np.float32).reshape(M, N)
    z = np.fromfile(tmp_path / "z.bin", dtype=np.float32).reshape(M, N)
    ref = a.astype(np.float32) @ b.astype(np.float32).T + bias
    return w, z, ref, [f for f in findings if f["severity"] == "error"], findings


def _line(tag):
    for i, text in enumerate(SOURCE.read_text().splitlines(), 1):
        if tag in text:
            return i
    raise AssertionError(tag)


@pytest.mark.parametrize("key", [0, 3, 4], ids=["iterate_all", "iterate_get_tensor_c", "async_wait"])
def test_the_vector_cores_matmul_verifies_and_reads_back_without_a_hazard(mm_runner, tmp_path, key):
    w, z, ref, errors, findings = _run_key(mm_runner, tmp_path, key)
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z, ref + 1, rtol=1e-5, atol=1e-5)
    # reading w back right after the call is no pipe hazard: the vector core waited for the answer
    assert errors == [] and not [f for f in findings if f["kind"] == "pipe_hazard"], findings
    trace = [json.loads(s) for s in (tmp_path / "trace.jsonl").read_text().splitlines()[1:] if s.strip()]
    # the vector cores (1, 2) ask; the cube core (0) left the kernel at REGIST_MATMUL_OBJ
    assert {r["b"] for r in trace if r["op"].startswith("Matmul")} == {1, 2}
    assert not [r for r in trace if r["b"] == 0 and r["op"] == "Adds"]


def test_a_product_written_past_the_outputs_end_is_an_error_at_the_call(mm_runner, tmp_path):
    _, _, _, errors, _ = _run_key(mm_runner, tmp_path, 1)
    bad = [f for f in errors if f["kind"] == "gm_out_of_bounds"]
    assert bad and bad[0]["line"] == _line("TAG_C_PAST_END") and "'w'" in bad[0]["message"], errors


def test_a_wrong_org_shape_gives_a_wrong_output(mm_runner, tmp_path):
    w, _, ref, errors, _ = _run_key(mm_runner, tmp_path, 2)
    assert errors == [], errors
    assert not np.allclose(w, ref, rtol=1e-3, atol=1e-3)


def test_the_matmul_is_timed_as_cube_work_on_the_asking_core(mm_runner, tmp_path):
    from ascendopt.evaluation.timing.trace import CUBE, M, parse_trace

    _run_key(mm_runner, tmp_path, 0)
    parsed = parse_trace((tmp_path / "trace.jsonl").read_bytes(), "Ascend910B2")
    cube = [r for r in parsed.blocks[1] if r[0] == CUBE and r[1] == M]
    # 16 x 48 (whole fractals) x 32 multiply-adds: a few cycles over the start-up
    assert cube and cube[0][2] > 20


HOST = r"""
#include <cstdio>
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(LookAlikeTiling)
    TILING_DATA_FIELD_DEF(uint32_t, rows);
    TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cube);
END_TILING_DATA_DEF;
}
int main()
{
    using namespace matmul_tiling;
    optiling::LookAlikeTiling data;
    MultiCoreMatmulTiling t;
    t.SetDim(4);
    t.SetAType(TPosition::GM, CubeFormat::ND, static_cast<DataType>(1));  // ge::DT_FLOAT16
    t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, true);
    t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    t.SetShape(1000, 300, 200);
    t.SetOrgShape(1000, 300, 200);
    t.SetBias(false);
    t.SetBufferSpace(-1, -1, -1);
    long ok = t.GetTiling(data.cube);
    data.cube.set_shareMode(0);
    const TCubeTiling &c = data.cube;
    std::printf("%ld %d %d %d %d %d %d %d %d %d %d %d %d\n", ok, c.usedCoreNum, c.M, c.N, c.Ka, c.singleCoreM,
                c.singleCoreN, c.singleCoreK, c.baseM, c.baseN, c.baseK, c.stepKa, data.cube.get_Kb());
    MatmulApiTiling none;  // no types set: GetTiling fails
    std::printf("%ld\n", none.GetTiling(data.cube));
    return 0;
}
"""


def test_the_host_tiling_fills_a_self_consistent_tcubetiling(runtime_objs, tmp_path):  # noqa: F811
    (tmp_path / "host.cpp").write_text(HOST)
    exe = tmp_path / "host"
    _run(
        [
            "g++",
            "-std=c++17",
            "-I",
            str(INC),
            str(tmp_path / "host.cpp"),
            *map(str, runtime_objs),
            "-o",
            str(exe),
            "-pthread",
        ]
    )
    lines = _run([str(exe)]).stdout.split("\n")
    ok, used, m, n, ka, sm, sn, sk, bm, bn, bk, step_ka, kb = map(int, lines[0].split())
    assert (ok, m, n, ka, kb) == (0, 1000, 300, 200, 200)
    # the rows split over the 4 cores, N and K whole; base blocks whole fractals that fit L0 double-buffered
    assert (used, sm, sn, sk) == (4, 250, 300, 200)
    assert bm % 16 == 0 and bn % 16 == 0 and bk % 16 == 0 and bm <= sm + 15 and bn <= sn + 15
    assert bm * bk * 2 * 2 <= 64 * 1024 and bn * bk * 2 * 2 <= 64 * 1024 and bm * bn * 4 <= 128 * 1024
    assert step_ka * bk >= min(sk, bk)
    assert int(lines[1]) == -1
