// AscendOptimizer CPU twin: Gather (the official kernel_operator_vec_gather_intf.h family).
// Element i of dst takes the src element at byte (srcBaseAddr + srcOffset[i]) from the start of src; the offsets are
// uint32_t bytes. Count form: the first `count` elements. Repeat form: repeat r fills 256 B of dst at
// dst + r * dstRepStride * 32 B from offsets [r * lanes, (r + 1) * lanes), lanes chosen by the mask.
#ifndef ASCENDOPT_TWIN_VEC_GATHER_H
#define ASCENDOPT_TWIN_VEC_GATHER_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {

namespace twin_detail {
template <typename T> constexpr bool kGather = OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>();

// One engine for both forms. Every source element is read before any destination element is written (one vector
// instruction), so a dst that overlaps src — which the docs do not support — gets the values src held before the
// call; the overlap itself is reported.
template <typename T>
inline void GatherRun(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                      uint32_t srcBaseAddr, rt::Mask mask, uint32_t repeat, uint32_t dstRepStride, bool countForm,
                      uint64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Gather", loc);
    const uint32_t lanes = Lanes<T>();
    const uint64_t total = countForm ? count : static_cast<uint64_t>(repeat) * lanes;
    if (countForm) {
        rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(count), static_cast<int64_t>(count) * sizeof(T),
                    Repeats(static_cast<int64_t>(count), sizeof(T)), -1, twin_detail::Access::Off(dst));
        AfterCountForm();
    } else {
        TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    }
    if (total == 0) return;  // A2: count or repeatTime 0 is a NOP that writes nothing (the docs)
    if (twin_detail::Access::Off(src) % 32 != 0)
        rt::Report("misaligned_operand", true, op.file, op.line, "Gather: src at UB offset %u is not 32 B aligned", twin_detail::Access::Off(src));
    if (srcBaseAddr % sizeof(T) != 0)
        rt::Report("misaligned_operand", true, op.file, op.line,
                   "Gather: srcBaseAddr %u is not a multiple of the %zu B element size (the NPU gathers misplaced data)",
                   srcBaseAddr, sizeof(T));
    // Offsets: one uint32_t per dst lane, repeat r's at [r * lanes, (r + 1) * lanes).
    rt::Opnd offs{twin_detail::Access::Off(srcOffset), twin_detail::Access::Buf(srcOffset), 4u, 1u, lanes * 4u / 32u, false, "srcOffset"};
    rt::Opnd out{twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), static_cast<uint32_t>(sizeof(T)), 1u, dstRepStride, true, "dst"};
    if (countForm ? !rt::CheckCount(op, offs.off, total * 4u, false, offs.buf, offs.what)
                  : !rt::CheckRepeat(op, &offs, 1, lanes, repeat, mask))
        return;
    struct Move {
        uint32_t to;
        T v;
    };
    Move *moves = new Move[total];
    uint64_t n = 0, readLo = ~0ull, readHi = 0, writeLo = ~0ull, writeHi = 0;
    bool ok = true;
    for (uint64_t i = 0; i < total && ok; ++i) {
        uint32_t r = static_cast<uint32_t>(i / lanes), l = static_cast<uint32_t>(i % lanes);
        if (!countForm && !mask.At(r, l, lanes)) continue;
        uint32_t off;
        std::memcpy(&off, rt::UbPtr(twin_detail::Access::Off(srcOffset) + static_cast<uint32_t>(i * 4u)), 4);
        uint64_t from = static_cast<uint64_t>(twin_detail::Access::Off(src)) + srcBaseAddr + off;
        if ((static_cast<uint64_t>(srcBaseAddr) + off) % sizeof(T) != 0)
            rt::Report("misaligned_operand", true, op.file, op.line,
                       "Gather: srcOffset[%llu] = %u is not a multiple of the %zu B element size",
                       static_cast<unsigned long long>(i), off, sizeof(T));
        ok = from + sizeof(T) <= rt::g_blk->ubSize && rt::Ub(op, static_cast<uint32_t>(from), sizeof(T), false, twin_detail::Access::Buf(src), "src");
        if (!ok) break;
        std::memcpy(static_cast<void *>(&moves[n].v), rt::UbPtr(static_cast<uint32_t>(from)), sizeof(T));
        uint32_t to = countForm ? static_cast<uint32_t>(i) * static_cast<uint32_t>(sizeof(T)) + twin_detail::Access::Off(dst) : rt::LaneOff(out, r, l);
        moves[n++].to = to;
        readLo = from < readLo ? from : readLo;
        readHi = from + sizeof(T) > readHi ? from + sizeof(T) : readHi;
        writeLo = to < writeLo ? to : writeLo;
        writeHi = to + sizeof(T) > writeHi ? to + sizeof(T) : writeHi;
    }
    if (ok && (countForm ? rt::CheckCount(op, out.off, total * sizeof(T), true, out.buf, out.what)
                         : rt::CheckRepeat(op, &out, 1, lanes, repeat, mask)))
        for (uint64_t k = 0; k < n; ++k) std::memcpy(rt::UbPtr(moves[k].to), static_cast<const void *>(&moves[k].v), sizeof(T));
    delete[] moves;
    if (n > 0 && readLo < writeHi && writeLo < readHi)
        rt::Report("gather_in_place", false, op.file, op.line,
                   "Gather: dst overlaps the src elements it gathers, which the docs do not support; the twin read every source "
                   "element before writing (as one instruction would), the NPU promises no order");
}
}  // namespace twin_detail

template <typename T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kGather<T>, "Gather: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::GatherRun(dst, src, srcOffset, srcBaseAddr, twin_detail::rt::Mask(), 0, 0, true, count, loc);
}
template <typename T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime, const uint16_t dstRepStride,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kGather<T>, "Gather: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::rt::Mask m = twin_detail::MaskCnt(mask);
    twin_detail::GatherRun(dst, src, srcOffset, srcBaseAddr, m, m.Repeats(repeatTime, twin_detail::Lanes<T>()), dstRepStride,
                           false, 0, loc);
}
template <typename T>
inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kGather<T>, "Gather: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::rt::Mask m = twin_detail::MaskBits(mask);
    twin_detail::GatherRun(dst, src, srcOffset, srcBaseAddr, m, m.Repeats(repeatTime, twin_detail::Lanes<T>()), dstRepStride,
                           false, 0, loc);
}

}  // namespace AscendC
#endif
