"""A queue declared with a configuration (`TQue<VECIN, 1, &conf>`, conf a constexpr TQueConfig built the way
the loss operators of the open benchmarks build it) compiles and moves data as a plain queue does."""

import struct

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    N,
    _link,
    _run,
    errors,
    run_case,
    runtime_objs,
)

pytestmark = pytest.mark.slow

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr TQueConfig MakeConf(uint32_t number, const TPosition consumers[])
{
    return {false, false, false, 0, number, 0,
            {consumers[1], consumers[2], consumers[3], consumers[4], consumers[5], consumers[6],
             consumers[7]}};
}
constexpr TPosition kNone[8] = {TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX,
                                TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX};
constexpr TQueConfig kConf = MakeConf(1, kNone);

extern "C" __global__ __aicore__ void tque_config(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws, GM_ADDR tiling)
{
    (void)y; (void)ws; (void)tiling;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1, &kConf> in;
    TQue<QuePosition::VECOUT, 1, &kConf> out;
    pipe.InitBuffer(in, 1, 1024 * sizeof(float));
    pipe.InitBuffer(out, 1, 1024 * sizeof(float));
    GlobalTensor<float> gx, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, 1024);
    gz.SetGlobalBuffer((__gm__ float *)z, 1024);
    LocalTensor<float> a = in.AllocTensor<float>();
    DataCopy(a, gx, 1024);
    in.EnQue(a);
    a = in.DeQue<float>();
    LocalTensor<float> b = out.AllocTensor<float>();
    Muls(b, a, 3.0f, 1024);
    out.EnQue(b);
    in.FreeTensor(a);
    b = out.DeQue<float>();
    DataCopy(gz, b, 1024);
    out.FreeTensor(b);
}
"""


def test_a_configured_queue_behaves_as_a_plain_one(runtime_objs, tmp_path):  # noqa: F811
    (tmp_path / "k.cpp").write_text(KERNEL)
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(tmp_path / "k.cpp"), "-o", str(tmp_path / "k.o")])
    exe = _link(tmp_path, runtime_objs, [tmp_path / "k.o"], "tque_config")
    x = [float(i) for i in range(N)]
    z, findings, res = run_case(exe, tmp_path, 0, x)
    assert list(struct.unpack(f"<{N}f", z)) == [3.0 * v for v in x]
    assert res["status"] == "ok" and not errors(findings), findings
