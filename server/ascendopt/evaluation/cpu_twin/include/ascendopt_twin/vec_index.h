// AscendOptimizer CPU twin: CreateVecIndex (count form): dst[i] = firstValue + i, i < count, in T's precision
// (int16_t, int32_t, half, float on Atlas A2).
#ifndef ASCENDOPT_TWIN_VEC_INDEX_H
#define ASCENDOPT_TWIN_VEC_INDEX_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t calCount, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, int16_t, int32_t, half, float>(),
                  "CreateVecIndex: data type not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "CreateVecIndex", loc);
    rt::TraceOp(op, twin_detail::DTypeName<T>::value, calCount, static_cast<int64_t>(calCount) * sizeof(T),
                twin_detail::Repeats(calCount, sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (calCount == 0) { twin_detail::CheckRepeatCount(op, 0); return; }
    if (!rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(calCount) * sizeof(T), true,
                        twin_detail::Access::Buf(dst), "dst"))
        return;
    for (uint32_t i = 0; i < calCount; ++i) {
        if constexpr (std::is_integral<T>::value) *twin_detail::Access::Ptr(dst, i) = static_cast<T>(firstValue + static_cast<T>(i));
        else *twin_detail::Access::Ptr(dst, i) = ascendopt_twin::FromF<T>(ascendopt_twin::ToF(firstValue) + static_cast<float>(i));
    }
}
}  // namespace AscendC

#endif
