// CPU-twin mixed-launch test kernel (1 AIC + 2 AIV per block), one case per tiling key. x: half[M x K], y: half[K x N]
// (row-major); z: float[M x N] = x @ y + 1: the cube core multiplies into w (float[M x N], an output standing for a
// workspace), each vector core adds 1 to its half of the rows. Built twice, as the twin builds a mixed kernel: for the cube core (-DASCENDOPT_TWIN_CUBE
// -DASCENDOPT_TWIN_MIX) and for the vector core (-DASCENDOPT_TWIN_MIX), the cube build's symbols renamed.
#include "kernel_operator.h"

using namespace AscendC;
constexpr uint32_t M = 16, K = 32, N = 16;
constexpr uint32_t K1 = K / 16;
constexpr uint16_t FLAG_PRODUCT = 3;

// The cube core: workspace = x @ y (float), then the mode-2 flag to both vector cores of its block (`set`: false
// leaves it out).
static void CubePart(GM_ADDR gx, GM_ADDR gy, GM_ADDR ws, bool set)
{
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l1, (M * K + K * N) * 2);
    pipe.InitBuffer(l0a, M * K * 2);
    pipe.InitBuffer(l0b, K * N * 2);
    pipe.InitBuffer(l0c, M * N * 4);
    LocalTensor<half> a1 = l1.Get<half>(), b1 = a1[M * K], a2 = l0a.Get<half>(), b2 = l0b.Get<half>();
    LocalTensor<float> c = l0c.Get<float>();
    GlobalTensor<half> x, y;
    GlobalTensor<float> w;
    x.SetGlobalBuffer((__gm__ half *)gx, M * K);
    y.SetGlobalBuffer((__gm__ half *)gy, K * N);
    w.SetGlobalBuffer((__gm__ float *)ws, M * N);
    Nd2NzParams nz;
    nz.ndNum = 1;
    nz.nValue = M;
    nz.dValue = K;
    nz.srcDValue = K;
    nz.dstNzC0Stride = M;
    nz.dstNzNStride = 1;
    DataCopy(a1, x, nz);
    nz.nValue = K;
    nz.dValue = N;
    nz.srcDValue = N;
    nz.dstNzC0Stride = K;
    DataCopy(b1, y, nz);
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LoadData2DParams ld;
    ld.repeatTimes = K1;
    ld.srcStride = 1;
    LoadData(a2, a1, ld);
    ld.repeatTimes = 1;  // B (K x N, N one fractal wide): each of its K1 fractals transposed in place
    ld.ifTranspose = true;
    for (uint32_t fk = 0; fk < K1; ++fk) LoadData(b2[fk * 256], b1[fk * 256], ld);
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams mm;
    mm.m = M;
    mm.n = N;
    mm.k = K;
    Mmad(c, a2, b2, mm);
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    FixpipeParamsV220 fp;
    fp.nSize = N;
    fp.mSize = M;
    fp.srcStride = M;
    fp.dstStride = N;
    Fixpipe<float, float, CFG_ROW_MAJOR>(w, c, fp);
    if (set) CrossCoreSetFlag<2, PIPE_FIX>(FLAG_PRODUCT);
}

// A vector core: z rows [sub * M / 2, (sub + 1) * M / 2) = workspace rows + add.
static void VectorPart(GM_ADDR ws, GM_ADDR gz, uint16_t waitOn, float add, bool touchL1)
{
    if (waitOn != 0xFFFF) CrossCoreWaitFlag(waitOn);
    const uint32_t rows = M / GetSubBlockNum(), first = rows * GetSubBlockIdx(), count = rows * N;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, count * 4);
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> w, z;
    w.SetGlobalBuffer((__gm__ float *)ws + first * N, count);
    z.SetGlobalBuffer((__gm__ float *)gz + first * N, count);
    if (touchL1) {
        TBuf<TPosition::A1> l1;
        pipe.InitBuffer(l1, count * 4);
        DataCopy(l1.Get<float>(), w, count);  // TAG_L1_ON_AIV
    }
    DataCopy(t, w, count);  // TAG_READ_PRODUCT
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    Adds(t, t, add, count);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(z, t, count);
}

extern "C" __global__ __aicore__ void mix_cases(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws, GM_ADDR workspace)
{
    (void)workspace;
    const uint64_t key = ascendopt_twin::rt::g_blk->tilingKey;
    if ASCEND_IS_AIC {
        CubePart(x, y, ws, key != 1 && key != 3);
        return;
    }
    switch (key) {
    case 0: VectorPart(ws, z, FLAG_PRODUCT, 1.0f, false); break;  // correct
    case 1: VectorPart(ws, z, 0xFFFF, 1.0f, false); break;         // hostile: no wait for the cube's product
    case 2: VectorPart(ws, z, FLAG_PRODUCT, 1.0f, true); break;    // hostile: a vector core writes L1
    case 3: VectorPart(ws, z, FLAG_PRODUCT, 1.0f, false); break;   // hostile: the cube core never sets the flag
    case 4: VectorPart(ws, z, FLAG_PRODUCT, 2.0f, false); break;   // wrong: adds 2
    default: break;
    }
}
