// AscendOptimizer CPU twin: vector-scalar instructions (Adds, Subs, Muls, Divs, Maxs, Mins, LeakyRelu).
#ifndef ASCENDOPT_TWIN_VEC_BINARY_SCALAR_H
#define ASCENDOPT_TWIN_VEC_BINARY_SCALAR_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
#define ASCENDOPT_TWIN_SCALAR(NAME, FN, OK)                                                                                   \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count,        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Scalar<twin_detail::FN>(#NAME, dst, src, scalarValue, count, loc);                                       \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask,               \
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams,                                         \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::UnaryRep<twin_detail::FN, T, true>(#NAME, dst, src, scalarValue, twin_detail::UseMask<isSetMask>(mask), repeatTime, \
                                                        repeatParams, loc);                                                   \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[],       \
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams,                                         \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::UnaryRep<twin_detail::FN, T, true>(#NAME, dst, src, scalarValue, twin_detail::UseMask<isSetMask>(mask),            \
                                                        repeatTime, repeatParams, loc);                                       \
    }

ASCENDOPT_TWIN_SCALAR(Adds, FAdd, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Subs, FSub, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Muls, FMul, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Divs, FDiv, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_SCALAR(Maxs, FMax, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Mins, FMin, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(LeakyRelu, FLeaky, twin_detail::kFloat<T>)
#undef ASCENDOPT_TWIN_SCALAR
}  // namespace AscendC
#endif
