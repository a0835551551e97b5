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

// y = x * rsqrt(mean(x^2) + epsilon) * gamma along the last axis.
// Whole-row mode: gamma is loaded once (as fp32); rowsPerTile full rows per UB tile, one pass over GM.
// Split-row mode (a row does not fit in UB): each row is streamed in colTile chunks twice
// (sum of squares, then output with gamma streamed alongside).
template <typename T>
class KernelRmsNorm {
    static constexpr bool WIDEN = !AscendC::IsSameType<T, float>::value;  // fp16/bf16 are computed in fp32

public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, uint32_t cols, uint32_t colsAligned,
                                uint32_t rowsPerCore, uint32_t remainderRows, uint32_t rowsPerTile, uint32_t splitRow,
                                uint32_t colTile, float epsilon, float avgFactor)
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
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, static_cast<uint64_t>(rowCount) * cols);
        gammaGm.SetGlobalBuffer((__gm__ T *)gamma, cols);

        sliceLen = splitRow ? colTile : colsAligned;  // elements of one row (slice) in UB
        uint32_t tileLen = splitRow ? colTile : rowsPerTile * colsAligned;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLen * sizeof(T));
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
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        // nRows blocks of cols elements; each lands 32 B aligned in UB, i.e. at stride colsAligned.
        AscendC::DataCopyExtParams params{static_cast<uint16_t>(nRows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0,
                                          0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[static_cast<uint64_t>(row) * cols], params, pad);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void ComputeRows(uint32_t nRows)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::LocalTensor<float> gammaF = weightBuf.Get<float>();
        int32_t n = static_cast<int32_t>(cols);
        for (uint32_t r = 0; r < nRows; r++) {
            // Only the first cols elements of a row enter the computation; the 32 B padding never does.
            AscendC::LocalTensor<T> xRow = xLocal[r * colsAligned];
            AscendC::LocalTensor<T> yRow = yLocal[r * colsAligned];
            if constexpr (WIDEN) {
                AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
                AscendC::LocalTensor<float> sqF = xF[sliceLen];
                AscendC::Cast(xF, xRow, AscendC::RoundMode::CAST_NONE, cols);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(sqF, xF, xF, n);
                AscendC::PipeBarrier<PIPE_V>();
                float rstd = Rstd(SumOf(sqF, cols));
                AscendC::Muls(xF, xF, rstd, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(xF, xF, gammaF, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Cast(yRow, xF, AscendC::RoundMode::CAST_RINT, cols);
                AscendC::PipeBarrier<PIPE_V>();
            } else {
                AscendC::Mul(yRow, xRow, xRow, n);  // y row doubles as the x^2 scratch
                AscendC::PipeBarrier<PIPE_V>();
                float rstd = Rstd(SumOf(yRow, cols));
                AscendC::Muls(yRow, xRow, rstd, n);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(yRow, yRow, gammaF, n);
                AscendC::PipeBarrier<PIPE_V>();
            }
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOutRows(uint32_t row, uint32_t nRows)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams params{static_cast<uint16_t>(nRows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0,
                                          0};
        if (rowEndsUnaligned) {
            // The previous copy-out ends inside the 32 B GM block this one starts in: keep them in order.
            AscendC::PipeBarrier<PIPE_MTE3>();
        }
        AscendC::DataCopyPad(yGm[static_cast<uint64_t>(row) * cols], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    // ---------------- split-row mode ----------------
    __aicore__ inline void ProcessSplitRows()
    {
        uint32_t chunks = (cols + colTile - 1) / colTile;
        for (uint32_t row = 0; row < rowCount; row++) {
            uint64_t rowOffset = static_cast<uint64_t>(row) * cols;
            // Pass 1: sum of squares.
            float sumSq = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                CopyInChunk(inQueueX, xGm, rowOffset + static_cast<uint64_t>(c) * colTile, len);
                AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<float> xF = ToFloat(xLocal, 0, len);
                AscendC::Mul(xF, xF, xF, static_cast<int32_t>(len));  // in place: x is not needed again here
                AscendC::PipeBarrier<PIPE_V>();
                sumSq += SumOf(xF, len);
                inQueueX.FreeTensor(xLocal);
            }
            float rstd = Rstd(sumSq);
            // Pass 2: y = x * rstd * gamma.
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                uint64_t offset = rowOffset + static_cast<uint64_t>(c) * colTile;
                CopyInChunk(inQueueX, xGm, offset, len);
                CopyInChunk(inQueueGamma, gammaGm, static_cast<uint64_t>(c) * colTile, len);
                AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<T> gLocal = inQueueGamma.DeQue<T>();
                AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
                int32_t n = static_cast<int32_t>(len);
                if constexpr (WIDEN) {
                    AscendC::LocalTensor<float> xF = ToFloat(xLocal, 0, len);
                    AscendC::LocalTensor<float> gF = ToFloat(gLocal, sliceLen, len);
                    AscendC::Muls(xF, xF, rstd, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(xF, xF, gF, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Cast(yLocal, xF, AscendC::RoundMode::CAST_RINT, len);
                } else {
                    AscendC::Muls(yLocal, xLocal, rstd, n);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Mul(yLocal, yLocal, gLocal, n);
                }
                outQueueY.EnQue<T>(yLocal);
                inQueueX.FreeTensor(xLocal);
                inQueueGamma.FreeTensor(gLocal);
                CopyOutChunk(offset, len);
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
    __aicore__ inline void CopyOutChunk(uint64_t offset, uint32_t len)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        if (rowEndsUnaligned) {
            // The previous copy-out ends inside the 32 B GM block this one starts in: keep them in order.
            AscendC::PipeBarrier<PIPE_MTE3>();
        }
        AscendC::DataCopyPad(yGm[offset], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }
    // A chunk as fp32: widened into scratch row `slot` (0 or sliceLen) for fp16/bf16, the buffer itself for fp32.
    __aicore__ inline AscendC::LocalTensor<float> ToFloat(const AscendC::LocalTensor<T> &local, uint32_t slot,
                                                          uint32_t len)
    {
        if constexpr (WIDEN) {
            AscendC::LocalTensor<float> f = calcBuf.Get<float>()[slot];
            AscendC::Cast(f, local, AscendC::RoundMode::CAST_NONE, len);
            AscendC::PipeBarrier<PIPE_V>();
            return f;
        } else {
            return local;
        }
    }

    // ---------------- shared helpers ----------------
    // Sum of the first len fp32 elements, read back by the scalar unit.
    __aicore__ inline float SumOf(const AscendC::LocalTensor<float> &src, uint32_t len)
    {
        AscendC::LocalTensor<float> red = redBuf.Get<float>();
        AscendC::ReduceSum<float>(red, src, workBuf.Get<float>(), static_cast<int32_t>(len));
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
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueGamma;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> weightBuf, calcBuf, workBuf, redBuf;
    AscendC::GlobalTensor<T> xGm, gammaGm, yGm;
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

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRmsNorm<DTYPE_X> op;
    op.Init(x, gamma, y, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore, tilingData.remainderRows,
            tilingData.rowsPerTile, tilingData.splitRow, tilingData.colTile, tilingData.epsilon,
            tilingData.avgFactor);
    op.Process();
}
