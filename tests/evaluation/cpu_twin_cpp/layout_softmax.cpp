// CPU-twin test kernel: the VNCHWCONV transposes (TransDataTo5HD, its Impl on raw pointers, scatter_vnchwconv
// through the VA registers), the raw-pointer vector intrinsics, SoftMax and SoftmaxGrad; one case per tiling
// key, one block. Keys 20 and up are kernels the twin must catch. Args: x, y (float32[N]), z (float32[N]).
#include "kernel_operator.h"

constexpr int32_t N = 1024;

using AscendC::LocalTensor;

// 16 raw addresses, `step` elements apart from `base`, into two VA registers.
template <typename T> static void SetVa(ub_addr8_t lo, T *base, uint32_t step)
{
    uint64_t a[8], b[8];
    for (uint32_t i = 0; i < 8; ++i) {
        a[i] = reinterpret_cast<uint64_t>(base + step * i);
        b[i] = reinterpret_cast<uint64_t>(base + step * (i + 8));
    }
    set_va_reg_sb(lo, a);
    set_va_reg_sb(static_cast<ub_addr8_t>(lo + 1), b);
}

extern "C" __global__ __aicore__ void layout_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * N * sizeof(float));
    AscendC::GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, N);
    gy.SetGlobalBuffer((__gm__ float *)y, N);
    gz.SetGlobalBuffer((__gm__ float *)z, N);
    LocalTensor<float> a = buf.Get<float>(), b = a[N], d = a[2 * N], w = a[3 * N];
    AscendC::DataCopy(a, gx, N);
    if (TILING_KEY_IS(25)) {  // SoftMax reads a while MTE2 may still be writing it: no flag between them
        SoftMaxTiling tl;
        AscendC::SoftMax<float>(d, a, tl, {16, 64, 16, 64});
        return;
    }
    AscendC::DataCopy(b, gy, N);
    AscendC::Duplicate(d, 0.0f, N);
    if (TILING_KEY_IS(21)) {  // a scatter reads a while MTE2 may still be writing it: no flag between them
        SetVa(VA0, (__ubuf__ uint16_t *)d.GetPhyAddr(), 16);
        SetVa(VA2, (__ubuf__ uint16_t *)a.GetPhyAddr(), 16);
        scatter_vnchwconv_b16(VA0, VA2, 1, 0, 0);
        return;
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    SoftMaxTiling tl;
    if (TILING_KEY_IS(1)) {  // b16 through VA0..VA3: four 16 x 16 matrices of x's 16-bit halves, 512 B apart
        SetVa(VA0, (__ubuf__ uint16_t *)d.GetPhyAddr(), 16);
        SetVa(VA2, (__ubuf__ uint16_t *)a.GetPhyAddr(), 16);
        scatter_vnchwconv_b16(VA0, VA2, 4, 16, 16);
    } else if (TILING_KEY_IS(2)) {  // b32 list form, one repeat: the source stride (one block) is still added once
        LocalTensor<float> dl[16], sl[16];
        for (uint32_t i = 0; i < 16; ++i) {
            dl[i] = d[8 * i];
            sl[i] = a[16 * i];
        }
        AscendC::TransDataTo5HDParams p(false, false, 1, 0, 1);
        AscendC::TransDataTo5HD<float>(dl, sl, p);
    } else if (TILING_KEY_IS(3)) {  // b8 through VA4..VA7: high halves in, high halves out, low halves untouched
        AscendC::DataCopy(d, b, N);
        AscendC::PipeBarrier<PIPE_V>();
        SetVa(VA4, (__ubuf__ uint8_t *)d.GetPhyAddr(), 32);
        SetVa(VA6, (__ubuf__ uint8_t *)a.GetPhyAddr(), 32);
        scatter_vnchwconv_b8(VA4, VA6, 1, 0, 0, true, true);
    } else if (TILING_KEY_IS(4)) {  // TransDataTo5HDImpl on raw int16 pointer lists, two repeats
        __ubuf__ int16_t *dl[16], *sl[16];
        for (uint32_t i = 0; i < 16; ++i) {
            dl[i] = (__ubuf__ int16_t *)d.GetPhyAddr() + 16 * i;
            sl[i] = (__ubuf__ int16_t *)a.GetPhyAddr() + 16 * i;
        }
        AscendC::TransDataTo5HDParams p(false, false, 2, 16, 16);
        AscendC::TransDataTo5HDImpl(dl, sl, p);
    } else if (TILING_KEY_IS(5)) {  // raw intrinsics: copy two blocks, zero one, 16 x 16 transpose, or with zero
        __ubuf__ int16_t *zero = (__ubuf__ int16_t *)w.GetPhyAddr();
        copy_ubuf_to_ubuf((__ubuf__ float *)b.GetPhyAddr(), (__ubuf__ float *)a.GetPhyAddr(), 0, 1, 16, 0, 0);
        set_vector_mask(0x0, 0xffff);
        vector_dup(zero, (int16_t)0, 1, 1, 1, (uint8_t)8, (uint8_t)8);
        AscendC::PipeBarrier<PIPE_V>();
        vtranspose((__ubuf__ uint16_t *)w[64].GetPhyAddr(), (__ubuf__ uint16_t *)b.GetPhyAddr());
        AscendC::AscendCUtils::SetMask<half>(128);
        AscendC::PipeBarrier<PIPE_V>();
        vor((__ubuf__ int16_t *)d.GetPhyAddr(), (__ubuf__ int16_t *)w[64].GetPhyAddr(), zero, 2, 1, 1, 0, 8, 8, 0);
    } else if (TILING_KEY_IS(6)) {  // SoftMax fp32 [8, 64], reductions over the first 60 columns, sum and max out
        AscendC::SoftMax<float>(d, d[512], d[576], a, tl, {8, 64, 8, 60});
    } else if (TILING_KEY_IS(7)) {  // SoftMax fp16 in place, no sum/max, the shape from the tiling
        LocalTensor<half> h = w.ReinterpretCast<half>();
        AscendC::Cast(h, a, AscendC::RoundMode::CAST_NONE, N);
        AscendC::PipeBarrier<PIPE_V>();
        tl.srcM = 16;
        tl.srcK = 64;
        AscendC::SoftMax<half>(h, h, tl);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(d, h, AscendC::RoundMode::CAST_NONE, N);
    } else if (TILING_KEY_IS(8)) {  // SoftmaxGrad fp32 [16, 64]
        AscendC::SoftmaxGrad<float, false>(d, a, b, tl, false, {16, 64, 16, 64});
    } else if (TILING_KEY_IS(9)) {  // SoftmaxGrad isFront: one block of the row sum a row
        AscendC::SoftmaxGrad<float, false>(d, a, b, w.ReinterpretCast<uint8_t>(), tl, true, {16, 64, 16, 64});
    } else if (TILING_KEY_IS(20)) {  // a VA register slot past the end of the UB
        uint64_t addr[8];
        for (uint32_t i = 0; i < 8; ++i) addr[i] = reinterpret_cast<uint64_t>((__ubuf__ uint8_t *)a.GetPhyAddr() + 262144 + 32 * i);
        set_va_reg_sb(VA0, addr);
    } else if (TILING_KEY_IS(22)) {  // a scatter through VA4/VA5, which nothing set
        SetVa(VA0, (__ubuf__ uint16_t *)d.GetPhyAddr(), 16);
        scatter_vnchwconv_b16(VA0, VA4, 1, 0, 0);
    } else if (TILING_KEY_IS(23)) {  // list form: the second repeat writes past the destination tensor's TBuf
        AscendC::TBuf<AscendC::TPosition::VECCALC> small;
        pipe.InitBuffer(small, 512);
        LocalTensor<half> s = small.Get<half>();
        LocalTensor<half> src = a.ReinterpretCast<half>();
        LocalTensor<half> dl[16], sl[16];
        for (uint32_t i = 0; i < 16; ++i) {
            dl[i] = s[16 * i];
            sl[i] = src[16 * i];
        }
        AscendC::TransDataTo5HD<half>(dl, sl, AscendC::TransDataTo5HDParams(false, false, 2, 16, 16));
    } else if (TILING_KEY_IS(24)) {  // SoftMax with a sharedTmpBuffer on top of its source
        AscendC::SoftMax<float>(d, a, a.ReinterpretCast<uint8_t>(), tl, {16, 64, 16, 64});
    } else if (TILING_KEY_IS(26)) {  // a source block 2 bytes off its 32 B boundary
        __ubuf__ half *dl[16], *sl[16];
        for (uint32_t i = 0; i < 16; ++i) {
            dl[i] = (__ubuf__ half *)d.GetPhyAddr() + 16 * i;
            sl[i] = (__ubuf__ half *)a.GetPhyAddr() + 16 * i + (i == 3 ? 1 : 0);
        }
        AscendC::TransDataTo5HDImpl(dl, sl, AscendC::TransDataTo5HDParams());
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gz, d, N);
}
