// AscendOptimizer CPU twin: math functions of the AscendC advanced API (Tanh, Log, ClampMax, ClampMin).
// Count forms; fp32 with the host libm, rounded once to T. sharedTmpBuffer is accepted but not modelled.
#ifndef ASCENDOPT_TWIN_ADV_MATH_H
#define ASCENDOPT_TWIN_ADV_MATH_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
namespace twin_detail {
struct FTanh { static float F(float a) { return __builtin_tanhf(a); } static int64_t I(int64_t a) { return a; } };
}  // namespace twin_detail

ASCENDOPT_TWIN_ADV_UNARY(Tanh, FTanh, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Log, FLn, bool isReuseSource = false)

// ClampMax: values above scalar become scalar (min(x, scalar)); ClampMin: values below scalar become scalar.
#define ASCENDOPT_TWIN_CLAMP(NAME, FN)                                                                                            \
    template <typename T, bool isReuseSource = false>                                                                             \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,          \
                     const T scalar, const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                       \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        (void)sharedTmpBuffer;                                                                                                    \
        twin_detail::Scalar<twin_detail::FN>(#NAME, dst, src, scalar, count, loc);                                                \
    }                                                                                                                             \
    template <typename T, bool isReuseSource = false>                                                                             \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T scalar, const uint32_t count,                  \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                             \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::Scalar<twin_detail::FN>(#NAME, dst, src, scalar, count, loc);                                                \
    }
ASCENDOPT_TWIN_CLAMP(ClampMax, FMin)
ASCENDOPT_TWIN_CLAMP(ClampMin, FMax)
#undef ASCENDOPT_TWIN_CLAMP

}  // namespace AscendC
#endif
