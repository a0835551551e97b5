#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;  // double buffering: copy-in of tile i+1 overlaps compute of tile i
constexpr float GELU_COEFF = 0.044715f;
// tanh(u) = 1 - 2 / (1 + exp(2u)), so 0.5 * x * (1 + tanh(u)) = x / (1 + exp(-2u)) with u = sqrt(2/pi) * (...).
constexpr float NEG_TWO_SQRT_2_OVER_PI = -1.5957691216057308f;

template <typename T>
class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (AscendC::IsSameType<T, float>::value) {
            pipe.InitBuffer(calcBuf, tileLength * sizeof(float));      // scratch
        } else {
            pipe.InitBuffer(calcBuf, 2 * tileLength * sizeof(float));  // scratch + fp32 copy of x
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
    // dst = src / (1 + exp(-2 * sqrt(2/pi) * (src + 0.044715 * src^3))), all in fp32; dst may alias src.
    __aicore__ inline void GeluFp32(const AscendC::LocalTensor<float> &dst, const AscendC::LocalTensor<float> &src,
                                    const AscendC::LocalTensor<float> &tmp, uint32_t count)
    {
        AscendC::Mul(tmp, src, src, count);                      // x^2
        AscendC::Muls(tmp, tmp, GELU_COEFF, count);              // 0.044715 x^2
        AscendC::Adds(tmp, tmp, 1.0f, count);                    // 1 + 0.044715 x^2
        AscendC::Mul(tmp, tmp, src, count);                      // x + 0.044715 x^3
        AscendC::Muls(tmp, tmp, NEG_TWO_SQRT_2_OVER_PI, count);  // -2u
        AscendC::Exp(tmp, tmp, count);                           // exp(-2u)
        AscendC::Adds(tmp, tmp, 1.0f, count);                    // 1 + exp(-2u)
        AscendC::Div(dst, src, tmp, count);                      // x / (1 + exp(-2u))
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::LocalTensor<float> tmp = calcBuf.Get<float>();
        if constexpr (AscendC::IsSameType<T, float>::value) {
            GeluFp32(yLocal, xLocal, tmp, count);
        } else {
            // fp16/bf16: widen to fp32 so the cubic and exp keep their precision, then round once.
            AscendC::LocalTensor<float> xf = tmp[tileLength];
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            GeluFp32(xf, xf, tmp, count);
            AscendC::Cast(yLocal, xf, AscendC::RoundMode::CAST_RINT, count);
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
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGelu<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
