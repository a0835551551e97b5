// AscendOptimizer CPU twin: ternary vector instructions (Axpy: dst = dst + src * scalar).
#ifndef ASCENDOPT_TWIN_VEC_TERNARY_H
#define ASCENDOPT_TWIN_VEC_TERNARY_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {

// A2: (T, U) = (half, half), (float, float), (float, half); computed in fp32, rounded once to T.
template <typename T, typename U>
inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, const int32_t &count,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert((std::is_same<T, U>::value && twin_detail::kFloat<T>) || (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy: data type combination not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Axpy", loc);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), twin_detail::Repeats(count, sizeof(T)), -1,
                twin_detail::Access::Off(dst));
    twin_detail::AfterCountForm();
    if (count <= 0) { twin_detail::CheckRepeatCount(op, count); return; }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), static_cast<uint64_t>(count) * sizeof(U), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(count) * sizeof(T), false, twin_detail::Access::Buf(dst), "dst") && ok;
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(count) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    float s = ascendopt_twin::ToF(scalarValue);
    for (int32_t i = 0; i < count; ++i)
        *twin_detail::Access::Ptr(dst, i) = ascendopt_twin::FromF<T>(ascendopt_twin::ToF(*twin_detail::Access::Ptr(dst, i)) + ascendopt_twin::ToF(*twin_detail::Access::Ptr(src, i)) * s);
}

}  // namespace AscendC
#endif
