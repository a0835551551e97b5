// AscendOptimizer CPU twin: the vector mask register (SetMaskCount, SetMaskNorm, SetVectorMask, ResetMask).
// Vector instructions called with isSetMask=false read this register instead of their mask argument:
// Normal mode -> per-repeat lane mask (bits maskHigh:maskLow), Counter mode -> maskLow = elements in all.
#ifndef ASCENDOPT_TWIN_MASK_H
#define ASCENDOPT_TWIN_MASK_H

#include "ascendopt_twin/tensor.h"

namespace AscendC {

enum class MaskMode : uint8_t {
    NORMAL = 0,
    COUNTER,
};

namespace twin_detail {
inline void MaskOp(const char *name, const ascendopt_twin::Loc &loc)
{
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_S, name, loc);
    rt::TraceOp(op, nullptr, -1, -1);
}
inline void SetMaskRegister(uint64_t hi, uint64_t lo)
{
    ascendopt_twin::rt::g_blk->maskHi = hi;
    ascendopt_twin::rt::g_blk->maskLo = lo;
}
// The register as the lane mask of an isSetMask=false instruction on `lanes` lanes.
inline ascendopt_twin::rt::Mask RegisterMask()
{
    const ascendopt_twin::rt::BlockPublic &b = *ascendopt_twin::rt::g_blk;
    ascendopt_twin::rt::Mask k;
    k.reg = true;
    if (b.maskCounter) {
        k.bits = false;
        k.cnt = 0;
        k.counter = b.maskLo;
    } else {
        k.bits = true;
        k.m[0] = b.maskLo;
        k.m[1] = b.maskHi;
    }
    return k;
}
// What the count forms (Add(dst, a, b, count), …) leave behind: CANN's A2 implementation runs them in
// counter mode and then calls SetMaskNorm + ResetMask.
inline void AfterCountForm()
{
    ascendopt_twin::rt::g_blk->maskCounter = false;
    SetMaskRegister(~0ull, ~0ull);
}
}  // namespace twin_detail

inline void SetMaskCount(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MaskOp("SetMaskCount", loc);
    ascendopt_twin::rt::g_blk->maskCounter = true;
}
inline void SetMaskNorm(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MaskOp("SetMaskNorm", loc);
    ascendopt_twin::rt::g_blk->maskCounter = false;
}
// Bit-wise (Normal) or element count (Counter, maskHigh must be 0): the register takes the two words as given.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MaskOp("SetVectorMask", loc);
    if (mode == MaskMode::COUNTER && maskHigh != 0)
        ascendopt_twin::rt::Report("bad_mask", true, loc.file, loc.line,
                                   "SetVectorMask<COUNTER>: maskHigh must be 0 in counter mode (got %llu)",
                                   static_cast<unsigned long long>(maskHigh));
    twin_detail::SetMaskRegister(maskHigh, maskLow);
}
// Continuous form: Normal = the first len lanes of every repeat; Counter = len elements in all.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MaskOp("SetVectorMask", loc);
    if (mode == MaskMode::COUNTER) {
        twin_detail::SetMaskRegister(0, static_cast<uint64_t>(len < 0 ? 0 : len));
        return;
    }
    uint32_t lanes = 256u / static_cast<uint32_t>(sizeof(T));
    if (len <= 0 || static_cast<uint32_t>(len) > lanes)
        ascendopt_twin::rt::Report("bad_mask", true, loc.file, loc.line, "SetVectorMask(len): len %d is outside [1, %u] for this data type",
                                   len, lanes);
    uint64_t n = len < 0 ? 0 : static_cast<uint64_t>(len) > lanes ? lanes : static_cast<uint64_t>(len);
    uint64_t lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    uint64_t hi = n <= 64 ? 0 : n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1);
    twin_detail::SetMaskRegister(hi, lo);
}
// CANN's kernels also set the normal-mode mask through the utility class: the first len lanes.
struct AscendCUtils {
    template <typename T>
    static inline void SetMask(int32_t len, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        SetVectorMask<T, MaskMode::NORMAL>(len, loc);
    }
    // Elements of typeSize bytes in one 32 B data block.
    static constexpr uint32_t GetC0Count(uint32_t typeSize) { return 32u / typeSize; }
};
// Back to the default (every lane).
inline void ResetMask(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MaskOp("ResetMask", loc);
    twin_detail::SetMaskRegister(~0ull, ~0ull);
}

}  // namespace AscendC
#endif
