// AscendOptimizer CPU twin: the temporary UB the BroadCast advanced API needs, shared by the host-side
// GetBroadCastMaxMinTmpSize and the kernel-side check of a sharedTmpBuffer.
// An estimate from the algorithm the BroadCast docs describe, not CANN's own formula: for [m, 1] -> [m, k] every
// source element is first broadcast into a 32 B block (Brcb: m rounded up to 8 elements, 32 B each), the blocks are
// copied out to the 32 B aligned width, and an unaligned k is cut down with GatherMask (one aligned [m, k'] copy
// more). [1, k] -> [m, k] and the 1-D scalar form copy whole rows and need room only for an unaligned row.
#ifndef ASCENDOPT_TWIN_BROADCAST_SIZE_H
#define ASCENDOPT_TWIN_BROADCAST_SIZE_H

#include <cstdint>

namespace ascendopt_host {
struct BroadCastTmp {
    uint32_t minBytes;
    uint32_t maxBytes;
};
// dim 1: src {1} -> dst {k} (axis 0). dim 2: axis 1 is [m, 1] -> [m, k], axis 0 is [1, k] -> [m, k].
inline BroadCastTmp BroadCastTmpSize(uint32_t dim, uint32_t axis, uint64_t m, uint64_t k, uint32_t typeSize)
{
    auto align32 = [](uint64_t bytes) { return (bytes + 31) / 32 * 32; };
    const bool rowAligned = (k * typeSize) % 32 == 0;
    const uint64_t gather = rowAligned ? 0 : m * align32(k * typeSize);
    uint64_t lo = 0, hi = 0;
    if (dim == 2 && axis == 1) {
        lo = (m + 7) / 8 * 8 * 32;
        hi = lo + gather;
    } else {
        lo = hi = dim == 1 ? (rowAligned ? 0 : align32(k * typeSize)) : gather;
    }
    return BroadCastTmp{static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)};
}
}  // namespace ascendopt_host
#endif
