// CPU-twin test kernels: one kernel, one case per tiling key (manifest `tiling_key N`, `block_dim B`, no op_type).
// Args: x (float32[N]), y (float32[N]), z (float32[N]), workspace, tiling. N = 1024.
#include "kernel_operator.h"

using namespace AscendC;
constexpr uint32_t N = 1024;

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2, b3;
    GlobalTensor<float> x, y, z;
    Ctx(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
    {
        x.SetGlobalBuffer((__gm__ float *)gx, N);
        y.SetGlobalBuffer((__gm__ float *)gy, N);
        z.SetGlobalBuffer((__gm__ float *)gz, N);
        pipe.InitBuffer(b0, N * 4);
        pipe.InitBuffer(b1, N * 4);
        pipe.InitBuffer(b2, N * 4);
        pipe.InitBuffer(b3, N * 4);
    }
    // GM -> UB with proper MTE2 -> V sync.
    void In(LocalTensor<float> &t, GlobalTensor<float> &g, uint32_t n)
    {
        DataCopy(t, g, n);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
    }
    // UB -> GM with proper V -> MTE3 sync.
    template <typename T> void Out(GlobalTensor<T> &g, LocalTensor<T> &t, uint32_t n)
    {
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(g, t, n);
    }
};

// 1: Cast float -> half with the 6 round modes, 64 values each: z (as half[]) [mode*64 + i].
static void CaseCastF16(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<half> h = c.b1.Get<half>();
    RoundMode modes[6] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
    for (int m = 0; m < 6; ++m) Cast(h[m * 64], xf, modes[m], 64);
    GlobalTensor<half> zh;
    zh.SetGlobalBuffer((__gm__ half *)c.z.GetPhyAddr(), 2 * N);
    c.Out(zh, h, 6 * 64);
}
// 2: Cast float -> int32 with the 5 round modes.
static void CaseCastI32(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<int32_t> r = c.b1.Get<int32_t>();
    RoundMode modes[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    for (int m = 0; m < 5; ++m) Cast(r[m * 64], xf, modes[m], 64);
    GlobalTensor<int32_t> zi;
    zi.SetGlobalBuffer((__gm__ int32_t *)c.z.GetPhyAddr(), N);
    c.Out(zi, r, 5 * 64);
}
// 3: Cast float -> bf16 (5 modes) and float -> float (5 modes): z as uint16 bf16[0..320), then float from element 256.
static void CaseCastBf16F32(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<bfloat16_t> r = c.b1.Get<bfloat16_t>();
    LocalTensor<float> ff = c.b2.Get<float>();
    RoundMode modes[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    for (int m = 0; m < 5; ++m) Cast(r[m * 64], xf, modes[m], 64);
    for (int m = 0; m < 5; ++m) Cast(ff[m * 64], xf, modes[m], 64);
    GlobalTensor<bfloat16_t> zb;
    zb.SetGlobalBuffer((__gm__ bfloat16_t *)c.z.GetPhyAddr(), 2 * N);
    c.Out(zb, r, 5 * 64);
    GlobalTensor<float> z2 = c.z[256];
    c.Out(z2, ff, 5 * 64);
}
// 4: reductions on x[0..256): z[0] ReduceSum, z[1] ReduceMax, z[2] index of max (as float), z[8..12) WholeReduceSum of 4 repeats of 64.
static void CaseReduce(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 256);
    LocalTensor<float> o = c.b1.Get<float>();
    LocalTensor<float> tmp = c.b2.Get<float>();
    LocalTensor<float> w = c.b3.Get<float>();
    Duplicate(o, 0.0f, 64);
    ReduceSum(o, xf, tmp, 256);
    ReduceMax(w, xf, tmp, 256, true);
    WholeReduceSum(o[8], xf, 64, 4, 1, 1, 8);
    SetFlag<HardEvent::V_S>(0);
    WaitFlag<HardEvent::V_S>(0);
    float mx = w.GetValue(0);
    uint32_t idxBits = w.ReinterpretCast<uint32_t>().GetValue(1);
    o.SetValue(1, mx);
    o.SetValue(2, static_cast<float>(idxBits));
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    DataCopy(c.z, o, 64);
}
// 5: Compare(LT) + Select(tensor-tensor) = elementwise min over 256 floats; LeakyRelu(0.1) of x into z[256..512); Duplicate 3.5 into z[512..576).
static void CaseCmpSel(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    LocalTensor<float> yf = c.b1.Get<float>();
    c.In(xf, c.x, 256);
    c.In(yf, c.y, 256);
    LocalTensor<uint8_t> m = c.b2.Get<uint8_t>();
    LocalTensor<float> o = c.b3.Get<float>();
    Compare(m, xf, yf, CMPMODE::LT, 256);
    Select(o, m, xf, yf, SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);
    LeakyRelu(o[256], xf, 0.1f, 256);
    Duplicate(o[512], 3.5f, 64);
    c.Out(c.z, o, 576);
}
// 6: DataCopyPad GM->UB with padding. Row r (r=0,1) = x[5r..5r+5) (20 B) + rightPadding 3 (value 7) -> 32 B rows;
//    second copy with no padding (dummy = first element). z[0..16) first copy, z[16..32) second copy.
static void CasePad(Ctx &c)
{
    LocalTensor<float> a = c.b0.Get<float>();
    LocalTensor<float> b = c.b1.Get<float>();
    DataCopyExtParams p{2, 5 * sizeof(float), 0, 0, 0};
    DataCopyPadExtParams<float> pad{true, 0, 3, 7.0f};
    DataCopyPad(a, c.x, p, pad);
    DataCopyPadExtParams<float> nopad{false, 0, 0, 0.0f};
    DataCopyPad(b, c.x, p, nopad);
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopy(c.z, a, 16);
    GlobalTensor<float> z2 = c.z[16];
    DataCopy(z2, b, 16);
}
// 7: the classic bug: Add then GetValue with no V->S sync (pipe_hazard at the GetValue line).
static void CaseVtoS(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    LocalTensor<float> yf = c.b1.Get<float>();
    LocalTensor<float> zf = c.b2.Get<float>();
    c.In(xf, c.x, 64);
    c.In(yf, c.y, 64);
    Add(zf, xf, yf, 64);
    float v = zf.GetValue(0);  // LINE_VTOS
    zf.SetValue(1, v);
    c.Out(c.z, zf, 64);
}
// 8: missing MTE2 -> V sync (no queue, no flag): DataCopy then Add directly.
static void CaseMte2V(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    LocalTensor<float> zf = c.b2.Get<float>();
    DataCopy(xf, c.x, 64);
    Add(zf, xf, xf, 64);  // LINE_MTE2V
    c.Out(c.z, zf, 64);
}
// 9: DeQue on an empty queue (fatal, block stops).
static void CaseDequeEmpty(Ctx &c)
{
    (void)c;
    TPipe p2;
    TQue<TPosition::VECIN, 1> q;
    p2.InitBuffer(q, 1, 256);
    LocalTensor<float> t = q.DeQue<float>();  // LINE_DEQUE
    (void)t;
}
// 10: a buffer placed past the UB's end that nothing touches: the NPU's InitBuffer does not check the size, so
// this runs (a warning); the kernel's real work goes on: z = 2.
static void CaseUbOverflow(Ctx &c)
{
    TBuf<TPosition::VECCALC> big;
    c.pipe.InitBuffer(big, 192 * 1024);  // LINE_UBOVF
    LocalTensor<float> t = c.b0.Get<float>();
    Duplicate(t, 2.0f, N);
    c.Out(c.z, t, N);
}
// 34: a buffer wholly past the UB's end, touched: the access leaves the UB (fatal, said at the InitBuffer that
// placed it).
static void CaseUbOverflowTouched(Ctx &c)
{
    TBuf<TPosition::VECCALC> fill, past;
    c.pipe.InitBuffer(fill, 176 * 1024);  // the UB is full: [16 KiB, 192 KiB)
    c.pipe.InitBuffer(past, 1024);  // LINE_UBOVF2
    LocalTensor<float> t = past.Get<float>();
    Duplicate(t, 1.0f, 64);  // LINE_UBTOUCH
}
// 35: a buffer straddling the UB's end: its first part, inside the UB, is used freely; an access reaching past the
// end stops the block.
static void CaseUbOverflowStraddle(Ctx &c)
{
    TBuf<TPosition::VECCALC> s;
    c.pipe.InitBuffer(s, 180 * 1024);  // LINE_UBSTRADDLE  [16 KiB, 196 KiB): 4 KiB past the end
    LocalTensor<float> t = s.Get<float>();
    Duplicate(t, 3.0f, 64);
    c.Out(c.z, t, 64);
    Duplicate(t[(176 * 1024) / 4], 1.0f, 64);  // LINE_UBCROSS: bytes [192 KiB, 192 KiB + 256)
}
// 11: misaligned DataCopy (100 floats = 400 B) + GM out of bounds.
static void CaseMisaligned(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    DataCopy(xf, c.x, 100);         // LINE_MISALIGN
    DataCopy(xf, c.x[1000], 64);    // LINE_GMOOB
}
// 12: two blocks write the same bytes of z without atomics.
static void CaseRace(Ctx &c)
{
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, static_cast<float>(GetBlockIdx()), 64);
    c.Out(c.z, o, 64);  // every block writes z[0..64)
}
// 13: uninitialized UB read, double free, alloc beyond depth.
static void CaseQueueMisuse(Ctx &c)
{
    LocalTensor<float> u = c.b3.Get<float>();
    LocalTensor<float> o = c.b2.Get<float>();
    Add(o, u, u, 64);  // LINE_UNINIT
    TPipe p2;
    TQue<TPosition::VECOUT, 1> q;
    p2.InitBuffer(q, 1, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    q.FreeTensor(t);
    q.FreeTensor(t);  // LINE_DFREE
    LocalTensor<float> t1 = q.AllocTensor<float>();
    LocalTensor<float> t2 = q.AllocTensor<float>();  // LINE_ALLOC2
    (void)t1; (void)t2;
}
// 14: SyncAll: every block writes its slot, SyncAll, then reads the neighbour's slot (no race), z[b*32 + 16] = neighbour value.
static void CaseSyncAll(Ctx &c)
{
    int64_t b = GetBlockIdx(), n = GetBlockNum();
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, static_cast<float>(b + 1), 16);
    GlobalTensor<float> mine = c.z[b * 32];
    c.Out(mine, o, 16);
    SyncAll();
    LocalTensor<float> r = c.b1.Get<float>();
    GlobalTensor<float> other = c.z[((b + 1) % n) * 32];
    DataCopy(r, other, 16);
    SetFlag<HardEvent::MTE2_MTE3>(1);
    WaitFlag<HardEvent::MTE2_MTE3>(1);
    GlobalTensor<float> dst = c.z[b * 32 + 16];
    DataCopy(dst, r, 16);
}
// 15: correct TQue pipeline with double buffering (no finding expected), z = x + y.
static void CaseQueuePipeline(Ctx &c)
{
    (void)c;
    TPipe p2;
    TQue<TPosition::VECIN, 2> qx, qy;
    TQue<TPosition::VECOUT, 2> qz;
    p2.InitBuffer(qx, 2, 256 * 4);
    p2.InitBuffer(qy, 2, 256 * 4);
    p2.InitBuffer(qz, 2, 256 * 4);
    for (uint32_t i = 0; i < N / 256; ++i) {
        LocalTensor<float> a = qx.AllocTensor<float>();
        LocalTensor<float> b = qy.AllocTensor<float>();
        DataCopy(a, c.x[i * 256], 256);
        DataCopy(b, c.y[i * 256], 256);
        qx.EnQue(a);
        qy.EnQue(b);
        LocalTensor<float> a2 = qx.DeQue<float>();
        LocalTensor<float> b2 = qy.DeQue<float>();
        LocalTensor<float> o = qz.AllocTensor<float>();
        Add(o, a2, b2, 256);
        qz.EnQue(o);
        qx.FreeTensor(a2);
        qy.FreeTensor(b2);
        LocalTensor<float> o2 = qz.DeQue<float>();
        DataCopy(c.z[i * 256], o2, 256);
        qz.FreeTensor(o2);
    }
}

