// AscendOptimizer CPU twin: vector-scalar instructions (Adds, Subs, Muls, Divs, Maxs, Mins, LeakyRelu,
// ShiftLeft, ShiftRight).
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
    /* The count form as a kernel names it through a function pointer (vec_binary.h). */                                      \
    template <typename T, typename C, std::enable_if_t<std::is_same<C, int32_t>::value, int> = 0>                             \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const C &count)              \
    {                                                                                                                         \
        NAME<T>(dst, src, scalarValue, count, ascendopt_twin::Loc());                                                         \
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
#define ASCENDOPT_TWIN_SHL FShl<8 * sizeof(T), std::is_signed<T>::value>
ASCENDOPT_TWIN_SCALAR(ShiftLeft, ASCENDOPT_TWIN_SHL, twin_detail::kShift<T>)
#undef ASCENDOPT_TWIN_SHL
#undef ASCENDOPT_TWIN_SCALAR

// ShiftRight: the mask forms take `roundEn` too.
template <typename T>
inline void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kShift<T>, "ShiftRight: data type not supported by this instruction on Ascend 910B (Atlas A2)");
    twin_detail::Scalar<twin_detail::FShr<8 * sizeof(T), std::is_signed<T>::value>>("ShiftRight", dst, src, scalarValue,
                                                                                   count, loc);
}
namespace twin_detail {
template <typename T, bool isSetMask, typename M>
inline void ShiftRightRep(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, M mask,
                          const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, bool roundEn,
                          ascendopt_twin::Loc loc)
{
    static_assert(kShift<T>, "ShiftRight: data type not supported by this instruction on Ascend 910B (Atlas A2)");
    constexpr int W = 8 * sizeof(T);
    constexpr bool S = std::is_signed<T>::value;
    if (roundEn)
        UnaryRep<FShr<W, S, true>, T, true>("ShiftRight", dst, src, scalarValue, UseMask<isSetMask>(mask), repeatTime,
                                            repeatParams, loc);
    else
        UnaryRep<FShr<W, S>, T, true>("ShiftRight", dst, src, scalarValue, UseMask<isSetMask>(mask), repeatTime,
                                      repeatParams, loc);
}
}  // namespace twin_detail
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask,
                       const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, bool roundEn = false,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::ShiftRightRep<T, isSetMask>(dst, src, scalarValue, mask, repeatTime, repeatParams, roundEn, loc);
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[],
                       const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, bool roundEn = false,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::ShiftRightRep<T, isSetMask>(dst, src, scalarValue, mask, repeatTime, repeatParams, roundEn, loc);
}
}  // namespace AscendC
#endif
