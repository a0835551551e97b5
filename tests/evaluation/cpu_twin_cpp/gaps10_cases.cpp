// CPU-twin test kernels for the gaps NPUKernelBench answers hit (issue 28, round 10): one case per tiling key,
// laid out as twin_cases.cpp (x, y, z float32[N], workspace, tiling; the manifest sets tiling_key and block_dim).
//  1..7  cross-block writes of identical or different bytes (the NonFiniteCheck-style "found" flag)
//  8     set_mask_count / set_mask_norm, the mask register's mode by its intrinsic names (LayerNormV4)
//  9..11 GatherMask in counter mode: mask elements per repeat, more than one repeat's 256 B (MaskedSelectV3)
#include "kernel_operator.h"

using namespace AscendC;
constexpr uint32_t N = 1024;

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2;
    GlobalTensor<float> x, y, z;
    Ctx(GM_ADDR gx, GM_ADDR gy, GM_ADDR gz)
    {
        x.SetGlobalBuffer((__gm__ float *)gx, N);
        y.SetGlobalBuffer((__gm__ float *)gy, N);
        z.SetGlobalBuffer((__gm__ float *)gz, N);
        pipe.InitBuffer(b0, N * 4);
        pipe.InitBuffer(b1, N * 4);
        pipe.InitBuffer(b2, N * 4);
    }
    void In(LocalTensor<float> &t, GlobalTensor<float> &g, uint32_t n)
    {
        DataCopy(t, g, n);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
    }
    void Out(GlobalTensor<float> &g, LocalTensor<float> &t, uint32_t n)
    {
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(g, t, n);
    }
};