// 16: mask register: counter mode (SetMaskCount + SetVectorMask + isSetMask=false), Normal bit mask, Normal continuous
//     mask, and the count form leaving Normal mode with a full mask behind (z layout in the test).
static void CaseMasks(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    LocalTensor<float> yf = c.b1.Get<float>();
    c.In(xf, c.x, 128);
    c.In(yf, c.y, 128);
    LocalTensor<float> o = c.b2.Get<float>();
    Duplicate(o, -1.0f, 384);
    BinaryRepeatParams bp;
    UnaryRepeatParams up;
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 100);
    Add<float, false>(o, xf, yf, MASK_PLACEHOLDER, 1, bp);  // 100 elements, repeatTime ignored
    SetMaskNorm();
    SetVectorMask<float>(0, 0xF);
    Add<float, false>(o[128], xf, yf, MASK_PLACEHOLDER, 2, bp);  // lanes 0..3 of 2 repeats
    SetVectorMask<float>(10);
    Muls<float, false>(o[256], xf, 2.0f, MASK_PLACEHOLDER, 1, up);  // first 10 lanes
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 5);
    Adds(o[320], xf, 1.0f, 64);                                     // count form: ends in Normal mode, full mask
    Adds<float, false>(o[320], xf, 3.0f, MASK_PLACEHOLDER, 1, up);  // all 64 lanes
    ResetMask();
    c.Out(c.z, o, 384);
}
// 17: reductions in counter mode and the block / mask forms: see the test for the z layout.
static void CaseReduce2(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 256);
    LocalTensor<float> o = c.b1.Get<float>();
    LocalTensor<float> tmp = c.b2.Get<float>();
    Duplicate(o, -1.0f, 128);
    SetMaskCount();
    SetVectorMask<float>(0, 150);
    WholeReduceSum<float, false>(o, xf, MASK_PLACEHOLDER, 1, 1, 1, 8);  // o[0..3): sums of x[0..64), x[64..128), x[128..150)
    SetVectorMask<float>(0, 20);
    BlockReduceSum<float, false>(o[8], xf, 1, MASK_PLACEHOLDER, 1, 1, 8);  // o[8..11): sums of 8, 8, 4 elements
    SetMaskNorm();
    ResetMask();
    BlockReduceMax(o[16], xf, 2, 64, 1, 1, 8);     // o[16..32): max of each 8-element block of x[0..128)
    uint64_t half[2] = {0x0F0F0F0F0F0F0F0Full, 0};
    BlockReduceMin(o[32], xf, 1, half, 1, 1, 8);   // o[32..40): min of the first 4 of each block of x[0..64)
    RepeatReduceSum(o[40], xf, 2, 64, 0, 1, 1, 8);  // o[40..42): sums of x[0..64), x[64..128)
    vcadd((__ubuf__ float *)o[44].GetPhyAddr(), (__ubuf__ float *)xf[128].GetPhyAddr(), 1, 1, 1, 8, false);  // o[44]: sum of x[128..192)
    uint64_t m8[2] = {0xFF, 0};
    ReduceMin(o[48], xf, tmp, m8, 1, 8, true);     // o[48] min of x[0..8), o[49] its index (uint32 bits)
    ReduceMin(o[50], xf, tmp, 64, 2, 8, false);    // o[50] min of x[0..128)
    WholeReduceMax(o[56], xf, 64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);  // o[56..60): max, idx per repeat
    WholeReduceMin(o[64], xf, 64, 2, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);  // o[64..68): idx, min per repeat
    c.Out(c.z, o, 128);
}
// 18: vector / advanced APIs on x[0..64), y[0..64): see the test for the z layout.
static void CaseNewVec(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    LocalTensor<float> yf = c.b1.Get<float>();
    c.In(xf, c.x, 64);
    c.In(yf, c.y, 64);
    LocalTensor<float> o = c.b2.Get<float>();
    Sigmoid(o, xf, 64);
    Silu(o[64], xf, 64);
    Swish(o[128], xf, 64, 1.5f);
    Gelu(o[192], xf, 64);
    FasterGelu(o[256], xf, 64);
    Tanh(o[320], xf, 64);
    Log(o[384], yf, 64);
    ClampMax(o[448], xf, 0.5f, 64);
    ClampMin(o[512], xf, -0.5f, 64);
    Subs(o[576], xf, 2.0f, 64);
    Divs(o[640], xf, 4.0f, 64);
    DataCopy(o[704], yf, 64);
    PipeBarrier<PIPE_V>();
    Axpy(o[704], xf, 2.0f, 64);                          // y + 2x
    LocalTensor<uint8_t> bits = o[768].ReinterpretCast<uint8_t>();
    Duplicate(o[768], 0.0f, 64);
    CompareScalar(bits, xf, 0.0f, CMPMODE::GT, 64);      // 8 bytes of x > 0 bits
    Copy(o[832], xf, 64, 1, {1, 1, 8, 8});
    Brcb(o[896], xf, 1, {1, 8});                         // x[0..8) each broadcast over 8 lanes
    c.Out(c.z, o, 960);
}
// 19: Transpose of a 16 x 16 half matrix: z[j*16+i] = x[i*16+j].
static void CaseTranspose(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 256);
    LocalTensor<half> h = c.b1.Get<half>();
    LocalTensor<half> t = c.b2.Get<half>();
    LocalTensor<float> o = c.b3.Get<float>();
    Cast(h, xf, RoundMode::CAST_NONE, 256);
    Transpose(t, h);
    Cast(o, t, RoundMode::CAST_NONE, 256);
    c.Out(c.z, o, 256);
}
// 20: Fill / InitGlobalMemory on GM and GetSystemCycle: z[0..64) = 2.5, z[64..128) = 7, z[128] = cycles between.
static void CaseFillCycle(Ctx &c)
{
    int64_t t0 = GetSystemCycle();
    Fill<float>(c.z, 64, 2.5f);
    GlobalTensor<float> z2 = c.z[64];
    InitGlobalMemory(z2, 64, 7.0f);
    int64_t t1 = GetSystemCycle();
    c.z.SetValue(128, static_cast<float>(t1 - t0));
}
// 21: tail read past the end of x, like SubCustom's last block: 16 floats from x[1016] (32 B inside the padding).
static void CaseTailRead(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    GlobalTensor<float> tail;
    tail.SetGlobalBuffer((__gm__ float *)c.x.GetPhyAddr(1016));
    DataCopy(xf, tail, 16);  // LINE_TAILREAD
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopy(c.z, xf, 16);
}
// 22: write past the end of z: 16 floats to z[1016] (inside the padding) and 64 floats to z[1000] (beyond it).
static void CaseTailWrite(Ctx &c)
{
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, 5.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    GlobalTensor<float> tail;
    tail.SetGlobalBuffer((__gm__ float *)c.z.GetPhyAddr(1016));
    DataCopy(tail, o, 16);  // LINE_TAILWRITE
    GlobalTensor<float> far;
    far.SetGlobalBuffer((__gm__ float *)c.z.GetPhyAddr(1000));
    DataCopy(far, o, 64);  // LINE_FARWRITE
}

