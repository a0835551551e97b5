"""No twin internals on the public surface (issue 23): a kernel reaches GM and UB only through what
AscendC documents. The API classes keep their state private (the twin reaches it through
`twin_detail::Access`), and a kernel build is sealed: after `ascendopt_twin/seal.h` the names
`ascendopt_twin` and `twin_detail` are poisoned, so the runtime and the accessor cannot be named.
What AscendC itself offers (`GetPhyAddr` on GlobalTensor and LocalTensor) stays, and is reported."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ascendopt.agent.episode import new_findings
from ascendopt.evaluation.cpu_twin.build import CXX, CXXFLAGS, KERNEL_SEAL
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator

pytestmark = pytest.mark.slow

INCLUDE = Path(__file__).resolve().parents[3] / "server" / "ascendopt" / "evaluation" / "cpu_twin" / "include"

# A look-alike vector kernel (z = x + y over one tile per block); ATTACK picks one way a cheating
# candidate might try to do the sum on raw memory behind the twin's back. 0: none, it must build.
LOOKALIKE = r"""
#if ATTACK == 6
#define private public  // too late: the seal has parsed every twin class already
#endif
#include "kernel_operator.h"
#define GLUE2(a, b) a##b
#define GLUE(a, b) GLUE2(a, b)

class KernelSum {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, 256);
        yGm.SetGlobalBuffer((__gm__ float *)y, 256);
        zGm.SetGlobalBuffer((__gm__ float *)z, 256);
        pipe.InitBuffer(inQ, 1, 256 * sizeof(float));
        pipe.InitBuffer(outQ, 1, 256 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQ.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, 256);
        inQ.EnQue(xLocal);
        xLocal = inQ.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQ.AllocTensor<float>();
#if ATTACK == 1
        float *gx = xGm.addr_;
        for (int i = 0; i < 256; i++) zLocal.SetValue(i, gx[i]);
#elif ATTACK == 2
        float *uz = zLocal.Ptr();
        for (int i = 0; i < 256; i++) uz[i] = 1.0f;
#elif ATTACK == 3
        ascendopt_twin::rt::g_trace_on = false;
#elif ATTACK == 4
        float *gx = AscendC::twin_detail::Access::Addr(xGm);
#elif ATTACK == 5
        GLUE(ascendopt_, twin)::rt::UbPtr(0)[0] = 0;
#elif ATTACK == 6
        float *gx = xGm.addr_;
#elif ATTACK == 7
        uint32_t at = zLocal.off_;
#elif ATTACK == 8
        zLocal = AscendC::LocalTensor<float>::Make(0, 64, {0, 256}, -1, AscendC::TPosition::VECOUT);
#elif ATTACK == 9
        using namespace AscendC;
        float *uz = twin_detail::Access::Ptr(zLocal);
#else
        AscendC::Adds(zLocal, xLocal, 1.0f, 256);
#endif
        outQ.EnQue(zLocal);
        inQ.FreeTensor(xLocal);
        zLocal = outQ.DeQue<float>();
        AscendC::DataCopy(zGm, zLocal, 256);
        outQ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
};

