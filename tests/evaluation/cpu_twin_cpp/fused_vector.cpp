// CPU-twin test kernel: the dual-input fused vector instructions, one case per tiling key, one block.
// Args: x (float32[N]), y (float32[N]), z (float32[N]), workspace, tiling. N = 1024.
#include "kernel_operator.h"

constexpr int32_t N = 1024;

extern "C" __global__ __aicore__ void fused_vector(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * N * sizeof(float));
    AscendC::GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, N);
    gy.SetGlobalBuffer((__gm__ float *)y, N);
    gz.SetGlobalBuffer((__gm__ float *)z, N);
    AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[N], d = a[2 * N];
    AscendC::LocalTensor<half> h = buf.Get<half>()[6 * N];
    AscendC::DataCopy(a, gx, N);
    AscendC::DataCopy(b, gy, N);
    AscendC::Duplicate(d, 2.0f, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    if (TILING_KEY_IS(1)) AscendC::AddRelu(d, a, b, N);                   // max(x + y, 0)
    else if (TILING_KEY_IS(2)) AscendC::SubRelu(d, a, b, N);              // max(x - y, 0)
    else if (TILING_KEY_IS(3)) AscendC::FusedMulAdd(d, a, b, N);          // x * 2 + y
    else if (TILING_KEY_IS(4)) AscendC::MulAddDst(d, a, b, N);            // x * y + 2
    else if (TILING_KEY_IS(5)) AscendC::FusedMulAddRelu(d, a, b, N);      // max(x * 2 + y, 0)
    else if (TILING_KEY_IS(6)) AscendC::AddRelu(d, a, b, 64, 16, {1, 1, 1, 8, 8, 8});  // mask form, all lanes
    else if (TILING_KEY_IS(7)) {  // AddReluCast float -> half, back to float for the output
        AscendC::AddReluCast(h, a, b, N);
        AscendC::Cast(d, h, AscendC::RoundMode::CAST_NONE, N);
    } else if (TILING_KEY_IS(8)) AscendC::AddRelu(a[3 * N], a, b, N + 8);  // dst runs past the end of the UB buffer
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gz, d, N);
}
