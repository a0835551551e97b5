// Look-alike of an official kernel-launch sample (written for these tests): y = |x| * 2 over TOTAL half values on
// BLOCK_DIM cores, the compute in counter mode, a `_do` wrapper with <<<>>> hidden from the CPU-debug build.
#include "kernel_operator.h"

constexpr int32_t TOTAL = 8 * 200;
constexpr int32_t BLOCK_DIM = 8;
constexpr int32_t PER_BLOCK = TOTAL / BLOCK_DIM;  // 200 halves = 400 B: not a multiple of 32 B
constexpr int32_t PER_BLOCK_ALIGNED = (PER_BLOCK * 2 + 31) / 32 * 32 / 2;

class KernelScaleAbs {
public:
    __aicore__ inline KernelScaleAbs() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ half *)x + PER_BLOCK * AscendC::GetBlockIdx(), PER_BLOCK);
        yGm.SetGlobalBuffer((__gm__ half *)y + PER_BLOCK * AscendC::GetBlockIdx(), PER_BLOCK);
        pipe.InitBuffer(inQueue, 1, PER_BLOCK_ALIGNED * sizeof(half));
        pipe.InitBuffer(outQueue, 1, PER_BLOCK_ALIGNED * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
        AscendC::DataCopyExtParams copy{1, PER_BLOCK * sizeof(half), 0, 0, 0};
        AscendC::DataCopyPadExtParams<half> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm, copy, pad);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<half>();
        AscendC::LocalTensor<half> yLocal = outQueue.AllocTensor<half>();
        AscendC::UnaryRepeatParams params;
        AscendC::SetMaskCount();
        AscendC::SetVectorMask<half, AscendC::MaskMode::COUNTER>(0, PER_BLOCK);
        AscendC::Abs<half, false>(yLocal, xLocal, AscendC::MASK_PLACEHOLDER, 1, params);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls<half, false>(yLocal, yLocal, (half)2.0, AscendC::MASK_PLACEHOLDER, 1, params);
        AscendC::SetMaskNorm();
        AscendC::ResetMask();
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
        yLocal = outQueue.DeQue<half>();
        AscendC::DataCopyPad(yGm, yLocal, copy);
        outQueue.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<half> xGm, yGm;
};

extern "C" __global__ __aicore__ void scale_abs_custom(GM_ADDR x, GM_ADDR y)
{
    KernelScaleAbs op;
    op.Init(x, y);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
void scale_abs_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y)
{
    scale_abs_custom<<<blockDim, nullptr, stream>>>(x, y);
}
#endif