// 23: GatherMask, values from the docs' bit rule (bit i of the pattern keeps element i, kept elements packed):
// z[0..4) user pattern (uint32 bits 1, 3, 40, 63 of one 64-float repeat); z[64..128) built-in pattern 1 (even
// indices) over 2 repeats; z[128..136) counter mode with mask 10 and bits 2..9; z[192..195) the three rsvdCnt.
static void CaseGatherMask(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 128);
    LocalTensor<uint32_t> pat = c.b1.Get<uint32_t>(16);
    Duplicate<uint32_t>(pat, 0u, 16);
    PipeBarrier<PIPE_V>();
    SetFlag<HardEvent::V_S>(0);
    WaitFlag<HardEvent::V_S>(0);
    pat.SetValue(0, (1u << 1) | (1u << 3));
    pat.SetValue(1, (1u << 8) | (1u << 31));
    pat.SetValue(8, 0x3FCu);  // bits 2..9
    SetFlag<HardEvent::S_V>(0);
    WaitFlag<HardEvent::S_V>(0);
    LocalTensor<float> o = c.b2.Get<float>();
    Duplicate(o, -1.0f, 256);
    PipeBarrier<PIPE_V>();
    uint64_t n1 = 0, n2 = 0, n3 = 0;
    GatherMask(o, xf, pat, false, 0, {1, 1, 8, 0}, n1);
    GatherMask(o[64], xf, static_cast<uint8_t>(1), false, 0, {1, 2, 8, 0}, n2);
    GatherMask(o[128], xf, pat[8], true, 10, {1, 1, 8, 8}, n3);
    PipeBarrier<PIPE_V>();
    SetFlag<HardEvent::V_S>(1);
    WaitFlag<HardEvent::V_S>(1);
    o.SetValue(192, static_cast<float>(n1));
    o.SetValue(193, static_cast<float>(n2));
    o.SetValue(194, static_cast<float>(n3));
    c.b1.FreeTensor(pat);  // TBuf::FreeTensor: accepted, nothing to give back
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    c.Out(c.z, o, 200);
}

