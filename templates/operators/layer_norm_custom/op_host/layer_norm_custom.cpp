#include "layer_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ROWS_PER_TILE = 8;         // upper bound on rows per UB tile  // ascendopt: knob values=1,2,4,8,16,32,64
constexpr uint32_t BUFFER_NUM = 2;            // must match the kernel's BUFFER_NUM
constexpr uint32_t BLOCK_BYTES = 32;          // GM<->UB copies and UB addresses work in 32 B blocks
constexpr uint32_t REPEAT_BYTES = 256;        // one vector repeat
constexpr uint32_t MIN_CORE_BYTES = 8192;     // below this much input a core is not worth starting
constexpr uint32_t UB_RESERVED_BYTES = 8192;  // headroom left out of the UB budget
constexpr uint32_t MAX_COPY_ROWS = 4095;      // DataCopyPad blockCount limit
constexpr float DEFAULT_EPSILON = 1e-5f;

static inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static inline uint64_t MinU64(uint64_t a, uint64_t b) { return a < b ? a : b; }

// sharedTmpBuffer of ReduceSum (count form, fp32) for n elements: sized like ReduceMax's (two values per
// 256 B repeat, rounded up to 32 B), which covers every ReduceSum variant. Mirrored by the kernel.
static inline uint64_t ReduceWorkBytes(uint64_t n)
{
    uint64_t perRepeat = REPEAT_BYTES / sizeof(float);
    uint64_t perBlock = BLOCK_BYTES / sizeof(float);
    return AlignUp((n + perRepeat - 1) / perRepeat * 2, perBlock) * sizeof(float);
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    LayerNormCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const gert::Shape &xShape = context->GetInputShape(0)->GetStorageShape();
    size_t dimNum = xShape.GetDimNum();
    uint64_t total = static_cast<uint64_t>(xShape.GetShapeSize());
    uint32_t typeSize = static_cast<uint32_t>(ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType()));
    if (dimNum == 0 || total == 0 || typeSize == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = static_cast<uint32_t>(xShape.GetDim(dimNum - 1));
    uint32_t rows = static_cast<uint32_t>(total / cols);
    if (static_cast<uint64_t>(context->GetInputShape(1)->GetStorageShape().GetShapeSize()) != cols ||
        static_cast<uint64_t>(context->GetInputShape(2)->GetStorageShape().GetShapeSize()) != cols) {
        return ge::GRAPH_FAILED;  // gamma and beta must hold exactly one value per column
    }
    const float *epsAttr = context->GetAttrs()->GetFloat(0);
    float epsilon = epsAttr != nullptr ? *epsAttr : DEFAULT_EPSILON;

    bool widen = typeSize != sizeof(float);  // fp16/bf16 are computed in fp32
    uint32_t alignElems = BLOCK_BYTES / typeSize;
    uint32_t colsAligned = static_cast<uint32_t>(AlignUp(cols, alignElems));

    // Rows are independent: split them over cores, at least MIN_CORE_BYTES of input per core.
    uint64_t rowBytes = static_cast<uint64_t>(cols) * typeSize;
    uint64_t minRows = (MIN_CORE_BYTES + rowBytes - 1) / rowBytes;
    uint32_t usedCores = static_cast<uint32_t>(MinU64((rows + minRows - 1) / minRows, coreNum));
    usedCores = usedCores == 0 ? 1 : usedCores;
    uint32_t rowsPerCore = rows / usedCores;
    uint32_t remainderRows = rows % usedCores;
    uint32_t maxCoreRows = rowsPerCore + (remainderRows > 0 ? 1 : 0);

    uint64_t budget = ubSize > UB_RESERVED_BYTES ? ubSize - UB_RESERVED_BYTES : 0;
    // Whole-row mode. Per tile row: x and y queues, BUFFER_NUM buffers each.
    // Fixed: gamma and beta as fp32, two fp32 scratch rows (fp16/bf16 only), reduction work space, one result block.
    uint64_t perRowBytes = 2ULL * BUFFER_NUM * colsAligned * typeSize;
    uint64_t fixedBytes = static_cast<uint64_t>(colsAligned) * sizeof(float) * (widen ? 4 : 2) +
                          ReduceWorkBytes(cols) + BLOCK_BYTES;
    uint64_t rowsPerTile = budget > fixedBytes ? (budget - fixedBytes) / perRowBytes : 0;
    rowsPerTile = MinU64(MinU64(rowsPerTile, ROWS_PER_TILE), MinU64(maxCoreRows, MAX_COPY_ROWS));

    uint32_t splitRow = 0;
    uint64_t colTile = colsAligned;
    if (rowsPerTile == 0) {
        // A row does not fit: stream it in chunks, two passes over GM (mean and variance merged chunk by chunk,
        // then the output). Per chunk element: x, gamma, beta and y queues (BUFFER_NUM each) + two fp32 scratch
        // (fp16/bf16 only).
        splitRow = 1;
        rowsPerTile = 1;
        uint64_t perElemBytes = 4ULL * BUFFER_NUM * typeSize + (widen ? 2 * sizeof(float) : 0);
        uint64_t reserve = ReduceWorkBytes(budget / perElemBytes) + BLOCK_BYTES;
        uint64_t chunkAlign = REPEAT_BYTES / typeSize;
        colTile = budget > reserve ? (budget - reserve) / perElemBytes / chunkAlign * chunkAlign : 0;
        if (colTile == 0) {
            return ge::GRAPH_FAILED;  // UB too small even for one chunk
        }
    }

    tiling.set_cols(cols);
    tiling.set_colsAligned(colsAligned);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_remainderRows(remainderRows);
    tiling.set_rowsPerTile(static_cast<uint32_t>(rowsPerTile));
    tiling.set_splitRow(splitRow);
    tiling.set_colTile(static_cast<uint32_t>(colTile));
    tiling.set_epsilon(epsilon);
    tiling.set_avgFactor(1.0f / static_cast<float>(cols));
    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *xShape = context->GetInputShape(0);
    gert::Shape *yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LayerNormCustom : public OpDef {
public:
    explicit LayerNormCustom(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("beta")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(LayerNormCustom);
}  // namespace ops
