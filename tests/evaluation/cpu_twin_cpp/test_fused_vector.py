"""The dual-input fused vector instructions (issue 28): AddRelu, SubRelu, FusedMulAdd, MulAddDst,
FusedMulAddRelu (count and mask forms), AddReluCast; values as the documents define them, one trace
record each, and the UB bounds check of Add."""

import json
import struct
import subprocess

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, N, _link, _run, runtime_objs  # noqa: F401

pytestmark = pytest.mark.slow

X = [float(i % 17) - 8.0 for i in range(N)]
Y = [float(i % 5) - 2.0 for i in range(N)]


@pytest.fixture(scope="module")
def fused_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("fused")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "fused_vector.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "fused_vector")


def _run_key(runner, tmp_path, key):
    (tmp_path / "x.bin").write_bytes(struct.pack(f"<{N}f", *X))
    (tmp_path / "y.bin").write_bytes(struct.pack(f"<{N}f", *Y))
    (tmp_path / "manifest.txt").write_text(
        f"soc Ascend910B4\ncore_num_aiv 40\nub_size 196608\n"
        f"input x float32 1 {N} {tmp_path}/x.bin\ninput y float32 1 {N} {tmp_path}/y.bin\n"
        f"output z float32 1 {N} {tmp_path}/z.bin\nblock_dim 1\ntiling_key {key}\n"
        f"trace {tmp_path}/trace.jsonl\nfindings {tmp_path}/findings.jsonl\nresult {tmp_path}/result.json\n"
        f"source_root {HERE}\n"
    )
    p = subprocess.run(
        [str(runner), str(tmp_path / "manifest.txt")], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    findings = [json.loads(s) for s in (tmp_path / "findings.jsonl").read_text().splitlines() if s.strip()]
    trace = [json.loads(s) for s in (tmp_path / "trace.jsonl").read_text().splitlines()[1:] if s.strip()]
    z = list(struct.unpack(f"<{N}f", (tmp_path / "z.bin").read_bytes()))
    return z, findings, trace


CASES = {
    1: ("AddRelu", lambda x, y: max(x + y, 0.0)),
    2: ("SubRelu", lambda x, y: max(x - y, 0.0)),
    3: ("FusedMulAdd", lambda x, y: x * 2.0 + y),
    4: ("MulAddDst", lambda x, y: x * y + 2.0),
    5: ("FusedMulAddRelu", lambda x, y: max(x * 2.0 + y, 0.0)),
    6: ("AddRelu", lambda x, y: max(x + y, 0.0)),
    7: ("AddReluCast", lambda x, y: max(x + y, 0.0)),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_fused_values_and_trace(fused_runner, tmp_path, key):
    name, fn = CASES[key]
    z, findings, trace = _run_key(fused_runner, tmp_path, key)
    assert findings == [], findings
    assert z == [fn(x, y) for x, y in zip(X, Y, strict=True)]
    [rec] = [r for r in trace if r["op"] == name]
    assert rec["pipe"] == "V" and rec["n"] == N


def test_fused_out_of_ub_bounds_is_an_error(fused_runner, tmp_path):
    _, findings, _ = _run_key(fused_runner, tmp_path, 8)
    assert findings and all(f["severity"] == "error" for f in findings), findings
    assert any("AddRelu" in f["message"] for f in findings), findings


def test_fused_ops_are_costed():
    from ascendopt.evaluation.timing import costs

    for name in (
        "AddRelu",
        "SubRelu",
        "AddReluCast",
        "SubReluCast",
        "FusedMulAdd",
        "MulAddDst",
        "FusedMulAddRelu",
    ):
        assert costs.VEC_INTRINSICS[name]
