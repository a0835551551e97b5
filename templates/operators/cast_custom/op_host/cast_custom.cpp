#include "cast_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;  // elements per UB tile
constexpr uint32_t BUFFER_NUM = 2;      // must match the kernel's BUFFER_NUM
constexpr uint32_t BLOCK_BYTES = 32;    // GM<->UB copies move whole 32 B blocks
constexpr uint32_t MIN_BLOCK_BYTES = 8192;  // below this a core is not worth starting (counted on the narrower side)

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    CastCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t xTypeSize = static_cast<uint32_t>(ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType()));
    uint32_t yTypeSize = static_cast<uint32_t>(ge::GetSizeByDataType(context->GetOutputDesc(0)->GetDataType()));
    if (xTypeSize == 0 || yTypeSize == 0 || totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    // Chunks and tiles must start on 32 B for both tensors: align to the narrower element type.
    uint32_t minTypeSize = xTypeSize < yTypeSize ? xTypeSize : yTypeSize;
    uint32_t alignElems = BLOCK_BYTES / minTypeSize;

    // Split over cores in whole aligned blocks; small inputs use fewer cores.
    uint32_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
    uint32_t minBlocksPerCore = MIN_BLOCK_BYTES / BLOCK_BYTES;
    uint32_t usedCores = (totalBlocks + minBlocksPerCore - 1) / minBlocksPerCore;
    usedCores = usedCores < coreNum ? usedCores : coreNum;
    usedCores = usedCores == 0 ? 1 : usedCores;
    uint32_t blockLength = (totalBlocks + usedCores - 1) / usedCores * alignElems;
    usedCores = (totalLength + blockLength - 1) / blockLength;

    // Two queues (x, y) of different element sizes, BUFFER_NUM buffers each; Cast goes straight from one to the other.
    uint32_t bytesPerElem = BUFFER_NUM * (xTypeSize + yTypeSize);
    uint32_t maxTile = static_cast<uint32_t>(ubSize / bytesPerElem) / alignElems * alignElems;
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    tileLength = tileLength < blockLength ? tileLength : blockLength;

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
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
    // The two declared columns: fp16 -> fp32 and fp32 -> fp16.
    ge::DataType xType = context->GetInputDataType(0);
    context->SetOutputDataType(0, xType == ge::DT_FLOAT16 ? ge::DT_FLOAT : ge::DT_FLOAT16);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class CastCustom : public OpDef {
public:
    explicit CastCustom(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(CastCustom);
}  // namespace ops
