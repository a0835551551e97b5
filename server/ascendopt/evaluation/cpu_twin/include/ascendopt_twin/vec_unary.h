// AscendOptimizer CPU twin: unary vector instructions (Abs, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Relu, Not).
#ifndef ASCENDOPT_TWIN_VEC_UNARY_H
#define ASCENDOPT_TWIN_VEC_UNARY_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
#define ASCENDOPT_TWIN_UNARY(NAME, FN, OK)                                                                                    \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count,                              \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, count, loc);                                                     \
    }                                                                                                                         \
    /* The count form as a kernel names it through a function pointer (vec_binary.h). */                                      \
    template <typename T, typename C, std::enable_if_t<std::is_same<C, int32_t>::value, int> = 0>                             \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const C &count)                                    \
    {                                                                                                                         \
        NAME<T>(dst, src, count, ascendopt_twin::Loc());                                                                      \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTime,           \
                     const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                  \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::UnaryRep<twin_detail::FN, T, false>(#NAME, dst, src, T{}, twin_detail::UseMask<isSetMask>(mask), repeatTime,        \
                                                         repeatParams, loc);                                                  \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const uint8_t repeatTime,   \
                     const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                  \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::UnaryRep<twin_detail::FN, T, false>(#NAME, dst, src, T{}, twin_detail::UseMask<isSetMask>(mask), repeatTime,       \
                                                         repeatParams, loc);                                                  \
    }

ASCENDOPT_TWIN_UNARY(Abs, FAbs, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Exp, FExp, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Ln, FLn, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Sqrt, FSqrt, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Rsqrt, FRsqrt, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Reciprocal, FRecip, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Relu, FRelu, (twin_detail::OneOf<T, half, int32_t, float>()))
ASCENDOPT_TWIN_UNARY(Not, FNot, twin_detail::kBitwise<T>)
#undef ASCENDOPT_TWIN_UNARY
}  // namespace AscendC
#endif
