// CPU-twin test kernel for LoadDataWithTranspose on int8 (issue 28: Catlass int8 kernels load B so).
// x: int8 [RA x KD] row-major, w: int8 [KD x ND] row-major, z: int32 [RA x ND] = x @ w. B goes GM -> L1 (zN,
// 32-byte columns of n) -> L0B through the transposing load, one call per 32-wide column block of n: each
// iteration turns a 32 (k) x 32 (n) square into the two 16 (n) x 32 (k) fractals the cube unit reads.
// Key 1: the placement CANN documents (dstGap = 3: the next k square's fractals lie a row of 4 fractals on).
// Key 2: a wrong placement (dstGap = 1), which a twin that moved nothing or ignored dstGap would not tell apart.
#include "kernel_operator.h"

using namespace AscendC;
constexpr uint32_t RA = 16, KD = 64, ND = 64;

static void CaseInt8Matmul(GM_ADDR gx, GM_ADDR gw, GM_ADDR gz, uint16_t gap)
{
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l1, RA * KD + KD * ND);
    pipe.InitBuffer(l0a, RA * KD);
    pipe.InitBuffer(l0b, KD * ND);
    pipe.InitBuffer(l0c, RA * ND * 4);
    GlobalTensor<int8_t> x, w;
    x.SetGlobalBuffer((__gm__ int8_t *)gx, RA * KD);
    w.SetGlobalBuffer((__gm__ int8_t *)gw, KD * ND);
    LocalTensor<int8_t> a1 = l1.Get<int8_t>(), b1 = a1[RA * KD];
    LocalTensor<int8_t> a2 = l0a.Get<int8_t>(), b2 = l0b.Get<int8_t>();
    LocalTensor<int32_t> c = l0c.Get<int32_t>();
    Nd2NzParams nz;
    nz.ndNum = 1;
    nz.nValue = RA;
    nz.dValue = KD;
    nz.srcDValue = KD;
    nz.dstNzC0Stride = RA;
    nz.dstNzNStride = 1;
    DataCopy(a1, x, nz);
    nz.nValue = KD;
    nz.dValue = ND;
    nz.srcDValue = ND;
    nz.dstNzC0Stride = KD;
    DataCopy(b1, w, nz);
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LoadData2DParams pa;
    pa.repeatTimes = KD / 32;
    pa.srcStride = 1;
    LoadData(a2, a1, pa);  // 16 rows: L1's zN is already L0A's zZ
    LoadData2dTransposeParams pb;
    pb.repeatTimes = KD / 32;  // the k squares of one column block
    pb.srcStride = 1;
    pb.dstGap = gap;
    pb.dstFracGap = 0;
    for (uint32_t cb = 0; cb < ND / 32; ++cb) LoadDataWithTranspose(b2[cb * 2 * 512], b1[cb * KD * 32], pb);
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams p;
    p.m = RA;
    p.n = ND;
    p.k = KD;
    p.cmatrixInitVal = true;
    Mmad(c, a2, b2, p);
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    GlobalTensor<int32_t> z;
    z.SetGlobalBuffer((__gm__ int32_t *)gz, RA * ND);
    FixpipeParamsV220 f;
    f.nSize = ND;
    f.mSize = RA;
    f.srcStride = RA;
    f.dstStride = ND;
    Fixpipe<int32_t, int32_t, CFG_ROW_MAJOR>(z, c, f);
}

extern "C" __global__ __aicore__ void transpose_load_cases(GM_ADDR x, GM_ADDR w, GM_ADDR z, GM_ADDR, GM_ADDR)
{
    if (TILING_KEY_IS(1)) CaseInt8Matmul(x, w, z, 3);
    else if (TILING_KEY_IS(2)) CaseInt8Matmul(x, w, z, 1);
}
