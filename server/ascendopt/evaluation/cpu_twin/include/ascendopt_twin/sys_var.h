// AscendOptimizer CPU twin: system variables (block index and count, GetSystemCycle).
#ifndef ASCENDOPT_TWIN_SYS_VAR_H
#define ASCENDOPT_TWIN_SYS_VAR_H

#include "ascendopt_twin/rt.h"

namespace AscendC {

// In a mixed launch (1 AIC + 2 AIV per block, docs: GetSubBlockNum's table) an AIV's GetBlockIdx counts vector
// cores (2 * block + GetSubBlockIdx()) while GetBlockNum stays the launch's block_dim (the AIC count).
inline int64_t GetBlockIdx() { return ascendopt_twin::rt::g_blk->idx; }
inline int64_t GetBlockNum() { return ascendopt_twin::rt::g_blk->num; }
inline int64_t GetSubBlockIdx() { return ascendopt_twin::rt::g_blk->sub; }
inline int64_t GetSubBlockNum() { return ascendopt_twin::rt::g_blk->kind == 2 ? 2 : 1; }
inline int64_t GetTaskRation() { return 1; }
// The twin has no clock: the value is the number of API calls this block has issued so far (monotonic, so
// differences are well defined); cycle estimates come from the timing model, not from here.
inline int64_t GetSystemCycle() { return static_cast<int64_t>(ascendopt_twin::rt::g_blk->calls); }

}  // namespace AscendC
#endif
