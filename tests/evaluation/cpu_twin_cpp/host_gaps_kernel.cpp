// CPU-twin test kernel for the API gaps the benchmark's answers hit: TBuf::AllocTensor (the buffer's Get) and
// Power with a caller's temporary buffer. Args: x (float32[N]), y (float32[N], unused), z (float32[N]), workspace,
// tiling. One block. Key 0: z = x ^ 2 (tensor ^ scalar); key 1: z = 2 ^ x (scalar ^ tensor); key 2: z = x ^ x.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t N = 256;

extern "C" __global__ __aicore__ void host_gaps_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)y; (void)workspace; (void)tiling;
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, dst, scratch;
    pipe.InitBuffer(src, N * 4);
    pipe.InitBuffer(dst, N * 4);
    pipe.InitBuffer(scratch, 1024);
    GlobalTensor<float> gx, gz;
    gx.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), N);
    gz.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z), N);
    LocalTensor<float> a = src.AllocTensor<float>();
    LocalTensor<float> out = dst.AllocTensor<float>();
    LocalTensor<uint8_t> tmp = scratch.AllocTensor<uint8_t>();
    DataCopy(a, gx, N);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    float two = 2.0f;
    if (TILING_KEY_IS(0)) Power<float, false>(out, a, two, tmp, N);
    else if (TILING_KEY_IS(1)) Power<float, false>(out, two, a, tmp, N);
    else Power<float, false>(out, a, a, tmp, N);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(gz, out, N);
    src.FreeTensor(a);
}
