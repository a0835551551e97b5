// AscendOptimizer CPU twin: cross-core synchronisation, CrossCoreSetFlag / CrossCoreWaitFlag (separated
// architecture, Atlas A2). Each block has one counter per flagId (0-15), starting at 0. CrossCoreWaitFlag blocks
// while its counter is 0, then decrements it. CrossCoreSetFlag, by mode:
//   0: AI Core level, all vector blocks of the launch: once every block has set flagId (its k-th time), every
//      block's counter for flagId goes up by one (the docs' "sync all AIV cores" pattern: set then wait);
//   1: the vector blocks of one AI Core: the twin runs one vector block per AI Core (GetSubBlockNum() is 1),
//      so the block's own counter goes up;
//   2: cube <-> vector inside one AI Core: needs a cube core, which the twin's vector blocks do not have (a
//      finding, not a silent no-op).
// The scheduler (runtime/scheduler.cpp) runs blocks one at a time: a wait whose counter is 0 hands over to the
// next block; when no block can run and some wait on a flag, each waiting block ends with
// `crosscore_wait_deadlock` (on the NPU they block forever). A completed mode-0 round starts a new race phase,
// as SyncAll does. The set is ordered after everything the block issued (the twin does not model a set on one
// pipe overtaking writes still in flight on another).
#ifndef ASCENDOPT_TWIN_CROSS_CORE_H
#define ASCENDOPT_TWIN_CROSS_CORE_H

#include "ascendopt_twin/tpipe.h"

namespace ascendopt_twin {
namespace rt {
void CrossCoreSet(int mode, Pipe pipe, uint32_t flagId, const Loc &loc);
void CrossCoreWait(uint32_t flagId, const Loc &loc);
}  // namespace rt
}  // namespace ascendopt_twin

namespace AscendC {
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(modeId <= 2, "CrossCoreSetFlag: modeId is 0, 1 or 2");
    static_assert(pipe != PIPE_S && pipe != PIPE_ALL, "CrossCoreSetFlag: PIPE_S and PIPE_ALL are not supported");
    ascendopt_twin::rt::CrossCoreSet(modeId, twin_detail::PipeOf(pipe), flagId, loc);
}
// The template arguments are defaulted: older CANN releases declare CrossCoreWaitFlag(flagId) without them.
template <uint8_t modeId = 0, pipe_t pipe = PIPE_V>
inline void CrossCoreWaitFlag(uint16_t flagId, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(modeId <= 2, "CrossCoreWaitFlag: modeId is 0, 1 or 2");
    ascendopt_twin::rt::CrossCoreWait(flagId, loc);
}
}  // namespace AscendC

#endif
