// CPU-twin cube-core test kernel: one case per tiling key. x: half[M x K] row-major, y: half[K x N] row-major,
// z: the output (float or half, M x N row-major). Built twice: for the cube core (-DASCENDOPT_TWIN_CUBE) and, to
// show that a vector core cannot reach L1/L0, without it.
#include "kernel_operator.h"

using namespace AscendC;
constexpr uint32_t M = 20, K = 32, N = 24;           // the product's shape (M, N not multiples of 16)
constexpr uint32_t MR = 32, KR = 32, NR = 32;        // rounded up to whole fractals
constexpr uint32_t M1 = MR / 16, K1 = KR / 16, N1 = NR / 16;

struct Cube {
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    GlobalTensor<half> x, y;
    LocalTensor<half> a1, b1, a2, b2;
    LocalTensor<float> c;
    Cube(GM_ADDR gx, GM_ADDR gy, uint32_t l0aBytes = MR * KR * 2)
    {
        x.SetGlobalBuffer((__gm__ half *)gx, M * K);
        y.SetGlobalBuffer((__gm__ half *)gy, K * N);
        pipe.InitBuffer(l1, (MR * KR + KR * NR) * 2);
        pipe.InitBuffer(l0a, l0aBytes);
        pipe.InitBuffer(l0b, KR * NR * 2);
        pipe.InitBuffer(l0c, MR * NR * 4);
        a1 = l1.Get<half>();
        b1 = a1[MR * KR];
        a2 = l0a.Get<half>();
        b2 = l0b.Get<half>();
        c = l0c.Get<float>();
    }
    // GM (ND) -> L1 (zN): A as M rows of K, B as K rows of N; rows padded to whole fractals.
    void ToL1()
    {
        Nd2NzParams p;
        p.ndNum = 1;
        p.nValue = M;
        p.dValue = K;
        p.srcDValue = K;
        p.dstNzC0Stride = MR;
        p.dstNzNStride = 1;
        DataCopy(a1, x, p);
        p.nValue = K;
        p.dValue = N;
        p.srcDValue = N;
        p.dstNzC0Stride = KR;
        DataCopy(b1, y, p);
    }
    // L1 (zN) -> L0A (zZ), one row of fractals per call; L1 (zN) -> L0B (nZ), each fractal transposed.
    void ToL0()
    {
        LoadData2DParams p;
        p.repeatTimes = K1;
        p.srcStride = MR / 16;
        for (uint32_t fm = 0; fm < M1; ++fm) LoadData(a2[fm * K1 * 256], a1[fm * 256], p);
        p.repeatTimes = N1;
        p.srcStride = KR / 16;
        p.ifTranspose = true;
        for (uint32_t fk = 0; fk < K1; ++fk) LoadData(b2[fk * N1 * 256], b1[fk * 256], p);
    }
    void Multiply(uint16_t k = K, bool init = true, uint8_t unitFlag = 0)
    {
        MmadParams p;
        p.m = M;
        p.n = N;
        p.k = k;
        p.cmatrixInitVal = init;
        p.unitFlag = unitFlag;
        Mmad(c, a2, b2, p);
    }
    template <typename T> void Out(GM_ADDR gz, QuantMode_t quant, uint8_t unitFlag = 0)
    {
        GlobalTensor<T> z;
        z.SetGlobalBuffer((__gm__ T *)gz, M * N);
        FixpipeParamsV220 p;
        p.nSize = N;
        p.mSize = M;
        p.srcStride = MR;
        p.dstStride = N;
        p.quantPre = quant;
        p.unitFlag = unitFlag;
        Fixpipe<T, float, CFG_ROW_MAJOR>(z, c, p);
    }
};

