// CPU-twin test kernel: the elementwise math APIs of lib/math (issue 28's Foreach answers use them), one per
// tiling key, one block. Args: x (float32[N]), y (float32[N]), z (float32[N]), workspace, tiling. N = 1024.
// x is scaled into [-1, 1] (the domain of Asin/Acos), y moved into [1, 5] (Log2/Log10, Power's base).
#include "kernel_operator.h"

constexpr int32_t N = 1024;

extern "C" __global__ __aicore__ void math_apis(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf, tmp;
    pipe.InitBuffer(buf, 3 * N * sizeof(float));
    pipe.InitBuffer(tmp, 1024);
    AscendC::GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, N);
    gy.SetGlobalBuffer((__gm__ float *)y, N);
    gz.SetGlobalBuffer((__gm__ float *)z, N);
    AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[N], d = a[2 * N];
    AscendC::LocalTensor<uint8_t> shared = tmp.Get<uint8_t>();
    AscendC::DataCopy(a, gx, N);
    AscendC::DataCopy(b, gy, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(a, a, 0.125f, N);
    AscendC::Adds(b, b, 3.0f, N);
    if (TILING_KEY_IS(1)) AscendC::Sin(d, a, N);
    else if (TILING_KEY_IS(2)) AscendC::Cos(d, a, shared, N);  // the sharedTmpBuffer form
    else if (TILING_KEY_IS(3)) AscendC::Tan(d, a, N);
    else if (TILING_KEY_IS(4)) AscendC::Asin(d, a, N);
    else if (TILING_KEY_IS(5)) AscendC::Acos(d, a, N);
    else if (TILING_KEY_IS(6)) AscendC::Atan(d, a, N);
    else if (TILING_KEY_IS(7)) AscendC::Sinh(d, a, N);
    else if (TILING_KEY_IS(8)) AscendC::Cosh(d, a, N);
    else if (TILING_KEY_IS(9)) AscendC::Erf(d, a, N);
    else if (TILING_KEY_IS(10)) AscendC::Erfc(d, a, N);
    else if (TILING_KEY_IS(11)) AscendC::Log2(d, b, N);
    else if (TILING_KEY_IS(12)) AscendC::Log10(d, b, N);
    else if (TILING_KEY_IS(13)) AscendC::Sign(d, a, N);
    else if (TILING_KEY_IS(14)) AscendC::Power(d, b, a, N);  // tensor ^ tensor
    else if (TILING_KEY_IS(15)) AscendC::Power(d, b, 2.5f, N);  // tensor ^ scalar
    else if (TILING_KEY_IS(16)) AscendC::Power(d, 2.0f, a, N);  // scalar ^ tensor
    else if (TILING_KEY_IS(17)) AscendC::Sin(d, a, N / 2);  // a count: the rest stays as Duplicate left it
    if (TILING_KEY_IS(17)) {
        AscendC::Duplicate(d[N / 2], -7.0f, N / 2);
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gz, d, N);
}
