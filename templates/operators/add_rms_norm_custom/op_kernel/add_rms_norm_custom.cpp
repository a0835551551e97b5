#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;        // double buffering: copy-in of tile i+1 overlaps compute of tile i
constexpr uint32_t BLOCK_BYTES = 32;     // UB addresses and GM<->UB copies work in 32 B blocks
constexpr uint32_t REPEAT_FLOATS = 64;   // fp32 elements per 256 B vector repeat
constexpr uint32_t BLOCK_FLOATS = 8;     // fp32 elements per 32 B block

// sharedTmpBuffer of the count-form ReduceSum on n fp32 elements (the host mirrors this).
__aicore__ inline uint32_t ReduceWorkElems(uint32_t n)
{
    uint32_t words = (n + REPEAT_FLOATS - 1) / REPEAT_FLOATS * 2;
    return (words + BLOCK_FLOATS - 1) / BLOCK_FLOATS * BLOCK_FLOATS;
}

// x_out = x1 + x2;  y = x_out * rsqrt(mean(x_out^2) + epsilon) * gamma along the last axis.
// The sum is formed in fp32 and normalized unrounded; x_out is its rounding to the I/O dtype.
// Whole-row mode: gamma is loaded once (as fp32); rowsPerTile full rows per UB tile, one pass over GM.
// Split-row mode (a row does not fit in UB): each row is streamed in colTile chunks twice (x_out and the
// sum of squares, then y; the second pass re-reads x1 and x2 instead of reading back x_out).
template <typename T>
class KernelAddRmsNorm {
    static constexpr bool WIDEN = !AscendC::IsSameType<T, float>::value;  // fp16/bf16 are computed in fp32

public:
    __aicore__ inline KernelAddRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR xOut, uint32_t cols,
                                uint32_t colsAligned, uint32_t rowsPerCore, uint32_t remainderRows,
                                uint32_t rowsPerTile, uint32_t splitRow, uint32_t colTile, float epsilon,
                                float avgFactor)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowEndsUnaligned = (cols * sizeof(T)) % BLOCK_BYTES != 0;
        this->rowsPerTile = rowsPerTile;
        this->splitRow = splitRow;
        this->colTile = colTile;
        this->epsilon = epsilon;
        this->avgFactor = avgFactor;
        this->rowCount = rowsPerCore + (blockIdx < remainderRows ? 1 : 0);
        uint64_t rowStart = static_cast<uint64_t>(blockIdx) * rowsPerCore +
                            (blockIdx < remainderRows ? blockIdx : remainderRows);
        uint64_t offset = rowStart * cols;
        uint64_t length = static_cast<uint64_t>(rowCount) * cols;
        x1Gm.SetGlobalBuffer((__gm__ T *)x1 + offset, length);
        x2Gm.SetGlobalBuffer((__gm__ T *)x2 + offset, length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, length);
        xOutGm.SetGlobalBuffer((__gm__ T *)xOut + offset, length);
        gammaGm.SetGlobalBuffer((__gm__ T *)gamma, cols);

        sliceLen = splitRow ? colTile : colsAligned;  // elements of one row (slice) in UB
        uint32_t tileLen = splitRow ? colTile : rowsPerTile * colsAligned;
        pipe.InitBuffer(inQueueX1, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(inQueueX2, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outQueueXOut, BUFFER_NUM, tileLen * sizeof(T));
        if (splitRow) {
            pipe.InitBuffer(inQueueGamma, BUFFER_NUM, colTile * sizeof(T));
        } else {
            pipe.InitBuffer(weightBuf, colsAligned * sizeof(float));
        }
        if constexpr (WIDEN) {
            pipe.InitBuffer(calcBuf, 2 * sliceLen * sizeof(float));
        }
        pipe.InitBuffer(workBuf, ReduceWorkElems(splitRow ? colTile : cols) * sizeof(float));
        pipe.InitBuffer(redBuf, BLOCK_BYTES);
    }
    __aicore__ inline void Process()
    {
        if (rowCount == 0) {
            return;
        }
        if (splitRow) {
            ProcessSplitRows();
        } else {
            LoadGamma();
            ProcessWholeRows();
        }
    }

