#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;        // double buffering: copy-in of tile i+1 overlaps compute of tile i
constexpr uint32_t BLOCK_BYTES = 32;     // UB addresses and GM<->UB copies work in 32 B blocks
constexpr uint32_t REPEAT_FLOATS = 64;   // fp32 elements per 256 B vector repeat
constexpr uint32_t BLOCK_FLOATS = 8;     // fp32 elements per 32 B block

// sharedTmpBuffer of the count-form ReduceMax/ReduceSum on n fp32 elements (the host mirrors this).
__aicore__ inline uint32_t ReduceWorkElems(uint32_t n)
{
    uint32_t words = (n + REPEAT_FLOATS - 1) / REPEAT_FLOATS * 2;
    return (words + BLOCK_FLOATS - 1) / BLOCK_FLOATS * BLOCK_FLOATS;
}

// y = exp(x - max(x)) / sum(exp(x - max(x))) along the last axis.
// Whole-row mode: rowsPerTile full rows per UB tile, one pass over GM.
// Split-row mode (a row does not fit in UB): each row is streamed in colTile chunks three times
// (row max, sum of exponentials, output).
template <typename T>
class KernelSoftmax {
    static constexpr bool WIDEN = !AscendC::IsSameType<T, float>::value;  // fp16/bf16 are computed in fp32

public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t colsAligned, uint32_t rowsPerCore,
                                uint32_t remainderRows, uint32_t rowsPerTile, uint32_t splitRow, uint32_t colTile)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowEndsUnaligned = (cols * sizeof(T)) % BLOCK_BYTES != 0;
        this->rowsPerTile = rowsPerTile;
        this->splitRow = splitRow;
        this->colTile = colTile;
        this->rowCount = rowsPerCore + (blockIdx < remainderRows ? 1 : 0);
        uint64_t rowStart = static_cast<uint64_t>(blockIdx) * rowsPerCore +
                            (blockIdx < remainderRows ? blockIdx : remainderRows);
        uint64_t offset = rowStart * cols;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, static_cast<uint64_t>(rowCount) * cols);

        uint32_t sliceLen = splitRow ? colTile : colsAligned;  // elements of one row (slice) in UB
        uint32_t tileLen = splitRow ? colTile : rowsPerTile * colsAligned;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLen * sizeof(T));
        if constexpr (WIDEN) {
            pipe.InitBuffer(calcBuf, sliceLen * sizeof(float));
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
            ProcessWholeRows();
        }
    }