// 24: unaligned MTE3 copies like the unaligned-abs samples' tails: z[4..12) then z[12..20) share a 32 B granule of
// GM but no byte (no hazard); z[16..24) then overwrites z[16..20) with no barrier (a WAW hazard on MTE3).
static void CaseGmGranule(Ctx &c)
{
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, 3.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    GlobalTensor<float> a = c.z[4], b = c.z[12], d = c.z[16];
    DataCopy(a, o, 8);
    DataCopy(b, o, 8);  // LINE_GRANULE_SHARED
    DataCopy(d, o, 8);  // LINE_GRANULE_OVERLAP
}

// 25: BroadCast (the docs' example and both axes): z[0..32) [[x0], [x1]] -> [2, 16] along axis 1;
// z[32..56) [x0..x8) as [1, 8] -> [3, 8] along axis 0; z[64..69) 1-D {x0} -> {5}; then a 2-D axis-1 call with a
// 32 B sharedTmpBuffer where GetBroadCastMaxMinTmpSize's minimum for [9, 1] -> [9, 8] is 512 B (reported there).
static void CaseBroadCast(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<float> o = c.b1.Get<float>();
    Duplicate(o, -1.0f, 128);
    PipeBarrier<PIPE_V>();
    LocalTensor<float> d0 = o, d1 = o[32], d2 = o[64], d3 = c.b2.Get<float>();
    const uint32_t s0[] = {2, 1}, t0[] = {2, 16};
    BroadCast<float, 2, 1>(d0, xf, t0, s0);
    const uint32_t s1[] = {1, 8}, t1[] = {3, 8};
    BroadCast<float, 2, 0>(d1, xf, t1, s1);
    const uint32_t s2[] = {1}, t2[] = {5};
    BroadCast<float, 1, 0>(d2, xf, t2, s2);
    LocalTensor<uint8_t> tmp = c.b3.Get<uint8_t>(32);
    const uint32_t s3[] = {9, 1}, t3[] = {9, 8};
    BroadCast<float, 2, 1>(d3, xf, t3, s3, tmp);  // LINE_BRC_TMP
    c.Out(c.z, o, 128);
}

