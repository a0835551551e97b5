// AscendOptimizer CPU twin, host side: the temporary space the reduce advanced APIs (Sum, Mean; adv_reduce.h)
// ask for (tiling/tiling_api.h includes this). CANN documents the maximum as equal to the minimum and gives no
// formula; the twin's estimate is the space a repeat-wise reduction of one row needs: one partial result per
// 256-byte repeat (32-byte aligned), plus the row converted to accType when that is wider (Mean, half -> float).
// The twin's kernels do not use the space.
#ifndef ASCENDOPT_TWIN_REDUCE_TILING_H
#define ASCENDOPT_TWIN_REDUCE_TILING_H

#include <cstdint>

namespace ascendopt_host {
inline uint32_t Align32(uint64_t bytes) { return static_cast<uint32_t>((bytes + 31) / 32 * 32); }
inline uint32_t RowTmp(uint32_t n, uint32_t srcTypeSize, uint32_t accTypeSize)
{
    const uint64_t acc = accTypeSize ? accTypeSize : 1;
    const uint64_t repeats = (static_cast<uint64_t>(n) * acc + 255) / 256;
    uint32_t bytes = Align32((repeats ? repeats : 1) * acc);
    if (accTypeSize > srcTypeSize) bytes += Align32(static_cast<uint64_t>(n) * accTypeSize);
    return bytes;
}
}  // namespace ascendopt_host

namespace AscendC {
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource, uint32_t &maxValue,
                                uint32_t &minValue)
{
    (void)isReuseSource;
    minValue = maxValue = ascendopt_host::RowTmp(n, typeSize, typeSize);
}
inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize,
                                 const bool isReuseSource, uint32_t &maxValue, uint32_t &minValue)
{
    (void)isReuseSource;
    minValue = maxValue = ascendopt_host::RowTmp(n, srcTypeSize, accTypeSize);
}
}  // namespace AscendC

#endif
