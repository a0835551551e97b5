// AscendOptimizer CPU twin, host side: the tiling template class CANN's host frameworks derive per-operator
// tiling classes from. Two spellings exist, the open repos' `optiling::TilingBaseClass` (tiling/tiling_base.h,
// AiCoreParams::blockDim) and ops-base's `Ops::Base::TilingBaseClass` (AiCoreParams::numBlocks); both are this
// template over their AiCoreParams. DoTiling runs the hooks in the documented order and stops at the first
// status other than GRAPH_SUCCESS; IsCapable() false yields GRAPH_PARAM_INVALID, which tells a registry to try
// the next class; on success the class's GetTilingKey() is set on the context. In gert::host_detail, not the
// twin's poisoned namespace: a kernel build reaches it through an op_host tiling header after the seal.
#ifndef ASCENDOPT_TWIN_HOST_TILING_CLASS_H
#define ASCENDOPT_TWIN_HOST_TILING_CLASS_H

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "ascendopt_twin/host.h"

namespace gert {
namespace host_detail {
template <typename AiCoreParams> class TilingClass {
public:
    TilingClass() = default;
    explicit TilingClass(gert::TilingContext *context) : context_(context) {}
    virtual ~TilingClass() = default;

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
    // The raw tiling data as int32 words, for a class's DumpTilingInfo.
    [[nodiscard]] std::string GetTilingDataDebugStr() const
    {
        const gert::TilingData *raw = context_->GetRawTilingData();
        const auto *words = reinterpret_cast<const int32_t *>(raw->GetData());
        std::ostringstream oss;
        for (size_t i = 0; i < raw->GetDataSize() / sizeof(int32_t); ++i) oss << words[i] << ", ";
        return oss.str();
    }

    gert::TilingContext *context_ = nullptr;
    std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_{nullptr};
    uint32_t blockDim_{0};
    uint64_t workspaceSize_{0};
    uint64_t tilingKey_{0};
    AiCoreParams aicoreParams_{};
};
}  // namespace host_detail
}  // namespace gert

#endif
