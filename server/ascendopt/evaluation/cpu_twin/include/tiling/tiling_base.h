// AscendOptimizer CPU twin: the open operator repos' tiling template class (cann-ops `tiling/tiling_base.h`):
// optiling::TilingBaseClass, the twin's one tiling template (ascendopt_twin/host/tiling_class.h) over this
// header's AiCoreParams. Registered per operator with REGISTER_TILING_TEMPLATE (tiling_templates_registry.h).
#ifndef ASCENDOPT_TWIN_TILING_TILING_BASE_H
#define ASCENDOPT_TWIN_TILING_TILING_BASE_H

#include <cstdint>

#include "ascendopt_twin/host.h"
#include "ascendopt_twin/host/tiling_class.h"
#include "log/ops_log.h"

#ifndef ASCENDC_EXTERN_C
#define ASCENDC_EXTERN_C
#endif

namespace optiling {
// What GetPlatformInfo() fills for the later hooks (blockDim: the cores to split over).
struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t blockDim = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

using TilingBaseClass = gert::host_detail::TilingClass<AiCoreParams>;
}  // namespace optiling

#endif
