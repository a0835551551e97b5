// CPU-twin test kernel for LoadDataWithTranspose on int8 (issue 28: Catlass int8 kernels load B so).
// x: int8 [RA x KD] row-major, w: int8 [KD x ND] row-major, z: int32 [RA x ND] = x @ w. B goes GM -> L1 (zN,
// 32-byte columns of n) -> L0B through the transposing load, one call per 32-wide column block of n: each
// iteration turns a 32 (k) x 32 (n) square into the two 16 (n) x 32 (k) fractals the cube unit reads.
// Key 1: the placement CANN documents (dstGap = 3: the next k square's fractals lie a row of 4 fractals on).
// Key 2: a wrong placement (dstGap = 1), which a twin that moved nothing or ignored dstGap would not tell apart.
// Keys 3-7: the float form (two 16 x 8 fractals side by side per 16 x 16 square), see CaseFloatMatmul.
#include "kernel_operator.h"

using namespace AscendC;

// After the transposing loads: z [m x n] (row-major in GM) = the L0A operand @ the L0B one.
template <typename C, typename A, typename B>
static void MmadToGm(const LocalTensor<C> &c, const LocalTensor<A> &a2, const LocalTensor<B> &b2, uint32_t m,
                     uint32_t n, uint32_t k, GM_ADDR gz)
{
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.cmatrixInitVal = true;
    Mmad(c, a2, b2, p);
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    GlobalTensor<C> z;
    z.SetGlobalBuffer((__gm__ C *)gz, m * n);
    FixpipeParamsV220 f;
    f.nSize = n;
    f.mSize = m;
    f.srcStride = m;
    f.dstStride = n;
    Fixpipe<C, C, CFG_ROW_MAJOR>(z, c, f);
}

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
    MmadToGm(c, a2, b2, RA, ND, KD, gz);
}

// float: x [FM x FK] row-major, w [FK x FN] row-major, z float [FM x FN] = x @ w. B goes GM -> L1 as zZ (16 (k) x 8 (n)
// fractals, consecutive along n; a row of them per 16 k) -> L0B through the transposing load, one call per 16 k: each
// iteration turns the 16 (k) x 16 (n) square of two neighbouring fractals into L0B's 16 (n) x 8 (k) fractals of k
// 0-7 and 8-15, the second a row of FN / 16 fractals after the first (dstFracGap = FN / 16 - 1).
// Key 3: that placement. Key 4: hostile, dstFracGap 0 (the k 8-15 fractal lands on the next n block's).
// Key 5: hostile, w handed over already laid out for the other joining (the square's 1024 B read as a row-major
// 16 x 16, split into its first and second 512 B): a product right only for a twin that joins that way.
// Key 6: hostile, a square past L1's end. Key 7: hostile, a fractal past L0B's end.
constexpr uint32_t FM = 16, FK = 32, FN = 48;
static void CaseFloatMatmul(GM_ADDR gx, GM_ADDR gw, GM_ADDR gz, uint32_t key)
{
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l1, (FM * FK + FK * FN) * 4);
    pipe.InitBuffer(l0a, FM * FK * 4);
    pipe.InitBuffer(l0b, key == 7 ? 64 * 1024 : FK * FN * 4);
    pipe.InitBuffer(l0c, FM * FN * 4);
    GlobalTensor<float> x, w;
    x.SetGlobalBuffer((__gm__ float *)gx, FM * FK);
    w.SetGlobalBuffer((__gm__ float *)gw, FK * FN);
    LocalTensor<float> a1 = l1.Get<float>(), b1 = a1[FM * FK];
    LocalTensor<float> a2 = l0a.Get<float>(), b2 = l0b.Get<float>();
    LocalTensor<float> c = l0c.Get<float>();
    Nd2NzParams nz;
    nz.ndNum = 1;
    nz.nValue = FM;
    nz.dValue = FK;
    nz.srcDValue = FK;
    nz.dstNzC0Stride = FM;
    nz.dstNzNStride = 1;
    DataCopy(a1, x, nz);
    if (key == 5) {
        DataCopy(b1, w, FK * FN);
    } else {
        nz.ndNum = FK / 16;  // one 16-row slab of w per row of fractals
        nz.nValue = 16;
        nz.dValue = FN;
        nz.srcNdMatrixStride = 16 * FN;
        nz.srcDValue = FN;
        nz.dstNzC0Stride = 16;
        nz.dstNzMatrixStride = 16 * FN;
        DataCopy(b1, w, nz);
    }
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LoadData2DParams pa;
    pa.repeatTimes = FK / 8;
    pa.srcStride = 1;
    LoadData(a2, a1, pa);  // 16 rows: L1's zN is already L0A's zZ
    LoadData2dTransposeParams pb;
    pb.repeatTimes = FN / 16;  // the n squares of one row of fractals
    pb.srcStride = 1;
    pb.dstFracGap = key == 4 ? 0 : FN / 16 - 1;
    if (key == 6) {
        pb.startIndex = 512;  // 512 squares of 1 KB: L1's whole 512 KB on from b1
        LoadDataWithTranspose(b2, b1, pb);  // TAG_SQUARE_PAST_L1
        return;
    }
    if (key == 7) {
        pb.repeatTimes = 1;
        LoadDataWithTranspose(b2[(64 * 1024 - 512) / 4], b1, pb);  // TAG_FRACTAL_PAST_L0B
        return;
    }
    for (uint32_t i = 0; i < FK / 16; ++i) LoadDataWithTranspose(b2[i * 2 * FN * 8], b1[i * 16 * FN], pb);
    MmadToGm(c, a2, b2, FM, FN, FK, gz);
}

extern "C" __global__ __aicore__ void transpose_load_cases(GM_ADDR x, GM_ADDR w, GM_ADDR z, GM_ADDR, GM_ADDR)
{
    if (TILING_KEY_IS(1)) CaseInt8Matmul(x, w, z, 3);
    else if (TILING_KEY_IS(2)) CaseInt8Matmul(x, w, z, 1);
    else if (TILING_KEY_IS(3)) CaseFloatMatmul(x, w, z, 3);
    else if (TILING_KEY_IS(4)) CaseFloatMatmul(x, w, z, 4);
    else if (TILING_KEY_IS(5)) CaseFloatMatmul(x, w, z, 5);
    else if (TILING_KEY_IS(6)) CaseFloatMatmul(x, w, z, 6);
    else if (TILING_KEY_IS(7)) CaseFloatMatmul(x, w, z, 7);
}
