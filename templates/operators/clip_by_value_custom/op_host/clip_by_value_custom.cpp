#include "clip_by_value_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;  // elements per UB tile
constexpr uint32_t BUFFER_NUM = 2;      // must match the kernel's BUFFER_NUM
constexpr uint32_t BLOCK_BYTES = 32;    // GM<->UB copies move whole 32 B blocks
constexpr uint32_t MIN_BLOCK_BYTES = 8192;  // below this a core is not worth starting
constexpr float DEFAULT_CLIP_MIN = -1.0f;   // must match the OpDef defaults
constexpr float DEFAULT_CLIP_MAX = 1.0f;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ClipByValueCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = static_cast<uint32_t>(ge::GetSizeByDataType(dtype));
    if (typeSize == 0 || totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    float clipMin = DEFAULT_CLIP_MIN;
    float clipMax = DEFAULT_CLIP_MAX;
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (attrs != nullptr) {
        const float *minAttr = attrs->GetFloat(0);
        const float *maxAttr = attrs->GetFloat(1);
        if (minAttr != nullptr) {
            clipMin = *minAttr;
        }
        if (maxAttr != nullptr) {
            clipMax = *maxAttr;
        }
    }
    uint32_t alignElems = BLOCK_BYTES / typeSize;

    // Split over cores in whole 32 B blocks; small inputs use fewer cores.
    uint32_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
    uint32_t minBlocksPerCore = MIN_BLOCK_BYTES / BLOCK_BYTES;
    uint32_t usedCores = (totalBlocks + minBlocksPerCore - 1) / minBlocksPerCore;
    usedCores = usedCores < coreNum ? usedCores : coreNum;
    usedCores = usedCores == 0 ? 1 : usedCores;
    uint32_t blockLength = (totalBlocks + usedCores - 1) / usedCores * alignElems;
    usedCores = (totalLength + blockLength - 1) / blockLength;

    // Two queues (x, y), BUFFER_NUM buffers each; bf16 is computed in one fp32 tile.
    uint32_t calcBytes = (dtype == ge::DT_BF16) ? sizeof(float) : 0;
    uint32_t bytesPerElem = BUFFER_NUM * 2 * typeSize + calcBytes;
    uint32_t maxTile = static_cast<uint32_t>(ubSize / bytesPerElem) / alignElems * alignElems;
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    tileLength = tileLength < blockLength ? tileLength : blockLength;

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_clipMin(clipMin);
    tiling.set_clipMax(clipMax);
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
class ClipByValueCustom : public OpDef {
public:
    explicit ClipByValueCustom(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("clip_min").AttrType(OPTIONAL).Float(-1.0);
        this->Attr("clip_max").AttrType(OPTIONAL).Float(1.0);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ClipByValueCustom);
}  // namespace ops