// 1: z = x @ y (float), every hand-over synchronised.
static void CaseMatmul(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
{
    Cube q(gx, gy);
    q.ToL1();
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    q.ToL0();
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    q.Multiply();
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    q.Out<float>(gz, QuantMode_t::NoQuant);
}
// 2: z = half(x @ y) accumulated over two k halves (the second Mmad adds to L0C), handed to the Fixpipe by unit
// flags (0b10, then 0b11) instead of M_FIX.
static void CaseAccumulateHalf(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
{
    Cube q(gx, gy);
    TBuf<TPosition::A2> a2b;
    q.pipe.InitBuffer(a2b, MR * 16 * 2);
    LocalTensor<half> a2h = a2b.Get<half>();
    q.ToL1();
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    q.ToL0();
    // A[:, 16:] is L1's second fractal column (zN: its M1 fractals one after another), loaded as a k = 16 zZ operand
    LoadData2DParams l;
    l.repeatTimes = M1;
    l.srcStride = 1;
    LoadData(a2h, q.a1[MR * 16], l);
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams p;
    p.m = M;
    p.n = N;
    p.k = 16;
    p.unitFlag = 0b10;
    Mmad(q.c, a2h, q.b2[N1 * 256], p);  // A[:, 16:] @ B[16:, :] (L0B's second fractal row)
    p.cmatrixInitVal = false;
    p.unitFlag = 0b11;
    LocalTensor<half> first = q.a1;  // A[:, :16]: L1's first fractal column, loaded likewise
    SetFlag<HardEvent::M_MTE1>(0);
    WaitFlag<HardEvent::M_MTE1>(0);
    LoadData(a2h, first, l);
    SetFlag<HardEvent::MTE1_M>(1);
    WaitFlag<HardEvent::MTE1_M>(1);
    Mmad(q.c, a2h, q.b2, p);  // + A[:, :16] @ B[:16, :]
    q.Out<half>(gz, QuantMode_t::F322F16, 0b11);
}
// 3: hostile: the Fixpipe reads L0C with no M -> FIX hand-over after the Mmad.
static void CaseNoMFix(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
{
    Cube q(gx, gy);
    q.ToL1();
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    q.ToL0();
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    q.Multiply();
    q.Out<float>(gz, QuantMode_t::NoQuant);  // TAG_NO_M_FIX
}
// 4: hostile: LoadData reads L1 with no MTE2 -> MTE1 hand-over after the GM copy.
static void CaseNoMte2Mte1(GM_ADDR gx, GM_ADDR gy, GM_ADDR)
{
    Cube q(gx, gy);
    q.ToL1();
    q.ToL0();
}
// 5: hostile: a Mmad whose A operand (m = k = 256 halves, 128 KB) runs past L0A's 64 KB.
static void CaseMmadPastL0A(GM_ADDR gx, GM_ADDR gy, GM_ADDR)
{
    Cube q(gx, gy, 64 * 1024);
    MmadParams p;
    p.m = 256;
    p.n = 16;
    p.k = 256;
    Mmad(q.c, q.a2, q.b2, p);  // TAG_PAST_L0A
}
// 6: hostile: a Fixpipe waiting on a unit flag that no Mmad set.
static void CaseUnitFlagNeverSet(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
{
    Cube q(gx, gy);
    q.Out<float>(gz, QuantMode_t::NoQuant, 0b11);
}
// 7: hostile: the cube core reaching for the UB.
static void CaseUbOnCube(GM_ADDR gx, GM_ADDR gy, GM_ADDR)
{
    Cube q(gx, gy);
    TBuf<TPosition::VECCALC> ub;
    q.pipe.InitBuffer(ub, 1024);
    LocalTensor<half> t = ub.Get<half>();
    DataCopy(t, q.x, 256);  // TAG_UB_ON_CUBE
}

// 8 (9): z = x @ y + bias, the bias being y's first 32 halves (widened to float in the bias table), Mmad twice; between
// the two the bias table is loaded again with no M -> MTE1 hand-over: the same bytes (8, no hazard) or others (9).
static void CaseBias(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz, bool other)
{
    Cube q(gx, gy);
    TBuf<TPosition::C1> l1bias;
    TBuf<TPosition::C2> bt;
    q.pipe.InitBuffer(l1bias, 128);
    q.pipe.InitBuffer(bt, 1024);
    LocalTensor<half> b1 = l1bias.Get<half>();
    LocalTensor<float> table = bt.Get<float>();
    q.ToL1();
    DataCopy(b1, q.y, DataCopyParams(1, 4, 0, 0));  // 64 halves: the bias, then 32 others
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    q.ToL0();
    DataCopy(table, b1, DataCopyParams(1, 1, 0, 0));
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams p;
    p.m = M;
    p.n = N;
    p.k = K;
    Mmad(q.c, q.a2, q.b2, table, p);
    DataCopy(table, other ? b1[32] : b1, DataCopyParams(1, 1, 0, 0));  // TAG_BIAS_RELOAD
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    Mmad(q.c, q.a2, q.b2, table, p);
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    q.Out<float>(gz, QuantMode_t::NoQuant);
}

extern "C" __global__ __aicore__ void cube_cases(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR, GM_ADDR)
{
    if (TILING_KEY_IS(1)) CaseMatmul(x, y, z);
    else if (TILING_KEY_IS(2)) CaseAccumulateHalf(x, y, z);
    else if (TILING_KEY_IS(3)) CaseNoMFix(x, y, z);
    else if (TILING_KEY_IS(4)) CaseNoMte2Mte1(x, y, z);
    else if (TILING_KEY_IS(5)) CaseMmadPastL0A(x, y, z);
    else if (TILING_KEY_IS(6)) CaseUnitFlagNeverSet(x, y, z);
    else if (TILING_KEY_IS(7)) CaseUbOnCube(x, y, z);
    else if (TILING_KEY_IS(8)) CaseBias(x, y, z, false);
    else if (TILING_KEY_IS(9)) CaseBias(x, y, z, true);
}
