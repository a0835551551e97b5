// AscendOptimizer CPU twin: Duplicate.
#ifndef ASCENDOPT_TWIN_VEC_DUPLICATE_H
#define ASCENDOPT_TWIN_VEC_DUPLICATE_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
// ---------------- Duplicate ----------------
template <typename T>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),
                  "Duplicate: data type not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Duplicate", loc);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)),
                twin_detail::Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    twin_detail::AfterCountForm();
    if (count <= 0) { twin_detail::CheckRepeatCount(op, count); return; }
    if (!rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(count) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst")) return;
    T *d = twin_detail::Access::Ptr(dst);
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
}
namespace twin_detail {
template <typename T>
inline void DupRep(const LocalTensor<T> &dst, const T &v, rt::Mask mask, uint8_t repeatTime, uint16_t blk, uint8_t rep, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Duplicate", loc);
    uint32_t lanes = Lanes<T>();
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    rt::Opnd o[1] = {{twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), blk, rep, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l)
            if (mask.At(r, l, lanes)) std::memcpy(rt::UbPtr(rt::LaneOff(o[0], r, l)), &v, sizeof(T));
}
}  // namespace twin_detail
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::DupRep(dst, scalarValue, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstBlockStride, dstRepeatStride, loc);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::DupRep(dst, scalarValue, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstBlockStride, dstRepeatStride, loc);
}

}  // namespace AscendC
#endif
