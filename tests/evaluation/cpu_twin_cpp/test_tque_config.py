"""Queue forms the open benchmarks' answers use: a queue declared with a configuration
(`TQue<VECIN, 1, &conf>`, conf a constexpr TQueConfig built as the loss operators build it) and a
TQueBind handed over with its positions named (`EnQue<VECIN, VECOUT, T>`) compile and move data as
the plain forms do."""

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
    GlobalTensor<float> gx, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, 1024);
    gz.SetGlobalBuffer((__gm__ float *)z, 1024);
    if (TILING_KEY_IS(1)) {  // GM -> UB -> GM through one bound queue
        TQueBind<QuePosition::VECIN, QuePosition::VECOUT, 1> bind;
        pipe.InitBuffer(bind, 1, 1024 * sizeof(float));
        LocalTensor<float> t = bind.AllocTensor<float>();
        DataCopy(t, gx, 1024);
        bind.EnQue<QuePosition::VECIN, QuePosition::VECOUT, float>(t);
        t = bind.DeQue<QuePosition::VECIN, QuePosition::VECOUT, float>();
        DataCopy(gz, t, 1024);
        bind.FreeTensor(t);
        return;
    }
    TQue<QuePosition::VECIN, 1, &kConf> in;
    TQue<QuePosition::VECOUT, 1, &kConf> out;
    pipe.InitBuffer(in, 1, 1024 * sizeof(float));
    pipe.InitBuffer(out, 1, 1024 * sizeof(float));
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


@pytest.fixture(scope="module")
def queues(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("queues")
    (d / "k.cpp").write_text(KERNEL)
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(d / "k.cpp"), "-o", str(d / "k.o")])
    return _link(d, runtime_objs, [d / "k.o"], "tque_config")


@pytest.mark.parametrize(("key", "factor"), [(0, 3.0), (1, 1.0)])
def test_the_queue_forms_move_data_as_the_plain_ones(queues, tmp_path, key, factor):
    x = [float(i) for i in range(N)]
    z, findings, res = run_case(queues, tmp_path, key, x)
    assert list(struct.unpack(f"<{N}f", z)) == [factor * v for v in x]
    assert res["status"] == "ok" and not errors(findings), findings
