// AscendOptimizer CPU twin: ops-base's tiling template class (Ops::Base::TilingBaseClass), the base of the
// tiling classes CANN's open repos register per operator (TilingRegistry / *_templates_registry.h).
// DoTiling runs the steps in the documented order; IsCapable() false yields GRAPH_PARAM_INVALID so that a
// registry tries the next class; on success the class's GetTilingKey() is set on the context.
#ifndef ASCENDOPT_TWIN_OPBASE_TILING_BASE_CLASS_H
#define ASCENDOPT_TWIN_OPBASE_TILING_BASE_CLASS_H

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "ascendopt_twin/host.h"
#include "op_common/log/log.h"

#define ASCENDC_EXTERN_C

namespace Ops {
namespace Base {
struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t numBlocks = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

struct CompileInfoCommon {
    uint32_t aivNum;
    uint32_t aicNum;
    uint64_t ubSize;
    uint64_t l1Size;
    uint64_t l0aSize;
    uint64_t l0bSize;
    uint64_t l0cSize;
    uint64_t l2CacheSize;
    int64_t coreNum;
    int32_t socVersion;
    uint32_t rsvd;
};

class TilingBaseClass {
public:
    explicit TilingBaseClass(gert::TilingContext *context) : context_(context) {}
    virtual ~TilingBaseClass() = default;

    ge::graphStatus DoTiling()
    {
        if (context_ == nullptr) return ge::GRAPH_FAILED;
        ge::graphStatus ret = GetShapeAttrsInfo();
        if (ret != ge::GRAPH_SUCCESS) return ret;
        if ((ret = GetPlatformInfo()) != ge::GRAPH_SUCCESS) return ret;
        if (!IsCapable()) return ge::GRAPH_PARAM_INVALID;
        if ((ret = DoOpTiling()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = DoLibApiTiling()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = GetWorkspaceSize()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = PostTiling()) != ge::GRAPH_SUCCESS) return ret;
        context_->SetTilingKey(GetTilingKey());
        DumpTilingInfo();
        return ge::GRAPH_SUCCESS;
    }
    virtual void Reset(gert::TilingContext *context) { context_ = context; }

protected:
    virtual bool IsCapable() = 0;
    virtual ge::graphStatus GetPlatformInfo() = 0;
    virtual ge::graphStatus GetShapeAttrsInfo() = 0;
    virtual ge::graphStatus DoOpTiling() = 0;
    virtual ge::graphStatus DoLibApiTiling() = 0;
    [[nodiscard]] virtual uint64_t GetTilingKey() const = 0;
    virtual ge::graphStatus GetWorkspaceSize() = 0;
    virtual ge::graphStatus PostTiling() = 0;
    virtual void DumpTilingInfo() {}

    // Blocks when each AI Core holds aiv/aic vector cores (the ratio rounds the slice count up).
    static uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum)
    {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }
    template <typename T> [[nodiscard]] std::string GetShapeDebugStr(const T &shape) const
    {
        std::ostringstream oss;
        oss << "[";
        for (size_t i = 0; i < shape.GetDimNum(); ++i) oss << (i ? ", " : "") << shape.GetDim(i);
        oss << "]";
        return oss.str();
    }

    gert::TilingContext *context_ = nullptr;
    std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_{nullptr};
    uint32_t blockDim_{0};
    uint64_t workspaceSize_{0};
    uint64_t tilingKey_{0};
    AiCoreParams aicoreParams_;
};
}  // namespace Base
}  // namespace Ops

#endif
