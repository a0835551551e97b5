#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;  // double buffering: copy-in of tile i+1 overlaps compute of tile i

template <typename TX, typename TY>
class KernelCast {
public:
    __aicore__ inline KernelCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ TX *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ TY *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(TX));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(TY));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileCount = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileCount; i++) {
            uint32_t count = (i == tileCount - 1) ? length - i * tileLength : tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<TX> xLocal = inQueueX.AllocTensor<TX>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(TX)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<TX> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<TX> xLocal = inQueueX.DeQue<TX>();
        AscendC::LocalTensor<TY> yLocal = outQueueY.AllocTensor<TY>();
        if constexpr (AscendC::IsSameType<TY, float>::value) {
            // Widening to fp32 is exact: no rounding.
            AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_NONE, count);
        } else {
            // Narrowing: round to nearest, ties to even (IEEE default, what numpy's astype does).
            AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_RINT, count);
        }
        outQueueY.EnQue<TY>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<TY> yLocal = outQueueY.DeQue<TY>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(TY)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[progress * tileLength], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::GlobalTensor<TX> xGm;
    AscendC::GlobalTensor<TY> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelCast<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
