// AscendOptimizer CPU twin: ops-base's tiling template class (Ops::Base::TilingBaseClass), the base of the
// tiling classes CANN's open repos register per operator (TilingRegistry / *_templates_registry.h).
// The class itself is the twin's one tiling template (ascendopt_twin/host/tiling_class.h).
#ifndef ASCENDOPT_TWIN_OPBASE_TILING_BASE_CLASS_H
#define ASCENDOPT_TWIN_OPBASE_TILING_BASE_CLASS_H

#include <cstdint>

#include "ascendopt_twin/host.h"
#include "ascendopt_twin/host/tiling_class.h"
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

using TilingBaseClass = gert::host_detail::TilingClass<AiCoreParams>;
}  // namespace Base
}  // namespace Ops

#endif
