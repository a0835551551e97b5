// CPU-twin test kernel: cross-core flags and the reduce / select advanced APIs, one case per tiling key.
// Args: x (float32[M]), y (float32[M]), z (float32[M]), workspace, tiling. Block count from the manifest.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t M = 1024;
constexpr uint32_t SLOT = 64;  // floats of z per block in the exchange cases

namespace {
struct Bufs {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c, tmp;
    GlobalTensor<float> x, y, z;
    Bufs(GM_ADDR px, GM_ADDR py, GM_ADDR pz)
    {
        pipe.InitBuffer(a, M * 4);
        pipe.InitBuffer(b, M * 4);
        pipe.InitBuffer(c, M * 4);
        pipe.InitBuffer(tmp, 1024);
        x.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(px), M);
        y.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(py), M);
        z.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(pz), M);
    }
    void In(const LocalTensor<float> &t, const GlobalTensor<float> &g, uint32_t n)
    {
        DataCopy(t, g, n);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
    }
    void Out(const GlobalTensor<float> &g, const LocalTensor<float> &t, uint32_t n)
    {
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(g, t, n);
    }
};

// Each block writes its first half slot, then (after `sync`) copies the next block's first half into its second.
template <bool kSync> void Exchange(Bufs &k, uint16_t flag)
{
    const int64_t me = GetBlockIdx(), n = GetBlockNum();
    LocalTensor<float> t = k.a.Get<float>();
    Duplicate(t, static_cast<float>(me + 1), SLOT / 2);
    k.Out(k.z[me * SLOT], t, SLOT / 2);
    if (kSync) {
        CrossCoreSetFlag<0, PIPE_MTE3>(flag);
        CrossCoreWaitFlag(flag);
    }
    LocalTensor<float> r = k.b.Get<float>();
    DataCopy(r, k.z[((me + 1) % n) * SLOT], SLOT / 2);
    SetFlag<HardEvent::MTE2_MTE3>(1);
    WaitFlag<HardEvent::MTE2_MTE3>(1);
    DataCopy(k.z[me * SLOT + SLOT / 2], r, SLOT / 2);
}
}  // namespace

