// AscendOptimizer CPU twin: GatherMask (the official kernel_operator_vec_gather_mask_intf.h family).
// Bit i of the gather mask selects element i of a repeat of src0; the selected elements are packed, in order,
// at the start of dst, and rsvdCnt receives how many were kept.
#ifndef ASCENDOPT_TWIN_VEC_GATHER_MASK_H
#define ASCENDOPT_TWIN_VEC_GATHER_MASK_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn)
    {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

namespace twin_detail {
template <typename T> constexpr bool kGatherMask = OneOf<T, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t>();

// Built-in patterns 1..7 (the docs): 1 even indices, 2 odd indices, 3..6 the 1st..4th of every 4, 7 all.
inline bool FixedPatternBit(uint8_t pattern, uint32_t i)
{
    switch (pattern) {
        case 1: return i % 2 == 0;
        case 2: return i % 2 == 1;
        case 3: case 4: case 5: case 6: return i % 4 == static_cast<uint32_t>(pattern - 3);
        case 7: return true;
        default: return false;
    }
}

// Shared engine. Normal mode (reduceMode=false): repeatTimes repeats of 256 B of src0, mask unused. Counter mode
// (reduceMode=true): each repeat takes `mask` elements, repeatTimes x mask in all (the docs' "configuration one",
// the only one A2 supports; mask in [1, 2^32 - 1], so one repeat may run past 256 B: its data blocks go on at
// src0BlockStride and its pattern bits are consumed contiguously). Either way the mask register is left in normal
// mode (the docs: a kernel in counter mode before must set it again).
// pat.Check(op, repeat, bits) records the pattern's reads; pat.At(r, i): whether element i of repeat r is selected.
template <typename T, typename Pattern>
inline void GatherMaskRun(const LocalTensor<T> &dst, const LocalTensor<T> &src0, bool reduceMode, uint32_t mask,
                          const GatherMaskParams &p, uint64_t &rsvdCnt, const Pattern &pat, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "GatherMask", loc);
    const uint32_t lanes = Lanes<T>();
    const uint32_t repeat = p.repeatTimes;
    const uint32_t perRep = reduceMode ? mask : lanes;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * perRep, static_cast<int64_t>(repeat) * perRep * sizeof(T),
                repeat, reduceMode ? -3 : -1, twin_detail::Access::Off(dst));
    rsvdCnt = 0;
    if (repeat == 0) return;
    rt::g_blk->maskCounter = false;
    if (reduceMode && mask == 0) {
        rt::Report("bad_mask", true, op.file, op.line, "GatherMask: counter-mode mask must be in [1, 2^32 - 1], got 0");
        return;
    }
    if (twin_detail::Access::Off(dst) % 32 != 0 || twin_detail::Access::Off(src0) % 32 != 0)
        rt::Report("misaligned_operand", true, op.file, op.line, "GatherMask: dst and src0 must start 32 B aligned in UB");
    if (!pat.Check(op, repeat, perRep)) return;
    rt::Opnd s{twin_detail::Access::Off(src0), twin_detail::Access::Buf(src0), sizeof(T), p.src0BlockStride, p.src0RepeatStride, false, "src0"};
    uint64_t kept = 0;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t i = 0; i < perRep; ++i) {
            if (!pat.At(r, i)) continue;
            uint32_t from = rt::LaneOff(s, r, i);
            uint32_t to = twin_detail::Access::Off(dst) + static_cast<uint32_t>(kept * sizeof(T));
            if (!rt::Ub(op, from, sizeof(T), false, twin_detail::Access::Buf(src0), "src0")) return;
            if (!rt::Ub(op, to, sizeof(T), true, twin_detail::Access::Buf(dst), "dst")) return;
            std::memmove(rt::UbPtr(to), rt::UbPtr(from), sizeof(T));
            ++kept;
        }
    rsvdCnt = kept;
}
}  // namespace twin_detail

// User pattern: U is uint16_t for 16-bit T, uint32_t for 32-bit T; repeat r reads its bits from
// src1Pattern + r * src1RepeatStride * 32 B (stride 0: every repeat uses the same bits).
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams &gatherMaskParams, uint64_t &rsvdCnt,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kGatherMask<T>, "GatherMask: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(sizeof(U) == sizeof(T) && (std::is_same<U, uint16_t>::value || std::is_same<U, uint32_t>::value),
                  "GatherMask: src1Pattern must be uint16_t for 16-bit data and uint32_t for 32-bit data");
    namespace rt = ascendopt_twin::rt;
    struct Pattern {
        const LocalTensor<U> &t;
        uint32_t stride;
        // A repeat reads one bit per element it takes, whole 32-bit / 16-bit words of the pattern.
        bool Check(const rt::Op &op, uint32_t repeat, uint32_t bits) const
        {
            const uint32_t bytes = (bits + 8u * sizeof(U) - 1u) / (8u * sizeof(U)) * sizeof(U);
            for (uint32_t r = 0; r < repeat; ++r)
                if (!rt::Ub(op, twin_detail::Access::Off(t) + r * stride, bytes, false, twin_detail::Access::Buf(t), "src1Pattern")) return false;
            return true;
        }
        bool At(uint32_t r, uint32_t i) const { return ((rt::UbPtr(twin_detail::Access::Off(t) + r * stride)[i / 8u] >> (i % 8u)) & 1u) != 0; }
    };
    Pattern pat{src1Pattern, gatherMaskParams.src1RepeatStride * 32u};
    twin_detail::GatherMaskRun(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, pat, loc);
}

// Built-in pattern 1..7, the same for every repeat (src1RepeatStride is not used).
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams &gatherMaskParams, uint64_t &rsvdCnt,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kGatherMask<T>, "GatherMask: data type not supported on Ascend 910B (Atlas A2)");
    if (src1Pattern < 1 || src1Pattern > 7) {
        ascendopt_twin::rt::Report("bad_mask", true, loc.file, loc.line, "GatherMask: built-in pattern %u is not in [1, 7]", src1Pattern);
        rsvdCnt = 0;
        return;
    }
    struct Pattern {
        uint8_t id;
        bool Check(const ascendopt_twin::rt::Op &, uint32_t, uint32_t) const { return true; }
        bool At(uint32_t, uint32_t i) const { return twin_detail::FixedPatternBit(id, i); }
    };
    twin_detail::GatherMaskRun(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, Pattern{src1Pattern}, loc);
}

}  // namespace AscendC
#endif
