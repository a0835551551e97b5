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

__aicore__ inline uint32_t RoundUpTo(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// y[row] = sum(x[row, :]) over the last axis; fp16 input is accumulated in fp32 and rounded once.
// Whole-row mode: rowsPerTile full rows per UB tile; each row's sum is written straight into the output
// tile (fp32) or an fp32 sum vector that is cast once per tile (fp16), and the tile's sums go out in one copy.
// Split-row mode (a row does not fit in UB): the row is streamed in colTile chunks whose sums are added
// by the scalar unit; one output value per row.
template <typename T>
class KernelReduceSum {
    static constexpr bool WIDEN = !AscendC::IsSameType<T, float>::value;  // fp16 is accumulated in fp32

public:
    __aicore__ inline KernelReduceSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t colsAligned, uint32_t rowsPerCore,
                                uint32_t remainderRows, uint32_t rowsPerTile, uint32_t splitRow, uint32_t colTile)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowsPerTile = rowsPerTile;
        this->splitRow = splitRow;
        this->colTile = colTile;
        this->rowCount = rowsPerCore + (blockIdx < remainderRows ? 1 : 0);
        uint64_t rowStart = static_cast<uint64_t>(blockIdx) * rowsPerCore +
                            (blockIdx < remainderRows ? blockIdx : remainderRows);
        xGm.SetGlobalBuffer((__gm__ T *)x + rowStart * cols, static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + rowStart, rowCount);

        uint32_t sliceLen = splitRow ? colTile : colsAligned;  // elements of one row (slice) in UB
        uint32_t tileLen = splitRow ? colTile : rowsPerTile * colsAligned;
        uint32_t outLen = splitRow ? 1 : rowsPerTile;           // output values per tile
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, RoundUpTo(outLen * sizeof(T), BLOCK_BYTES));
        if constexpr (WIDEN) {
            pipe.InitBuffer(calcBuf, sliceLen * sizeof(float));
            pipe.InitBuffer(sumBuf, RoundUpTo(outLen, BLOCK_FLOATS) * sizeof(float));
        }
        pipe.InitBuffer(workBuf, ReduceWorkElems(splitRow ? colTile : cols) * sizeof(float));
        if (splitRow) {
            pipe.InitBuffer(redBuf, BLOCK_BYTES);
        }
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
            CopyOut(row, nRows);
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
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        int32_t n = static_cast<int32_t>(cols);
        for (uint32_t r = 0; r < nRows; r++) {
            // Only the first cols elements of a row are summed; the 32 B padding never is.
            AscendC::LocalTensor<T> xRow = xLocal[r * colsAligned];
            if constexpr (WIDEN) {
                AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
                AscendC::Cast(xF, xRow, AscendC::RoundMode::CAST_NONE, cols);
                AscendC::PipeBarrier<PIPE_V>();
                // ReduceSum's dst needs only 4 B alignment for fp32: write sum r in place.
                AscendC::ReduceSum<float>(sumBuf.Get<float>()[r], xF, work, n);
                AscendC::PipeBarrier<PIPE_V>();
            } else {
                AscendC::ReduceSum<float>(yLocal[r], xRow, work, n);
                AscendC::PipeBarrier<PIPE_V>();
            }
        }
        if constexpr (WIDEN) {
            AscendC::Cast(yLocal, sumBuf.Get<float>(), AscendC::RoundMode::CAST_RINT, nRows);
            AscendC::PipeBarrier<PIPE_V>();
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row, uint32_t nValues)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(nValues * sizeof(T)), 0, 0, 0};
        // Consecutive copy-outs of a few sums usually share a 32 B GM block: keep them in order.
        AscendC::PipeBarrier<PIPE_MTE3>();
        AscendC::DataCopyPad(yGm[row], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    // ---------------- split-row mode ----------------
    __aicore__ inline void ProcessSplitRows()
    {
        uint32_t chunks = (cols + colTile - 1) / colTile;
        AscendC::LocalTensor<float> red = redBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        for (uint32_t row = 0; row < rowCount; row++) {
            uint64_t rowOffset = static_cast<uint64_t>(row) * cols;
            float rowSum = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t start = c * colTile;
                uint32_t len = (cols - start) < colTile ? (cols - start) : colTile;
                AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
                AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
                AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
                AscendC::DataCopyPad(xLocal, xGm[rowOffset + start], params, pad);
                inQueueX.EnQue(xLocal);
                xLocal = inQueueX.DeQue<T>();
                if constexpr (WIDEN) {
                    AscendC::LocalTensor<float> xF = calcBuf.Get<float>();
                    AscendC::Cast(xF, xLocal, AscendC::RoundMode::CAST_NONE, len);
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::ReduceSum<float>(red, xF, work, static_cast<int32_t>(len));
                } else {
                    AscendC::ReduceSum<float>(red, xLocal, work, static_cast<int32_t>(len));
                }
                rowSum += ReadScalar(red);
                inQueueX.FreeTensor(xLocal);
            }
            // The scalar sum goes back to the vector side through Duplicate (a scalar operand, no S->V sync).
            AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
            if constexpr (WIDEN) {
                AscendC::LocalTensor<float> sumF = sumBuf.Get<float>();
                AscendC::Duplicate(sumF, rowSum, static_cast<int32_t>(BLOCK_FLOATS));
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Cast(yLocal, sumF, AscendC::RoundMode::CAST_RINT, BLOCK_FLOATS);
            } else {
                AscendC::Duplicate(yLocal, rowSum, static_cast<int32_t>(BLOCK_FLOATS));
            }
            outQueueY.EnQue<T>(yLocal);
            CopyOut(row, 1);
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
    AscendC::TBuf<AscendC::QuePosition::VECCALC> calcBuf, sumBuf, workBuf, redBuf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowCount = 0;
    uint32_t rowsPerTile = 0;
    uint32_t splitRow = 0;
    uint32_t colTile = 0;
};

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceSum<DTYPE_X> op;
    op.Init(x, y, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore, tilingData.remainderRows,
            tilingData.rowsPerTile, tilingData.splitRow, tilingData.colTile);
    op.Process();
}