// 1: every block stores 1.0 into the flag z[0] (scalar SetValue, no atomic).
static void CaseSameFlag(Ctx &c)
{
    c.z.SetValue(0, 1.0f);
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(c.z);
}
// 2: block b stores b + 1 into z[0].
static void CaseOwnFlag(Ctx &c) { c.z.SetValue(0, static_cast<float>(GetBlockIdx() + 1)); }
// 3: every block stores 1.0 into z[0], then reads it back.
static void CaseSameFlagReadBack(Ctx &c)
{
    c.z.SetValue(0, 1.0f);
    float v = c.z.GetValue(0);
    c.z.SetValue(8 + GetBlockIdx(), v);
}
// 4: block 0 stores the flag, the others read it.
static void CaseWriteRead(Ctx &c)
{
    if (GetBlockIdx() == 0) c.z.SetValue(0, 1.0f);
    else c.z.SetValue(8 + GetBlockIdx(), c.z.GetValue(0));
}
// 5: every block copies 16 floats to z[0..16): block 0 all 1.0, the others 1.0 then 2.0 from element 8.
static void CasePartlySame(Ctx &c)
{
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, 1.0f, 16);
    if (GetBlockIdx() != 0) Duplicate(o[8], 2.0f, 8);
    c.Out(c.z, o, 16);
}
// 6: every block copies the same 8 floats (1.0) to z[0..8).
static void CaseSameBlock(Ctx &c)
{
    LocalTensor<float> o = c.b0.Get<float>();
    Duplicate(o, 1.0f, 8);
    c.Out(c.z, o, 8);
}
// 7: every block stores 1.0 into z[0]; block 1 then stores 2.0 there.
static void CaseSameThenOther(Ctx &c)
{
    c.z.SetValue(0, 1.0f);
    if (GetBlockIdx() == 1) c.z.SetValue(0, 2.0f);
}
// 8: z[0] = sum of x[0..100) by vcadd in counter mode (set_mask_count + set_vector_mask(0, 100)); then
//    set_mask_norm + set_vector_mask(0, 0xF): Adds on the register's lanes 0..3 of z[64..128).
static void CaseMaskIntrinsics(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 128);
    LocalTensor<float> o = c.b1.Get<float>();
    Duplicate(o, -1.0f, 128);
    PipeBarrier<PIPE_V>();
    set_mask_count();
    set_vector_mask(0x0, 100);
    vcadd(nullptr, (__ubuf__ float *)xf.GetPhyAddr(), 1, 1, 1, 8, true);
    SetFlag<HardEvent::V_S>(0);
    WaitFlag<HardEvent::V_S>(0);
    uint64_t acc = GetAccVal();
    o.SetValue(0, *reinterpret_cast<float *>(&acc));
    SetFlag<HardEvent::S_V>(0);
    WaitFlag<HardEvent::S_V>(0);
    set_mask_norm();
    set_vector_mask(0x0, 0xF);
    UnaryRepeatParams up;
    Adds<float, false>(o[64], xf, 3.0f, MASK_PLACEHOLDER, 1, up);
    ResetMask();
    c.Out(c.z, o, 128);
}
// 9: GatherMask, counter mode, one repeat of 200 elements (past a repeat's 64 floats): every third one.
//    z[0..67) the kept values, z[100] the count.
static void CaseGatherCounter(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 256);
    LocalTensor<uint32_t> pat = c.b1.Get<uint32_t>();
    for (uint32_t w = 0; w < 8; ++w) {
        uint32_t bits = 0;
        for (uint32_t i = 0; i < 32; ++i)
            if ((w * 32 + i) % 3 == 0) bits |= 1u << i;
        pat.SetValue(w, bits);
    }
    SetFlag<HardEvent::S_V>(0);
    WaitFlag<HardEvent::S_V>(0);
    LocalTensor<float> o = c.b2.Get<float>();
    Duplicate(o, -1.0f, 128);
    PipeBarrier<PIPE_V>();
    uint64_t kept = 0;
    GatherMaskParams p{1, 1, 0, 0};
    GatherMask(o, xf, pat, true, 200, p, kept);
    SetFlag<HardEvent::V_S>(0);
    WaitFlag<HardEvent::V_S>(0);
    o.SetValue(100, static_cast<float>(kept));
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    c.Out(c.z, o, 128);
}
// 10: GatherMask, counter mode, 2 repeats of 70 elements, the second 4 data blocks (32 floats) on, built-in
//     pattern 7 (all): z[0..140) = x[0..70) then x[32..102), z[200] the count.
static void CaseGatherTwoRepeats(Ctx &c)
{
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 256);
    LocalTensor<float> o = c.b2.Get<float>();
    uint64_t kept = 0;
    GatherMaskParams p{1, 2, 4, 0};
    GatherMask(o, xf, static_cast<uint8_t>(7), true, 70, p, kept);
    SetFlag<HardEvent::V_S>(0);
    WaitFlag<HardEvent::V_S>(0);
    o.SetValue(200, static_cast<float>(kept));
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    c.Out(c.z, o, 256);
}
// 11: GatherMask, counter mode, 400 elements from a 32-byte pattern buffer (256 bits): reads past its pattern.
static void CaseGatherShortPattern(Ctx &c)
{
    TBuf<TPosition::VECCALC> small;
    c.pipe.InitBuffer(small, 32);
    LocalTensor<uint32_t> pat = small.Get<uint32_t>();
    Duplicate(pat, 0xFFFFFFFFu, 8);
    LocalTensor<float> xf = c.b0.Get<float>();
    c.In(xf, c.x, 512);
    LocalTensor<float> o = c.b2.Get<float>();
    PipeBarrier<PIPE_V>();
    uint64_t kept = 0;
    GatherMaskParams p{1, 1, 0, 0};
    GatherMask(o, xf, pat, true, 400, p, kept);
}

extern "C" __global__ __aicore__ void gaps10_cases(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    (void)tiling;
    Ctx c(x, y, z);
    if (TILING_KEY_IS(1)) CaseSameFlag(c);
    else if (TILING_KEY_IS(2)) CaseOwnFlag(c);
    else if (TILING_KEY_IS(3)) CaseSameFlagReadBack(c);
    else if (TILING_KEY_IS(4)) CaseWriteRead(c);
    else if (TILING_KEY_IS(5)) CasePartlySame(c);
    else if (TILING_KEY_IS(6)) CaseSameBlock(c);
    else if (TILING_KEY_IS(7)) CaseSameThenOther(c);
    else if (TILING_KEY_IS(8)) CaseMaskIntrinsics(c);
    else if (TILING_KEY_IS(9)) CaseGatherCounter(c);
    else if (TILING_KEY_IS(10)) CaseGatherTwoRepeats(c);
    else if (TILING_KEY_IS(11)) CaseGatherShortPattern(c);
}
