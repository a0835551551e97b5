// AscendOptimizer CPU twin: CANN's internal implementation functions that kernels call directly on other SoCs'
// code paths (GeGluV2's 310P MemSetZero: DuplicateImpl, DataCopyUB2GMImpl on raw UB/GM pointers). A 910B
// build compiles those templates without running them, so the names must exist; they are not APIs the twin
// models (not in api.py), and a call stops the block naming itself.
#ifndef ASCENDOPT_TWIN_IMPL_OTHER_SOC_IMPL_H
#define ASCENDOPT_TWIN_IMPL_OTHER_SOC_IMPL_H

#include "ascendopt_twin/datacopy.h"

namespace AscendC {
template <typename T>
inline void DuplicateImpl(__ubuf__ T *, const T &, const int32_t &, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::Fatal("unsupported_api", loc.file, loc.line,
                              "DuplicateImpl (CANN's internal implementation, another SoC's code path) is not modelled by the CPU twin");
}
template <typename T>
inline void DataCopyUB2GMImpl(__gm__ T *, __ubuf__ T *, const DataCopyParams &, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::Fatal("unsupported_api", loc.file, loc.line,
                              "DataCopyUB2GMImpl (CANN's internal implementation, another SoC's code path) is not modelled by the CPU twin");
}
}  // namespace AscendC
#endif