extern "C" __global__ __aicore__ void twin_api9(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    Bufs k(x, y, z);
    const int64_t me = GetBlockIdx(), n = GetBlockNum();
    if (TILING_KEY_IS(1)) {  // mode-0 round between the writes and the reads: no race, neighbours' values
        Exchange<true>(k, 3);
    } else if (TILING_KEY_IS(2)) {  // the same exchange with no sync at all: a race
        Exchange<false>(k, 3);
    } else if (TILING_KEY_IS(3)) {  // block 0 waits on a flag nobody sets: deadlock, the others finish
        if (me == 0) CrossCoreWaitFlag(5);
        Exchange<false>(k, 3);
    } else if (TILING_KEY_IS(4)) {  // the last block never sets: the round never completes, every waiter deadlocks
        if (me != n - 1) CrossCoreSetFlag<0, PIPE_MTE3>(2);
        CrossCoreWaitFlag(2);
    } else if (TILING_KEY_IS(5)) {  // two rounds on one flag, then mode 1 (the block's own) on another
        for (int round = 0; round < 2; ++round) {
            CrossCoreSetFlag<0, PIPE_MTE3>(4);
            CrossCoreWaitFlag(4);
        }
        CrossCoreSetFlag<1, PIPE_V>(6);
        CrossCoreWaitFlag<1, PIPE_V>(6);
        Exchange<true>(k, 4);
    } else if (TILING_KEY_IS(6)) {  // mode 2 needs a cube core
        CrossCoreSetFlag<2, PIPE_MTE3>(1);
    } else if (TILING_KEY_IS(7)) {  // 16 sets with no wait: the counter overflows
        for (int i = 0; i < 16; ++i) CrossCoreSetFlag<1, PIPE_V>(7);
    } else if (TILING_KEY_IS(8)) {  // flag id out of range
        CrossCoreSetFlag<0, PIPE_V>(16);
    } else if (TILING_KEY_IS(10) && me == 0) {  // Sum / Mean (float) of x as 6 rows of 20 valid of 24
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>();
        LocalTensor<uint8_t> tmp = k.tmp.Get<uint8_t>();
        k.In(s, k.x, 6 * 24);
        Sum(d, s, tmp, SumParams{6, 24, 20});
        Mean(d[8], s, MeanParams{6, 24, 20});
        k.Out(k.z, d, 16);
    } else if (TILING_KEY_IS(11) && me == 0) {  // Mean<half, float> and Mean<half, half> of x as 3 rows of 50 of 64
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>();
        LocalTensor<half> h = k.c.Get<half>(), hd = k.c.Get<half>()[256];
        k.In(s, k.x, 3 * 64);
        Cast(h, s, RoundMode::CAST_NONE, 3 * 64);
        Mean<half, float>(hd, h, k.tmp.Get<uint8_t>(), MeanParams{3, 64, 50});
        Mean<half>(hd[16], h, k.tmp.Get<uint8_t>(), MeanParams{3, 64, 50});
        Cast(d, hd, RoundMode::CAST_NONE, 32);
        k.Out(k.z, d, 32);
    } else if (TILING_KEY_IS(12) && me == 0) {  // n above inner: refused
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>();
        k.In(s, k.x, 64);
        Sum(d, s, SumParams{2, 8, 9});
        k.Out(k.z, d, 8);
    } else if (TILING_KEY_IS(20) && me == 0) {  // tensor-first, uint8 mask rows of 32 for source rows of 16 (2 rows)
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>(), mf = k.c.Get<float>();
        LocalTensor<uint8_t> m = k.c.Get<uint8_t>()[2048];
        k.In(s, k.x, 32);
        k.In(mf, k.y, 64);
        Cast(mf.ReinterpretCast<int32_t>(), mf, RoundMode::CAST_ROUND, 64);  // y holds 0 / 1 / 2 as floats
        SetFlag<HardEvent::V_S>(0);
        WaitFlag<HardEvent::V_S>(0);
        for (int i = 0; i < 64; ++i) m.SetValue(i, static_cast<uint8_t>(mf.ReinterpretCast<int32_t>().GetValue(i)));
        SetFlag<HardEvent::S_V>(0);
        WaitFlag<HardEvent::S_V>(0);
        SelectWithBytesMask(d, s, -7.0f, m, k.tmp.Get<uint8_t>(), SelectWithBytesMaskShapeInfo{2, 16, 32});
        k.Out(k.z, d, 32);
    } else if (TILING_KEY_IS(21) && me == 0) {  // scalar-first, half data, half mask, rows of equal length (in place)
        LocalTensor<float> s = k.a.Get<float>(), mf = k.b.Get<float>();
        LocalTensor<half> h = k.c.Get<half>(), hm = k.c.Get<half>()[512];
        k.In(s, k.x, 64);
        k.In(mf, k.y, 64);
        Cast(h, s, RoundMode::CAST_NONE, 64);
        Cast(hm, mf, RoundMode::CAST_NONE, 64);
        SelectWithBytesMask(h, static_cast<half>(3.5f), h, hm, k.tmp.Get<uint8_t>(), SelectWithBytesMaskShapeInfo{2, 32, 32});
        Cast(s, h, RoundMode::CAST_NONE, 64);
        k.Out(k.z, s, 64);
    } else if (TILING_KEY_IS(22) && me == 0) {  // mask rows longer than its buffer: read past the mask buffer
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>();
        LocalTensor<uint8_t> m = k.tmp.Get<uint8_t>();
        Duplicate(s, 1.0f, 64);
        Duplicate(m.ReinterpretCast<half>(), static_cast<half>(0.0f), 512);
        SelectWithBytesMask(d, s, 0.0f, m, k.tmp.Get<uint8_t>(), SelectWithBytesMaskShapeInfo{2, 32, 1024});
        k.Out(k.z, d, 64);
    } else if (TILING_KEY_IS(23) && me == 0) {  // isReuseMask (default) with longer mask rows: the mask is consumed
        LocalTensor<float> s = k.a.Get<float>(), d = k.b.Get<float>();
        LocalTensor<uint8_t> m = k.tmp.Get<uint8_t>();
        Duplicate(s, 1.0f, 64);
        Duplicate(m.ReinterpretCast<half>(), static_cast<half>(0.0f), 512);
        SelectWithBytesMask(d, s, 0.0f, m, k.tmp.Get<uint8_t>()[512], SelectWithBytesMaskShapeInfo{2, 16, 64});
        k.Out(k.z, d, 32);
        k.Out(k.z[64], m.ReinterpretCast<float>(), 32);  // reads the consumed mask
    } else if (TILING_KEY_IS(30) && me == 0) {  // CreateVecIndex: int32 from -5, half from 1000 (spacing 0.5 past 1024)
        LocalTensor<float> d = k.b.Get<float>();
        LocalTensor<int32_t> i32 = k.a.Get<int32_t>();
        LocalTensor<half> h = k.c.Get<half>();
        CreateVecIndex(i32, static_cast<int32_t>(-5), 100);
        CreateVecIndex(h, static_cast<half>(1000.0f), 64);
        Cast(d, i32, RoundMode::CAST_NONE, 100);
        Cast(d[128], h, RoundMode::CAST_NONE, 64);
        k.Out(k.z, d, 192);
    } else if (TILING_KEY_IS(31) && me == 0) {  // more indices than the buffer holds
        LocalTensor<int32_t> i32 = k.tmp.Get<int32_t>();
        CreateVecIndex(i32, 0, 512);
    } else if (TILING_KEY_IS(40) && me == 0) {  // the advanced Exp<T, taylorExpandLevel, isReuseSource> (half)
        LocalTensor<float> s = k.a.Get<float>();
        LocalTensor<half> h = k.c.Get<half>();
        k.In(s, k.x, 64);
        Cast(h, s, RoundMode::CAST_NONE, 64);
        Exp<half, 15, false>(h, h, 64);
        Cast(s, h, RoundMode::CAST_NONE, 64);
        k.Out(k.z, s, 64);
    } else if (TILING_KEY_IS(13) && me == 0) {  // rows past the end of the source buffer
        LocalTensor<float> s = k.tmp.Get<float>(), d = k.b.Get<float>();
        Duplicate(s, 1.0f, 256);
        Sum(d, s, SumParams{2, 256, 256});
        k.Out(k.z, d, 8);
    }
}
