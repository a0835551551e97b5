#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;  // double buffering: copy-in of tile i+1 overlaps compute of tile i

template <typename T>
class KernelMul {
public:
    __aicore__ inline KernelMul() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
            pipe.InitBuffer(calcBuf, 3 * tileLength * sizeof(float));
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
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
        AscendC::DataCopyPad(yLocal, yGm[progress * tileLength], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
            // The vector unit has no bf16 multiply: widen to fp32, multiply, round back.
            AscendC::LocalTensor<float> xf = calcBuf.Get<float>();
            AscendC::LocalTensor<float> yf = xf[tileLength];
            AscendC::LocalTensor<float> zf = yf[tileLength];
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            AscendC::Cast(yf, yLocal, AscendC::RoundMode::CAST_NONE, count);
            AscendC::Mul(zf, xf, yf, count);
            AscendC::Cast(zLocal, zf, AscendC::RoundMode::CAST_RINT, count);
        } else {
            AscendC::Mul(zLocal, xLocal, yLocal, count);
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> calcBuf;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMul<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