extern "C" __global__ __aicore__ void sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    KernelSum op;
    op.Init(x, y, z);
    op.Process();
}
"""

# attack → what g++ must say (the member named private / absent, or the sealed name poisoned).
ATTACKS = {
    1: r"'float\* AscendC::GlobalTensor<float>::addr_' is private within this context",
    2: r"'class AscendC::LocalTensor<float>' has no member named 'Ptr'",
    3: r'attempt to use poisoned "ascendopt_twin"',
    4: r'attempt to use poisoned "twin_detail"',
    5: r'attempt to use poisoned "ascendopt_twin"',
    6: r"'float\* AscendC::GlobalTensor<float>::addr_' is private within this context",
    7: r"'uint32_t AscendC::LocalTensor<float>::off_' is private within this context",
    8: r"'Make' is not a member of 'AscendC::LocalTensor<float>'",
    9: r'attempt to use poisoned "twin_detail"',
}


def _compile(tmp_path: Path, attack: int) -> subprocess.CompletedProcess[str]:
    if shutil.which(CXX) is None:
        pytest.skip(f"{CXX} not available")
    src = tmp_path / "sum_custom.cpp"
    src.write_text(LOOKALIKE)
    argv = [CXX, *CXXFLAGS, "-I", str(INCLUDE), "-DASCENDOPT_TWIN_KERNEL", *KERNEL_SEAL, f"-DATTACK={attack}"]
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}  # plain quotes in the diagnostics
    return subprocess.run(
        [*argv, "-fsyntax-only", str(src)], capture_output=True, text=True, cwd=tmp_path, env=env
    )


def test_the_lookalike_builds_without_an_attack(tmp_path: Path) -> None:
    run = _compile(tmp_path, 0)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_twin_internals_do_not_compile_in_a_kernel(tmp_path: Path, attack: int) -> None:
    run = _compile(tmp_path, attack)
    assert run.returncode != 0, f"attack {attack} compiled"
    assert re.search(ATTACKS[attack], run.stderr), run.stderr


KERNEL = "op_kernel/add_custom.cpp"
ADD = "            AscendC::Add(zLocal, xLocal, yLocal, count);\n"


async def _variant(tmp_path: Path, templates: Path, new: str):
    root = tmp_path / "add_custom"
    shutil.copytree(templates / "add_custom", root)
    path = root / KERNEL
    text = path.read_text()
    assert text.count(ADD) == 1, "the template changed"
    broken = text.replace(ADD, new)
    path.write_text(broken)
    return await verify(CpuTwinEvaluator(), load_operator(root), case="small-tail"), broken


async def test_gm_member_through_the_product_is_a_compile_error(tmp_path: Path, templates: Path) -> None:
    # The build the evaluator runs (seal included) refuses a kernel that reads GlobalTensor's state.
    new = "            T *raw = xGm.addr_;  // RAW\n" + ADD
    evaluation, _ = await _variant(tmp_path, templates, new)
    assert evaluation.status == "compile_error", evaluation.status
    errors = evaluation.compile_errors
    assert any("addr_" in i.message and "private" in i.message for i in errors), errors


async def test_local_getphyaddr_scalar_loop_is_reported(tmp_path: Path, templates: Path) -> None:
    # The sum done by the scalar unit on raw UB addresses from LocalTensor::GetPhyAddr(), as the NPU
    # allows: it runs on the twin (the address is the UB byte's), and every call site is reported.
    new = (
        "            __ubuf__ T *zp = reinterpret_cast<__ubuf__ T *>(zLocal.GetPhyAddr());  // RAW\n"
        "            __ubuf__ T *xp = reinterpret_cast<__ubuf__ T *>(xLocal.GetPhyAddr());\n"
        "            __ubuf__ T *yp = reinterpret_cast<__ubuf__ T *>(yLocal.GetPhyAddr());\n"
        "            for (uint32_t k = 0; k < count; k++) zp[k] = xp[k] + yp[k];\n"
    )
    evaluation, broken = await _variant(tmp_path, templates, new)
    assert evaluation.status == "ok", evaluation.compile_errors or evaluation.message
    line = next(n for n, t in enumerate(broken.splitlines(), start=1) if "// RAW" in t)
    raw = [f for f in evaluation.findings() if f.kind == "raw_ub_pointer"]
    assert {(f.severity, f.file, f.line) for f in raw} >= {("warning", KERNEL, line)}, raw
    # The episode refuses it: the template has no such finding.
    baseline = await verify(CpuTwinEvaluator(), load_operator(templates / "add_custom"), case="small-tail")
    assert "raw_ub_pointer" in {f.kind for f in new_findings(evaluation, baseline)}
