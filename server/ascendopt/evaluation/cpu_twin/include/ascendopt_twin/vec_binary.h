// AscendOptimizer CPU twin: binary vector instructions (Add, Sub, Mul, Div, Max, Min, And, Or).
#ifndef ASCENDOPT_TWIN_VEC_BINARY_H
#define ASCENDOPT_TWIN_VEC_BINARY_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
#define ASCENDOPT_TWIN_BINARY(NAME, FN, OK)                                                                                   \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &count, \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Binary<twin_detail::FN>(#NAME, dst, src0, src1, count, loc);                                             \
    }                                                                                                                         \
    /* The count form as a kernel names it through a function pointer (`Op<T> *op` = NAME): no call site to                   \
       record. Only an int32_t count takes it, and a call prefers the form above (more specialized). */                       \
    template <typename T, typename C, std::enable_if_t<std::is_same<C, int32_t>::value, int> = 0>                             \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const C &count)       \
    {                                                                                                                         \
        NAME<T>(dst, src0, src1, count, ascendopt_twin::Loc());                                                               \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,        \
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::BinaryRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, \
                                                loc);                                                                         \
    }                                                                                                                         \
    /* The bit-mask form through a function pointer (as above): a uint64_t mask only. */                                      \
    template <typename T, typename M, std::enable_if_t<std::is_same<M, uint64_t>::value, int> = 0>                            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, M mask,               \
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams)                                        \
    {                                                                                                                         \
        NAME<T, true>(dst, src0, src1, mask, repeatTime, repeatParams, ascendopt_twin::Loc());                                \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const uint64_t mask[],\
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::BinaryRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::UseMask<isSetMask>(mask), repeatTime,              \
                                                repeatParams, loc);                                                           \
    }

ASCENDOPT_TWIN_BINARY(Add, FAdd, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Sub, FSub, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Mul, FMul, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Div, FDiv, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_BINARY(Max, FMax, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Min, FMin, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(And, FAnd, twin_detail::kBitwise<T>)
ASCENDOPT_TWIN_BINARY(Or, FOr, twin_detail::kBitwise<T>)
#undef ASCENDOPT_TWIN_BINARY

namespace twin_detail {
// `dst = a op b` (tensor.h): the count form over dst's size.
#define ASCENDOPT_TWIN_WHOLE(FN, NAME)                                                                                    \
    struct FN {                                                                                                           \
        template <typename T>                                                                                             \
        static void Run(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, const Loc &loc)      \
        {                                                                                                                 \
            NAME(dst, a, b, static_cast<int32_t>(dst.GetSize()), loc);                                                    \
        }                                                                                                                 \
    };
ASCENDOPT_TWIN_WHOLE(WholeAdd, Add)
ASCENDOPT_TWIN_WHOLE(WholeSub, Sub)
ASCENDOPT_TWIN_WHOLE(WholeMul, Mul)
ASCENDOPT_TWIN_WHOLE(WholeDiv, Div)
ASCENDOPT_TWIN_WHOLE(WholeAnd, And)
ASCENDOPT_TWIN_WHOLE(WholeOr, Or)
#undef ASCENDOPT_TWIN_WHOLE
}  // namespace twin_detail
}  // namespace AscendC
#endif
