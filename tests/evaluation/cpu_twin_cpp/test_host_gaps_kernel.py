"""TBuf::AllocTensor and the Power forms with a temporary buffer (DequantSwigluQuant, ApplyFusedEmaAdam use
them), run on the twin's runner with a look-alike kernel (host_gaps_kernel.cpp) and checked against NumPy."""

import json
import subprocess

import numpy as np
import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, _link, _run, runtime_objs  # noqa: F401

pytestmark = pytest.mark.slow

N = 256
X = np.array([0.25 + (i % 13) * 0.5 for i in range(N)], dtype=np.float32)


@pytest.fixture(scope="module")
def runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("host_gaps_kernel")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "host_gaps_kernel.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "host_gaps_kernel")


@pytest.mark.parametrize(
    ("key", "expected"), [(0, X**2), (1, np.float32(2.0) ** X), (2, X**X)], ids=["x^2", "2^x", "x^x"]
)
def test_power_with_a_temporary_buffer_on_tbuf_tensors(runner, tmp_path, key, expected):
    (tmp_path / "x.bin").write_bytes(X.tobytes())
    (tmp_path / "y.bin").write_bytes(X.tobytes())
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
    assert [f for f in findings if f.get("severity", "error") == "error"] == []
    z = np.frombuffer((tmp_path / "z.bin").read_bytes(), dtype=np.float32)
    np.testing.assert_allclose(z, expected.astype(np.float32), rtol=1e-5)
