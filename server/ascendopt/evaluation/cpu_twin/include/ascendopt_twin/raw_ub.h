// AscendOptimizer CPU twin: a raw `__ubuf__ T *` (what LocalTensor::GetPhyAddr() hands out, cast) as the UB
// offset the twin's checks work on. The twin's UB address is the host address of that UB byte, so the pointer
// less this block's UB base is the offset. The pointer's buffer is unknown, so only the UB's own bounds and the
// sanitizer's pipe hazards apply to work done through it.
#ifndef ASCENDOPT_TWIN_RAW_UB_H
#define ASCENDOPT_TWIN_RAW_UB_H

#include "ascendopt_twin/tensor.h"

namespace AscendC {
namespace twin_detail {
// UB offset of host address `at`; a stop (local_out_of_bounds, at the kernel's line) when it is not in the UB.
inline uint32_t RawUbOffset(uint64_t at, const char *api, const char *what, const ascendopt_twin::Loc &loc)
{
    const uint64_t base = reinterpret_cast<uintptr_t>(ascendopt_twin::rt::g_blk->ub);
    const uint32_t ub = ascendopt_twin::rt::g_blk->ubSize;
    if (at < base || at - base >= ub)
        ascendopt_twin::rt::Fatal("local_out_of_bounds", loc.file, loc.line,
                                  "%s: %s (address 0x%llx) is not in this core's %u B Unified Buffer", api, what,
                                  static_cast<unsigned long long>(at), ub);
    return static_cast<uint32_t>(at - base);
}
// A tensor view of the UB from `p` to the UB's end, with no buffer of its own (the UB's bounds only).
template <typename T> inline LocalTensor<T> RawUbView(const T *p, const char *api, const char *what, const ascendopt_twin::Loc &loc)
{
    const uint32_t off = RawUbOffset(reinterpret_cast<uintptr_t>(p), api, what, loc);
    return Access::Make<T>(off, (ascendopt_twin::rt::g_blk->ubSize - off) / static_cast<uint32_t>(sizeof(T)), ascendopt_twin::rt::UbBuf{0, 0},
                           -1, TPosition::VECCALC);
}
}  // namespace twin_detail
}  // namespace AscendC
#endif
