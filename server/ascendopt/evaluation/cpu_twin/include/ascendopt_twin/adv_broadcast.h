// AscendOptimizer CPU twin: BroadCast (advanced API, pad family): dst takes srcShape broadcast to dstShape.
// 1-D: src {1} -> dst {k}. 2-D: axis 1 broadcasts [m, 1] -> [m, k], axis 0 broadcasts [1, k] -> [m, k]
// (the docs' example: [[1], [2]] -> two rows of sixteen 1s and 2s).
#ifndef ASCENDOPT_TWIN_ADV_BROADCAST_H
#define ASCENDOPT_TWIN_ADV_BROADCAST_H

#include <vector>

#include "ascendopt_twin/broadcast_size.h"
#include "ascendopt_twin/vec_common.h"

namespace AscendC {

namespace twin_detail {
template <typename T> constexpr bool kBroadCast = OneOf<T, half, float, int8_t, uint8_t>();

template <typename T, int32_t dim, int32_t axis>
inline void BroadCastRun(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                         const LocalTensor<uint8_t> *tmp, const Loc &loc)
{
    static_assert(kBroadCast<T>, "BroadCast: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(dim == 1 || dim == 2, "BroadCast: dim must be 1 or 2");
    static_assert(axis >= 0 && axis < dim, "BroadCast: axis must be a dimension of the shape");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "BroadCast", loc);
    const uint64_t m = dim == 2 ? dstShape[0] : 1;
    const uint64_t k = dim == 2 ? dstShape[1] : dstShape[0];
    const uint64_t dstCount = m * k;
    uint64_t srcCount = 1;
    for (int32_t i = 0; i < dim; ++i) srcCount *= srcShape[i];
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(dstCount), static_cast<int64_t>(dstCount * sizeof(T)),
                Repeats(static_cast<int64_t>(dstCount), sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (srcShape[axis] != 1) {
        rt::Report("bad_shape", true, op.file, op.line, "BroadCast: srcShape[%d] is %u; the broadcast axis must have size 1 in the source",
                   axis, srcShape[axis]);
        return;
    }
    if (dim == 2 && srcShape[1 - axis] != dstShape[1 - axis]) {
        rt::Report("bad_shape", true, op.file, op.line, "BroadCast: srcShape[%d] = %u but dstShape[%d] = %u (only axis %d may differ)",
                   1 - axis, srcShape[1 - axis], 1 - axis, dstShape[1 - axis], axis);
        return;
    }
    if (tmp != nullptr) {
        const ascendopt_host::BroadCastTmp need = ascendopt_host::BroadCastTmpSize(dim, static_cast<uint32_t>(axis), m, k, sizeof(T));
        const uint64_t have = static_cast<uint64_t>(tmp->GetSize());
        if (have < need.minBytes)
            rt::Report("bad_tmp_buffer", true, op.file, op.line,
                       "BroadCast: sharedTmpBuffer has %llu B, less than the %u B GetBroadCastMaxMinTmpSize gives as the minimum",
                       static_cast<unsigned long long>(have), need.minBytes);
    }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), srcCount * sizeof(T), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), dstCount * sizeof(T), true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    // Stage the source first: dst may overlap it.
    std::vector<T> s(twin_detail::Access::Ptr(src), twin_detail::Access::Ptr(src) + srcCount);
    T *d = twin_detail::Access::Ptr(dst);
    for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < k; ++j) d[i * k + j] = s[dim == 1 ? 0 : axis == 1 ? i : j];
}
}  // namespace twin_detail

// With a caller-managed temporary buffer (checked against the minimum, not otherwise modelled).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t> &sharedTmpBuffer, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::BroadCastRun<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}
// With space the API framework reserves.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::BroadCastRun<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}
// Broadcast: the name later CANN releases give the same API (docs: Broadcast, a const dst).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t> &sharedTmpBuffer, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::BroadCastRun<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::BroadCastRun<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}

}  // namespace AscendC
#endif
