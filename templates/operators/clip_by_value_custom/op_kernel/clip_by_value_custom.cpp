#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;  // double buffering: copy-in of tile i+1 overlaps compute of tile i

template <typename T>
class KernelClipByValue {
public:
    __aicore__ inline KernelClipByValue() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, float clipMin, float clipMax)
    {
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        this->clipMin = clipMin;
        this->clipMax = clipMax;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
            pipe.InitBuffer(calcBuf, tileLength * sizeof(float));
        }
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
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
            // Maxs/Mins take half/float only: widen to fp32 (exact), clamp in place, round back.
            AscendC::LocalTensor<float> xf = calcBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            AscendC::Maxs(xf, xf, clipMin, count);
            AscendC::Mins(xf, xf, clipMax, count);
            AscendC::Cast(yLocal, xf, AscendC::RoundMode::CAST_RINT, count);
        } else {
            // The scalars must have the tensor's element type.
            AscendC::Maxs(yLocal, xLocal, static_cast<T>(clipMin), count);
            AscendC::Mins(yLocal, yLocal, static_cast<T>(clipMax), count);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[progress * tileLength], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> calcBuf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float clipMin = 0.0f;
    float clipMax = 0.0f;
};

extern "C" __global__ __aicore__ void clip_by_value_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelClipByValue<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.clipMin,
            tilingData.clipMax);
    op.Process();
}
