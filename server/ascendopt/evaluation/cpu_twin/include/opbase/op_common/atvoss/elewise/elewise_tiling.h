// AscendOptimizer CPU twin: ops-base's elementwise scheduling framework (atvoss), host side, only as far
// as a 910B build sees it. The framework tiles 950 (regbase) elementwise kernels described as a DAG of
// vector stages; the twin does not implement it. What is declared here lets a 910B tiling program that
// includes a 950 tiling header (ops-math is_inf's `is_inf_tiling_arch35.h`) compile: its 950 path runs
// behind `IsRegbaseSocVersion`, which is false on the twin's 910B platforms, and reaching the tiling
// reports that the framework is missing.
#ifndef ASCENDOPT_TWIN_ATVOSS_ELEWISE_TILING_H
#define ASCENDOPT_TWIN_ATVOSS_ELEWISE_TILING_H
#include "exe_graph/runtime/tiling_context.h"
#include "log/log.h"
#include "register/tilingdata_base.h"

namespace Ops {
namespace Base {
// The framework's tiling records (their layout belongs to the framework; nothing on 910B reads them).
struct EleBaseTilingData;
struct EleBaseTilingDataV2;

class ElewiseBaseTiling {
public:
    explicit ElewiseBaseTiling(gert::TilingContext *context) : context_(context) {}
    template <typename OpDag, typename TilingData> ge::graphStatus DoTiling(TilingData &)
    {
        OP_LOGE(context_ != nullptr ? context_->GetNodeName() : "ElewiseBaseTiling",
                "the CPU twin does not implement ops-base's atvoss elementwise tiling (950 regbase kernels)");
        return ge::GRAPH_FAILED;
    }

private:
    gert::TilingContext *context_;
};
}  // namespace Base
}  // namespace Ops
#endif
