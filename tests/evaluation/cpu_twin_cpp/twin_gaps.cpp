// CPU-twin test kernel: APIs and idioms benchmark answers need (issue 28), one case per tiling key, one block.
// Args: x (float32[N]), y (float32[N]), z (float32[N]), workspace, tiling. N = 1024.
#include "kernel_operator.h"

constexpr int32_t N = 1024;

// No `;` before or after ASSERT, as answers that build with CANN write it.
static uint32_t Checked(uint32_t n)
{
    uint32_t m = n + 1 ASSERT(m != 0);
    ASSERT(false && "CANN's NPU build drops it")
    return m;
}

extern "C" __global__ __aicore__ void twin_gaps(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * N * sizeof(float));
    AscendC::GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, N);
    gy.SetGlobalBuffer((__gm__ float *)y, N);
    gz.SetGlobalBuffer((__gm__ float *)z, N);
    if (TILING_KEY_IS(9)) {  // InitOutput fills GM; GetC0Count; GetTPipePtr outside namespace AscendC
        AscendC::InitOutput<float>(gz, N, 3.0f);
        gz.SetValue(1, static_cast<float>(AscendC::AscendCUtils::GetC0Count(sizeof(half))));
        gz.SetValue(2, ::GetTPipePtr() == &pipe ? 1.0f : 0.0f);
        return;
    }
    AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[N], d = a[2 * N];
    AscendC::DataCopy(a, gx, N);
    AscendC::DataCopy(b, gy, N);
    AscendC::Duplicate(d, 0.0f, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    if (TILING_KEY_IS(1)) {  // WholeReduceMax over all N (counter mode), then the max/min registers
        AscendC::SetMaskCount();
        AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(0, N);
        AscendC::WholeReduceMax<float, false>(b, a, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
        AscendC::SetMaskNorm();
        AscendC::ResetMask();
        float val = 0, idx = 0;
        AscendC::GetReduceMaxMinCount<float>(val, idx);
        uint32_t i;
        std::memcpy(&i, &idx, 4);
        d.SetValue(0, val);
        d.SetValue(1, static_cast<float>(i));
    } else if (TILING_KEY_IS(2)) {  // vcadd in accumulate mode, no dst: the sum of all repeats in ACC_VAL
        AscendC::AscendCUtils::SetMask<float>(64);
        vcadd(nullptr, (__ubuf__ float *)a.GetPhyAddr(), N / 64, 1, 1, 8, true);
        uint64_t acc = get_acc_val();
        float sum;
        std::memcpy(&sum, &acc, 4);
        d.SetValue(0, sum);
        AscendC::ReduceSum(b, a, b, 128);  // count form: GetAccVal<float> reads its result
        d.SetValue(1, AscendC::GetAccVal<float>());
    } else if (TILING_KEY_IS(3)) {  // PairReduceSum: 16 repeats of 64 lanes -> 512 pair sums
        AscendC::PairReduceSum(d, a, N / 64, 64, 1, 1, 8);
    } else if (TILING_KEY_IS(4)) {  // PopStackBuffer: the UB after the 16 KB TBuf, less the 64 B kept at its end
        AscendC::LocalTensor<float> rest;
        bool ok = AscendC::PopStackBuffer<float, AscendC::TPosition::LCM>(rest);
        d.SetValue(0, ok ? static_cast<float>(rest.GetSize()) : -1.0f);
    } else if (TILING_KEY_IS(5)) {
        d.SetSize(N);
        d = a * b;  // the docs' whole-tensor form: Mul over d's size
    } else if (TILING_KEY_IS(6)) {
        d.SetSize(N);
        d = a - b;
    } else if (TILING_KEY_IS(7)) {  // AddDeqRelu: int32 sources, half result scaled by DEQSCALE
        AscendC::LocalTensor<int32_t> ia = buf.Get<int32_t>()[3 * N];
        AscendC::LocalTensor<int32_t> ib = buf.Get<int32_t>()[3 * N + N / 2];
        AscendC::LocalTensor<half> h = b.ReinterpretCast<half>();
        AscendC::Cast(ia, a, AscendC::RoundMode::CAST_RINT, N / 2);
        AscendC::Cast(ib, a[N / 2], AscendC::RoundMode::CAST_RINT, N / 2);
        AscendC::SetDeqScale(static_cast<half>(0.5f));
        AscendC::AddDeqRelu(h, ia, ib, N / 2);
        AscendC::Cast(d, h, AscendC::RoundMode::CAST_NONE, N / 2);
    } else if (TILING_KEY_IS(8)) {  // MulCast: half sources, int8 result
        AscendC::LocalTensor<half> ha = buf.Get<half>()[6 * N], hb = buf.Get<half>()[7 * N];
        AscendC::LocalTensor<int8_t> q = b.ReinterpretCast<int8_t>();
        AscendC::LocalTensor<half> qh = buf.Get<half>()[6 * N];
        AscendC::Cast(ha, a, AscendC::RoundMode::CAST_NONE, N);
        AscendC::Cast(hb, b, AscendC::RoundMode::CAST_NONE, N);
        AscendC::MulCast(q, ha, hb, N);
        AscendC::Cast(qh, q, AscendC::RoundMode::CAST_NONE, N);
        AscendC::Cast(d, qh, AscendC::RoundMode::CAST_NONE, N);
    } else if (TILING_KEY_IS(10)) {  // block_idx / block_num, and ASSERT without its `;`
        d.SetValue(0, static_cast<float>(block_idx));
        d.SetValue(1, static_cast<float>(block_num));
        d.SetValue(2, static_cast<float>(Checked(2)));
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gz, d, N);
}