// 26: Gather, the docs' pseudo-code dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)] (offsets in bytes):
// z[0..64) count form reversing x[0..64); z[64..72) with srcBaseAddr 16 B (offsets 0, 4, ..: x[4..12));
// z[128..192) mask form, mask 8 of 64 lanes, 2 repeats, dstRepStride 4 blocks, repeat r's offsets at off[8 + 64r]:
// z[128+32r+k] = x[55-k] for k < 8, the rest untouched (-1); z[256..320) in place: rows of 8 each broadcast their first element (reported, a warning).
static void CaseGather(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<uint32_t> off = c.b1.Get<uint32_t>();
    for (uint32_t i = 0; i < 128; ++i) off.SetValue(i, (63u - (i % 64u)) * 4u);
    for (uint32_t i = 0; i < 8; ++i) off.SetValue(128 + i, i * 4u);
    for (uint32_t i = 0; i < 64; ++i) off.SetValue(256 + i, (i / 8u) * 32u);
    SetFlag<HardEvent::S_V>(0);
    WaitFlag<HardEvent::S_V>(0);
    LocalTensor<float> o = c.b2.Get<float>();
    Duplicate(o, -1.0f, 320);
    PipeBarrier<PIPE_V>();
    Gather(o, xf, off, 0u, 64u);
    Gather(o[64], xf, off[128], 16u, 8u);
    Gather(o[128], xf, off[8], 0u, 8ull, 2, 4);
    Copy(o[256], xf, 64, 1, {1, 1, 8, 8});
    PipeBarrier<PIPE_V>();
    Gather(o[256], o[256], off[256], 0u, 64u);  // LINE_GATHER_INPLACE
    c.Out(c.z, o, 320);
}
// 27: SetDeqScale(half) + Cast int32 -> half (s322f16: dst = src * scale, the round mode has no effect), the docs'
// example with scale 2.0 and 0.5: z (as half[]) [0..64) = 2 * x, [64..128) = x / 2 (x holds small integers).
static void CaseDeqScale(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<int32_t> xi = c.b1.Get<int32_t>();
    Cast(xi, xf, RoundMode::CAST_RINT, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<half> h = c.b2.Get<half>();
    SetDeqScale(static_cast<half>(2.0f));
    Cast(h, xi, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_V>();
    SetDeqScale(static_cast<half>(0.5f));
    Cast(h[64], xi, RoundMode::CAST_TRUNC, 64);
    GlobalTensor<half> zh;
    zh.SetGlobalBuffer((__gm__ half *)c.z.GetPhyAddr(), 2 * N);
    c.Out(zh, h, 128);
}
// 28: Cast int32 -> half with no SetDeqScale in this block (DEQSCALE undefined: an error).
static void CaseDeqUnset(Ctx &c)
{
    LocalTensor<int32_t> xi = c.b1.Get<int32_t>();
    Duplicate(xi, 3, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<half> h = c.b2.Get<half>();
    Cast(h, xi, RoundMode::CAST_NONE, 64);  // LINE_DEQ_UNSET
}
// 29: the buffer-handle DeQue() (no element type): it waits for the producer like DeQue<T>(), so the enqueued tensor
// is read after MTE2 without a hazard; z[0..64) = x + 1.
static void CaseDequeHandle(Ctx &c)
{
    TQue<QuePosition::VECIN, 1> q;
    c.pipe.InitBuffer(q, 1, 64 * 4);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, c.x, 64);
    q.EnQue(t);
    TBufHandle h = q.DeQue();
    (void)h;
    LocalTensor<float> o = c.b2.Get<float>();
    Adds(o, t, 1.0f, 64);
    q.FreeTensor(t);
    c.Out(c.z, o, 64);
}
// 32: ShiftLeft / ShiftRight / Not at 16 bits on the docs' example 0b1010101010101010: uint16 shifts are logical, int16
// ones arithmetic (a left shift keeps the sign bit, a right shift copies it). z as uint16[]: 16 each of u<<1, u>>1,
// s<<1, s<<3, s>>1, s>>3, then u>>1 through the counter-mask form with roundEn (the last bit out rounds), ~u.
static void CaseShifts(Ctx &c)
{
    LocalTensor<uint16_t> u = c.b0.Get<uint16_t>();
    LocalTensor<int16_t> s = c.b1.Get<int16_t>();
    Duplicate(u, static_cast<uint16_t>(0xAAAB), 16);
    Duplicate(s, static_cast<int16_t>(0xAAAA), 16);
    PipeBarrier<PIPE_V>();
    LocalTensor<uint16_t> o = c.b2.Get<uint16_t>();
    LocalTensor<int16_t> os = o.ReinterpretCast<int16_t>();
    ShiftLeft(o, u, static_cast<uint16_t>(1), 16);
    ShiftRight(o[16], u, static_cast<uint16_t>(1), 16);
    ShiftLeft(os[32], s, static_cast<int16_t>(1), 16);
    ShiftLeft(os[48], s, static_cast<int16_t>(3), 16);
    ShiftRight(os[64], s, static_cast<int16_t>(1), 16);
    ShiftRight(os[80], s, static_cast<int16_t>(3), 16);
    ShiftRight(o[96], u, static_cast<uint16_t>(1), 16, 1, UnaryRepeatParams{}, true);
    Not(o[112], u, 16);
    GlobalTensor<uint16_t> zu;
    zu.SetGlobalBuffer((__gm__ uint16_t *)c.z.GetPhyAddr(), 2 * N);
    c.Out(zu, o, 128);
}
// 31: a DataCopyParams blockLen assigned 65536 B (16384 floats, as a [16,16,64,64] tile of ops-math's
// add_example sets it) wraps to 0 in its 16 bits: the copy says so on its line. z[0..8) from a 32 B copy
// whose length fits; then a wrapped blockCount in a DataCopyExtParams.
static void CaseWrappedParams(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    DataCopyParams p;
    p.blockCount = 1;
    int64_t n = 16384;
    p.blockLen = n * sizeof(float);
    DataCopyPad(xf, c.x, p, DataCopyPadParams{false, 0, 0, 0});  // LINE_WRAPLEN
    p.blockLen = 8 * sizeof(float);
    DataCopyPad(xf, c.x, p, DataCopyPadParams{false, 0, 0, 0});
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopyPad(c.z, xf, p);
    DataCopyExtParams e{1, 32, 0, 0, 0};
    e.blockCount = 70000;
    DataCopyPad(c.z, xf, e);  // LINE_WRAPCOUNT
}
// 30: Pad / UnPad on float rows (the docs' two Pad cases and an UnPad): z[0..16) a 2 x 8 tile whose 3 redundant
// columns are refilled with 7; z[16..32) 2 x 6 unaligned rows padded 1 left + 1 right to 2 x 8; z[32..42)
// UnPad of a 2 x 8 tile by 1 left + 2 right; then a Pad to 7 columns (28 B, not aligned: reported there).
static void CasePadUnPad(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 64);
    LocalTensor<float> o = c.b1.Get<float>();
    Duplicate(o, -1.0f, 128);
    PipeBarrier<PIPE_V>();
    PadTiling t0;
    t0.srcHeight = 2, t0.srcWidth = 8, t0.srcOriWidth = 5, t0.typeSize = 4;
    PadParams p0 = {0, 3, 7};
    Pad(o, xf, p0, t0);
    PadTiling t1;
    t1.srcHeight = 2, t1.srcWidth = 6, t1.srcOriWidth = 6, t1.typeSize = 4;
    PadParams p1 = {1, 1, 7};
    LocalTensor<float> d1 = o[16];
    Pad(d1, xf, p1, t1);
    UnPadTiling t2;
    t2.srcHeight = 2, t2.srcWidth = 8, t2.typeSize = 4;
    UnPadParams p2;
    p2.leftPad = 1, p2.rightPad = 2;
    LocalTensor<float> d2 = o[32];
    UnPad(d2, xf, p2, t2);
    PadParams p3 = {0, 1, 0};
    LocalTensor<float> d3 = o[64];
    Pad(d3, xf, p3, t1);  // LINE_PAD_BAD
    c.Out(c.z, o, 128);
}

// Case 33: SetSysWorkspace / GetSysWorkSpacePtr, DataCacheCleanAndInvalid (a no-op on the twin) (unset until set, then the workspace it was given), and
// the scalar ToBfloat16 / ToFloat (1 + 2^-8 + 2^-10 rounds up to 1 + 2^-7).
static void CaseSysWorkspace(Ctx &c, GM_ADDR workspace)
{
    c.z.SetValue(0, GetSysWorkSpacePtr() == nullptr ? 1.0f : 0.0f);
    SetSysWorkspace(workspace);
    c.z.SetValue(1, GetSysWorkSpacePtr() == workspace ? 1.0f : 0.0f);
    c.z.SetValue(2, ToFloat(ToBfloat16(1.0f + 1.0f / 256 + 1.0f / 1024)));
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(c.z);  // builds
}

// 36: writes racing an MTE3 read that leave the bytes it reads as they were: no hazard, on either side of the
// write the copy lands. z[0..63] = 0, z[64..71] = 5 (the first element of each 32 B block of u).
static void CaseSameBytesWar(Ctx &c)
{
    LocalTensor<float> t = c.b0.Get<float>();
    Duplicate(t, 0.0f, 64);
    c.Out(c.z, t, 64);
    Duplicate(t, 0.0f, 64);  // LINE_SAMEZERO: zeros over the zeros MTE3 may still read, no MTE3_V flag
    LocalTensor<float> u = c.b1.Get<float>();
    Duplicate(u, 5.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopyPad(c.z[64], u, DataCopyParams{8, 4, 0, 0});  // reads bytes [0, 4) of each 32 B block
    Duplicate(u[1], 6.0f, 7);  // LINE_OTHERBYTES: bytes [4, 32) of block 0, which the copy does not read
    Duplicate(u, 5.0f, 64);  // every block's first element rewritten with itself
}
// 37: the same, but the rewrite changes the values the copy reads: a WAR hazard.
static void CaseDiffBytesWar(Ctx &c)
{
    LocalTensor<float> t = c.b0.Get<float>();
    Duplicate(t, 0.0f, 64);
    c.Out(c.z, t, 64);
    Duplicate(t, 1.0f, 64);  // LINE_DIFFVAL
}
// 38: a rewrite that keeps most bytes but changes one the copy reads (block 3's first element): a WAR hazard.
static void CaseOneByteWar(Ctx &c)
{
    LocalTensor<float> u = c.b1.Get<float>();
    Duplicate(u, 5.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopyPad(c.z, u, DataCopyParams{8, 4, 0, 0});
    Duplicate(u, 5.0f, 24);
    Duplicate(u[24], 6.0f, 1);  // LINE_ONEBYTE
}

// 41: a same-bytes rewrite, then a different one, both racing the same MTE3 read: the second is a WAR (the read
// stays outstanding past the first).
static void CaseSameThenDiffWar(Ctx &c)
{
    LocalTensor<float> t = c.b0.Get<float>();
    Duplicate(t, 0.0f, 64);
    c.Out(c.z, t, 64);
    Duplicate(t, 0.0f, 64);
    Duplicate(t, 1.0f, 64);  // LINE_THENDIFF
}
// 39: InitBuffer rounds a 4 B length up to 32 B (CANN: the slot's dataLen is the rounded length): a 32 B copy
// into it stays inside; z[0] = the TQue tensor's size, z[1] = the TBuf's, in floats (8 each).
static void CaseRoundedSlot(Ctx &c)
{
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> tb;
    c.pipe.InitBuffer(q, 1, sizeof(float));
    c.pipe.InitBuffer(tb, sizeof(float));
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, c.x, 8);  // LINE_ROUNDED: 32 B into a slot asked as 4 B
    q.EnQue(t);
    t = q.DeQue<float>();
    LocalTensor<float> u = tb.Get<float>();
    Adds(u, t, 1.0f, 8);
    q.FreeTensor(t);
    c.z.SetValue(0, static_cast<float>(t.GetSize()));
    c.z.SetValue(1, static_cast<float>(u.GetSize()));
}
// 40: 64 B into the same 32 B slot: past its buffer.
static void CaseRoundedSlotOverrun(Ctx &c)
{
    TQue<TPosition::VECIN, 1> q;
    c.pipe.InitBuffer(q, 1, sizeof(float));
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, c.x, 16);  // LINE_OVERRUN
    q.EnQue(t);
    q.FreeTensor(q.DeQue<float>());
}

extern "C" __global__ __aicore__ void twin_cases(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)tiling;
    Ctx c(x, y, z);
    if (TILING_KEY_IS(1)) CaseCastF16(c);
    else if (TILING_KEY_IS(2)) CaseCastI32(c);
    else if (TILING_KEY_IS(3)) CaseCastBf16F32(c);
    else if (TILING_KEY_IS(4)) CaseReduce(c);
    else if (TILING_KEY_IS(5)) CaseCmpSel(c);
    else if (TILING_KEY_IS(6)) CasePad(c);
    else if (TILING_KEY_IS(7)) CaseVtoS(c);
    else if (TILING_KEY_IS(8)) CaseMte2V(c);
    else if (TILING_KEY_IS(9)) CaseDequeEmpty(c);
    else if (TILING_KEY_IS(10)) CaseUbOverflow(c);
    else if (TILING_KEY_IS(11)) CaseMisaligned(c);
    else if (TILING_KEY_IS(12)) CaseRace(c);
    else if (TILING_KEY_IS(13)) CaseQueueMisuse(c);
    else if (TILING_KEY_IS(14)) CaseSyncAll(c);
    else if (TILING_KEY_IS(15)) CaseQueuePipeline(c);
    else if (TILING_KEY_IS(16)) CaseMasks(c);
    else if (TILING_KEY_IS(17)) CaseReduce2(c);
    else if (TILING_KEY_IS(18)) CaseNewVec(c);
    else if (TILING_KEY_IS(19)) CaseTranspose(c);
    else if (TILING_KEY_IS(20)) CaseFillCycle(c);
    else if (TILING_KEY_IS(21)) CaseTailRead(c);
    else if (TILING_KEY_IS(22)) CaseTailWrite(c);
    else if (TILING_KEY_IS(23)) CaseGatherMask(c);
    else if (TILING_KEY_IS(24)) CaseGmGranule(c);
    else if (TILING_KEY_IS(25)) CaseBroadCast(c);
    else if (TILING_KEY_IS(26)) CaseGather(c);
    else if (TILING_KEY_IS(27)) CaseDeqScale(c);
    else if (TILING_KEY_IS(28)) CaseDeqUnset(c);
    else if (TILING_KEY_IS(29)) CaseDequeHandle(c);
    else if (TILING_KEY_IS(30)) CasePadUnPad(c);
    else if (TILING_KEY_IS(31)) CaseWrappedParams(c);
    else if (TILING_KEY_IS(32)) CaseShifts(c);
    else if (TILING_KEY_IS(33)) CaseSysWorkspace(c, workspace);
    else if (TILING_KEY_IS(34)) CaseUbOverflowTouched(c);
    else if (TILING_KEY_IS(35)) CaseUbOverflowStraddle(c);
    else if (TILING_KEY_IS(36)) CaseSameBytesWar(c);
    else if (TILING_KEY_IS(37)) CaseDiffBytesWar(c);
    else if (TILING_KEY_IS(38)) CaseOneByteWar(c);
    else if (TILING_KEY_IS(39)) CaseRoundedSlot(c);
    else if (TILING_KEY_IS(40)) CaseRoundedSlotOverrun(c);
    else if (TILING_KEY_IS(41)) CaseSameThenDiffWar(c);
}