private:
    // ---------------- whole-row mode ----------------
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
        for (uint32_t r = 0; r < nRows; r++) {
            // Only the first cols elements of a row enter the computation; the 32 B padding never does.
            AscendC::LocalTensor<T> xRow = xLocal[r * colsAligned];
            AscendC::LocalTensor<T> yRow = yLocal[r * colsAligned];
            if constexpr (WIDEN) {
                AscendC::LocalTensor<float> rowF = calcBuf.Get<float>();
                AscendC::Cast(rowF, xRow, AscendC::RoundMode::CAST_NONE, cols);
                AscendC::PipeBarrier<PIPE_V>();
                SoftmaxRow(rowF, rowF);
                AscendC::Cast(yRow, rowF, AscendC::RoundMode::CAST_RINT, cols);
                AscendC::PipeBarrier<PIPE_V>();
            } else {
                SoftmaxRow(yRow, xRow);
            }
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    // dst = softmax(src) over cols fp32 elements; dst may alias src.
    __aicore__ inline void SoftmaxRow(const AscendC::LocalTensor<float> &dst, const AscendC::LocalTensor<float> &src)
    {
        AscendC::LocalTensor<float> red = redBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::ReduceMax<float>(red, src, work, static_cast<int32_t>(cols), false);
        float rowMax = ReadScalar(red);
        AscendC::Adds(dst, src, -rowMax, static_cast<int32_t>(cols));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Exp(dst, dst, static_cast<int32_t>(cols));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum<float>(red, dst, work, static_cast<int32_t>(cols));
        float rowSum = ReadScalar(red);  // >= 1: the max element contributes exp(0)
        AscendC::Muls(dst, dst, 1.0f / rowSum, static_cast<int32_t>(cols));
        AscendC::PipeBarrier<PIPE_V>();
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
            // Pass 1: row max.
            float rowMax = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                CopyInChunk(rowOffset + static_cast<uint64_t>(c) * colTile, len);
                AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<float> src = ToFloat(xLocal, len);
                AscendC::ReduceMax<float>(redBuf.Get<float>(), src, workBuf.Get<float>(), static_cast<int32_t>(len),
                                          false);
                float chunkMax = ReadScalar(redBuf.Get<float>());
                rowMax = (c == 0 || chunkMax > rowMax) ? chunkMax : rowMax;
                inQueueX.FreeTensor(xLocal);
            }
            // Pass 2: sum of exp(x - max).
            float rowSum = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                CopyInChunk(rowOffset + static_cast<uint64_t>(c) * colTile, len);
                AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<float> val = ToFloat(xLocal, len);  // fp32: x's own buffer, overwritten
                AscendC::Adds(val, val, -rowMax, static_cast<int32_t>(len));
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Exp(val, val, static_cast<int32_t>(len));
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::ReduceSum<float>(redBuf.Get<float>(), val, workBuf.Get<float>(), static_cast<int32_t>(len));
                rowSum += ReadScalar(redBuf.Get<float>());
                inQueueX.FreeTensor(xLocal);
            }
            // Pass 3: y = exp(x - max) / sum.
            float scale = 1.0f / rowSum;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t len = ChunkLen(c);
                uint64_t offset = rowOffset + static_cast<uint64_t>(c) * colTile;
                CopyInChunk(offset, len);
                AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
                AscendC::LocalTensor<float> val = ToFloat(xLocal, len);
                AscendC::Adds(val, val, -rowMax, static_cast<int32_t>(len));
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Exp(val, val, static_cast<int32_t>(len));
                AscendC::PipeBarrier<PIPE_V>();
                if constexpr (WIDEN) {
                    AscendC::Muls(val, val, scale, static_cast<int32_t>(len));
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Cast(yLocal, val, AscendC::RoundMode::CAST_RINT, len);
                } else {
                    AscendC::Muls(yLocal, val, scale, static_cast<int32_t>(len));
                }
                outQueueY.EnQue<T>(yLocal);
                inQueueX.FreeTensor(xLocal);
                CopyOutChunk(offset, len);
            }
        }
    }
    __aicore__ inline uint32_t ChunkLen(uint32_t c)
    {
        uint32_t start = c * colTile;
        return (cols - start) < colTile ? (cols - start) : colTile;
    }
    __aicore__ inline void CopyInChunk(uint64_t offset, uint32_t len)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], params, pad);
        inQueueX.EnQue(xLocal);
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
    // The chunk as fp32: widened into calcBuf for fp16/bf16, the input buffer itself for fp32.
    __aicore__ inline AscendC::LocalTensor<float> ToFloat(const AscendC::LocalTensor<T> &xLocal, uint32_t len)
    {
        if constexpr (WIDEN) {
            AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
            AscendC::Cast(xF, xLocal, AscendC::RoundMode::CAST_NONE, len);
            AscendC::PipeBarrier<PIPE_V>();
            return xF;
        } else {
            return xLocal;
        }
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

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> calcBuf, workBuf, redBuf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    bool rowEndsUnaligned = false;  // a row's GM end is not 32 B aligned
    uint32_t rowCount = 0;
    uint32_t rowsPerTile = 0;
    uint32_t splitRow = 0;
    uint32_t colTile = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax<DTYPE_X> op;
    op.Init(x, y, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore, tilingData.remainderRows,
            tilingData.rowsPerTile, tilingData.splitRow, tilingData.colTile);
    op.Process();
}