private:
    // ---------------- whole-row mode ----------------
    // gamma -> weightBuf as fp32, once per core. fp16/bf16 are staged in the second scratch row.
    __aicore__ inline void LoadGamma()
    {
        AscendC::LocalTensor<float> gammaF = weightBuf.Get<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        if constexpr (WIDEN) {
            AscendC::LocalTensor<T> raw = calcBuf.Get<float>()[sliceLen].template ReinterpretCast<T>();
            AscendC::DataCopyPad(raw, gammaGm, params, pad);
            WaitMte2ForVector();
            AscendC::Cast(gammaF, raw, AscendC::RoundMode::CAST_NONE, cols);
            AscendC::PipeBarrier<PIPE_V>();
        } else {
            AscendC::DataCopyPad(gammaF, gammaGm, params, pad);
            WaitMte2ForVector();
        }
    }
    __aicore__ inline void ProcessWholeRows()
    {
        for (uint32_t row = 0; row < rowCount; row += rowsPerTile) {
            uint32_t nRows = (rowCount - row) < rowsPerTile ? (rowCount - row) : rowsPerTile;
            CopyInRows(row, nRows);
            ComputeRows(nRows);
            CopyOutRows(row, nRows);
        }
    }
    __aicore__ inline void CopyInRows(uint32_t row, uint32_t nRows)
    {
        AscendC::LocalTensor<T> x1Local = inQueueX1.AllocTensor<T>();
        AscendC::LocalTensor<T> x2Local = inQueueX2.AllocTensor<T>();
        // nRows blocks of cols elements; each lands 32 B aligned in UB, i.e. at stride colsAligned.
        AscendC::DataCopyExtParams params{static_cast<uint16_t>(nRows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0,
                                          0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(x1Local, x1Gm[static_cast<uint64_t>(row) * cols], params, pad);
        AscendC::DataCopyPad(x2Local, x2Gm[static_cast<uint64_t>(row) * cols], params, pad);
        inQueueX1.EnQue(x1Local);
        inQueueX2.EnQue(x2Local);
    }
    __aicore__ inline void ComputeRows(uint32_t nRows)
    {
        AscendC::LocalTensor<T> x1Local = inQueueX1.DeQue<T>();
        AscendC::LocalTensor<T> x2Local = inQueueX2.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::LocalTensor<T> xOutLocal = outQueueXOut.AllocTensor<T>();
        AscendC::LocalTensor<float> gammaF = weightBuf.Get<float>();
        int32_t n = static_cast<int32_t>(cols);
        for (uint32_t r = 0; r < nRows; r++) {
            // Only the first cols elements of a row enter the computation; the 32 B padding never does.
            uint32_t at = r * colsAligned;
            if constexpr (WIDEN) {
                AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
                AscendC::LocalTensor<float> tF = xF[sliceLen];
                AscendC::Cast(xF, x1Local[at], AscendC::RoundMode::CAST_NONE, cols);
                AscendC::Cast(tF, x2Local[at], AscendC::RoundMode::CAST_NONE, cols);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Add(xF, xF, tF, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Cast(xOutLocal[at], xF, AscendC::RoundMode::CAST_RINT, cols);
                AscendC::Mul(tF, xF, xF, n);
                AscendC::PipeBarrier<PIPE_V>();
                float rstd = Rstd(SumOf(tF, n));
                AscendC::Muls(xF, xF, rstd, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(xF, xF, gammaF, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Cast(yLocal[at], xF, AscendC::RoundMode::CAST_RINT, cols);
                AscendC::PipeBarrier<PIPE_V>();
            } else {
                AscendC::LocalTensor<float> xRow = xOutLocal[at];
                AscendC::LocalTensor<float> yRow = yLocal[at];
                AscendC::Add(xRow, x1Local[at], x2Local[at], n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(yRow, xRow, xRow, n);  // y row doubles as the x^2 scratch
                AscendC::PipeBarrier<PIPE_V>();
                float rstd = Rstd(SumOf(yRow, n));
                AscendC::Muls(yRow, xRow, rstd, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(yRow, yRow, gammaF, n);
                AscendC::PipeBarrier<PIPE_V>();
            }
        }
        outQueueY.EnQue<T>(yLocal);
        outQueueXOut.EnQue<T>(xOutLocal);
        inQueueX1.FreeTensor(x1Local);
        inQueueX2.FreeTensor(x2Local);
    }
    __aicore__ inline void CopyOutRows(uint32_t row, uint32_t nRows)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::LocalTensor<T> xOutLocal = outQueueXOut.DeQue<T>();
        AscendC::DataCopyExtParams params{static_cast<uint16_t>(nRows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0,
                                          0};
        if (rowEndsUnaligned) {
            // The previous copy-out ends inside the 32 B GM block this one starts in: keep them in order.
            AscendC::PipeBarrier<PIPE_MTE3>();
        }
        AscendC::DataCopyPad(yGm[static_cast<uint64_t>(row) * cols], yLocal, params);
        AscendC::DataCopyPad(xOutGm[static_cast<uint64_t>(row) * cols], xOutLocal, params);
        outQueueY.FreeTensor(yLocal);
        outQueueXOut.FreeTensor(xOutLocal);
    }

    // ---------------- split-row mode ----------------
    __aicore__ inline void ProcessSplitRows()
    {
        uint32_t chunks = (cols + colTile - 1) / colTile;
        for (uint32_t row = 0; row < rowCount; row++) {
            uint64_t rowOffset = static_cast<uint64_t>(row) * cols;
            // Pass 1: x_out = x1 + x2 and the sum of its squares.
            float sumSq = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                int32_t n = static_cast<int32_t>(len);
                uint64_t offset = rowOffset + static_cast<uint64_t>(c) * colTile;
                CopyInChunk(inQueueX1, x1Gm, offset, len);
                CopyInChunk(inQueueX2, x2Gm, offset, len);
                AscendC::LocalTensor<T> x1Local = inQueueX1.DeQue<T>();
                AscendC::LocalTensor<T> x2Local = inQueueX2.DeQue<T>();
                AscendC::LocalTensor<T> xOutLocal = outQueueXOut.AllocTensor<T>();
                if constexpr (WIDEN) {
                    AscendC::LocalTensor<float> xF = SumToFloat(x1Local, x2Local, len);
                    AscendC::Cast(xOutLocal, xF, AscendC::RoundMode::CAST_RINT, len);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(xF, xF, xF, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    sumSq += SumOf(xF, n);
                } else {
                    AscendC::Add(xOutLocal, x1Local, x2Local, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(x1Local, xOutLocal, xOutLocal, n);  // x1 buffer doubles as the x^2 scratch
                    AscendC::PipeBarrier<PIPE_V>();
                    sumSq += SumOf(x1Local, n);
                }
                outQueueXOut.EnQue<T>(xOutLocal);
                inQueueX1.FreeTensor(x1Local);
                inQueueX2.FreeTensor(x2Local);
                CopyOutChunk(outQueueXOut, xOutGm, offset, len);
            }
            float rstd = Rstd(sumSq);
            // Pass 2: y = (x1 + x2) * rstd * gamma.
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                int32_t n = static_cast<int32_t>(len);
                uint64_t offset = rowOffset + static_cast<uint64_t>(c) * colTile;
                CopyInChunk(inQueueX1, x1Gm, offset, len);
                CopyInChunk(inQueueX2, x2Gm, offset, len);
                CopyInChunk(inQueueGamma, gammaGm, static_cast<uint64_t>(c) * colTile, len);
                AscendC::LocalTensor<T> x1Local = inQueueX1.DeQue<T>();
                AscendC::LocalTensor<T> x2Local = inQueueX2.DeQue<T>();
                AscendC::LocalTensor<T> gLocal = inQueueGamma.DeQue<T>();
                AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
                if constexpr (WIDEN) {
                    AscendC::LocalTensor<float> xF = SumToFloat(x1Local, x2Local, len);
                    AscendC::LocalTensor<float> gF = xF[sliceLen];
                    AscendC::Muls(xF, xF, rstd, n);
                    AscendC::Cast(gF, gLocal, AscendC::RoundMode::CAST_NONE, len);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(xF, xF, gF, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Cast(yLocal, xF, AscendC::RoundMode::CAST_RINT, len);
                } else {
                    AscendC::Add(yLocal, x1Local, x2Local, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Muls(yLocal, yLocal, rstd, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(yLocal, yLocal, gLocal, n);
                }
                outQueueY.EnQue<T>(yLocal);
                inQueueX1.FreeTensor(x1Local);
                inQueueX2.FreeTensor(x2Local);
                inQueueGamma.FreeTensor(gLocal);
                CopyOutChunk(outQueueY, yGm, offset, len);
            }
        }
    }
    __aicore__ inline uint32_t ChunkLen(uint32_t c)
    {
        uint32_t start = c * colTile;
        return (cols - start) < colTile ? (cols - start) : colTile;
    }
    __aicore__ inline void CopyInChunk(AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> &que,
                                       AscendC::GlobalTensor<T> &src, uint64_t offset, uint32_t len)
    {
        AscendC::LocalTensor<T> local = que.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(local, src[offset], params, pad);
        que.EnQue(local);
    }
    __aicore__ inline void CopyOutChunk(AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> &que,
                                        AscendC::GlobalTensor<T> &dst, uint64_t offset, uint32_t len)
    {
        AscendC::LocalTensor<T> local = que.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        if (rowEndsUnaligned) {
            // The previous copy-out ends inside the 32 B GM block this one starts in: keep them in order.
            AscendC::PipeBarrier<PIPE_MTE3>();
        }
        AscendC::DataCopyPad(dst[offset], local, params);
        que.FreeTensor(local);
    }
    // fp16/bf16: x1 + x2 widened and added in fp32 in the first scratch row (the second is clobbered).
    __aicore__ inline AscendC::LocalTensor<float> SumToFloat(const AscendC::LocalTensor<T> &x1Local,
                                                             const AscendC::LocalTensor<T> &x2Local, uint32_t len)
    {
        AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
        AscendC::LocalTensor<float> tF = xF[sliceLen];
        AscendC::Cast(xF, x1Local, AscendC::RoundMode::CAST_NONE, len);
        AscendC::Cast(tF, x2Local, AscendC::RoundMode::CAST_NONE, len);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(xF, xF, tF, static_cast<int32_t>(len));
        AscendC::PipeBarrier<PIPE_V>();
        return xF;
    }

    // ---------------- shared helpers ----------------
    // Sum of the first n fp32 elements, read back by the scalar unit.
    __aicore__ inline float SumOf(const AscendC::LocalTensor<float> &src, int32_t n)
    {
        AscendC::LocalTensor<float> red = redBuf.Get<float>();
        AscendC::ReduceSum<float>(red, src, workBuf.Get<float>(), n);
        return ReadScalar(red);
    }
    // 1 / sqrt(sumSq / cols + epsilon). Sqrt runs on the vector unit (Rsqrt is documented as not meeting
    // fp32 accuracy); the reciprocal is a scalar division.
    __aicore__ inline float Rstd(float sumSq)
    {
        AscendC::LocalTensor<float> red = redBuf.Get<float>();
        AscendC::Duplicate(red, sumSq * avgFactor + epsilon, static_cast<int32_t>(BLOCK_FLOATS));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Sqrt(red, red, static_cast<int32_t>(BLOCK_FLOATS));
        return 1.0f / ReadScalar(red);
    }
    // A vector result read by the scalar unit: wait for the vector pipe before the read, and keep the next
    // vector write to the same block behind the read.
    __aicore__ inline float ReadScalar(const AscendC::LocalTensor<float> &red)
    {
        AscendC::TEventID eventVS = pipe.FetchEventID(AscendC::HardEvent::V_S);
        AscendC::SetFlag<AscendC::HardEvent::V_S>(eventVS);
        AscendC::WaitFlag<AscendC::HardEvent::V_S>(eventVS);
        float value = red.GetValue(0);
        AscendC::TEventID eventSV = pipe.FetchEventID(AscendC::HardEvent::S_V);
        AscendC::SetFlag<AscendC::HardEvent::S_V>(eventSV);
        AscendC::WaitFlag<AscendC::HardEvent::S_V>(eventSV);
        return value;
    }
    // Data copied into a TBuf (no queue to synchronise it) must land before the vector unit reads it.
    __aicore__ inline void WaitMte2ForVector()
    {
        AscendC::TEventID eventId = pipe.FetchEventID(AscendC::HardEvent::MTE2_V);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(eventId);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(eventId);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX1, inQueueX2, inQueueGamma;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY, outQueueXOut;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> weightBuf, calcBuf, workBuf, redBuf;
    AscendC::GlobalTensor<T> x1Gm, x2Gm, gammaGm, yGm, xOutGm;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    bool rowEndsUnaligned = false;  // a row's GM end is not 32 B aligned
    uint32_t sliceLen = 0;
    uint32_t rowCount = 0;
    uint32_t rowsPerTile = 0;
    uint32_t splitRow = 0;
    uint32_t colTile = 0;
    float epsilon = 0.0f;
    float avgFactor = 0.0f;
};

extern "C" __global__ __aicore__ void add_rms_norm_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y,
                                                          GM_ADDR x_out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddRmsNorm<DTYPE_X1> op;
    op.Init(x1, x2, gamma, y, x_out, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.remainderRows, tilingData.rowsPerTile, tilingData.splitRow, tilingData.colTile,
            tilingData.epsilon, tilingData.avgFactor);
    op.Process();
}
