// AscendOptimizer CPU twin: math functions of the AscendC advanced API (Tanh, Log, Exp, ClampMax, ClampMin, …).
// Count forms; fp32 with the host libm, rounded once to T. sharedTmpBuffer is accepted but not modelled.
#ifndef ASCENDOPT_TWIN_ADV_MATH_H
#define ASCENDOPT_TWIN_ADV_MATH_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
namespace twin_detail {
struct FTanh { static float F(float a) { return __builtin_tanhf(a); } static int64_t I(int64_t a) { return a; } };
// The other elementwise math APIs (lib/math): the host libm in fp32, rounded once.
struct FSign { static float F(float a) { return a > 0.0f ? 1.0f : a < 0.0f ? -1.0f : a; } static int64_t I(int64_t a) { return (a > 0) - (a < 0); } };
struct FPow {
    static float F(float a, float b) { return __builtin_powf(a, b); }
    static int64_t I(int64_t a, int64_t b)  // by squaring (wrapping, as integer ops do); a negative exponent gives 0
    {
        uint64_t r = 1, x = static_cast<uint64_t>(a);
        for (uint64_t e = b < 0 ? 0 : static_cast<uint64_t>(b); e; e >>= 1, x *= x)
            if (e & 1) r *= x;
        return b < 0 ? 0 : static_cast<int64_t>(r);
    }
};
struct FPowOf { static float F(float a, float b) { return __builtin_powf(b, a); } static int64_t I(int64_t a, int64_t b) { return FPow::I(b, a); } };  // scalar ^ tensor
struct FSin { static float F(float a) { return __builtin_sinf(a); } static int64_t I(int64_t a) { return a; } };
struct FCos { static float F(float a) { return __builtin_cosf(a); } static int64_t I(int64_t a) { return a; } };
struct FTan { static float F(float a) { return __builtin_tanf(a); } static int64_t I(int64_t a) { return a; } };
struct FAsin { static float F(float a) { return __builtin_asinf(a); } static int64_t I(int64_t a) { return a; } };
struct FAcos { static float F(float a) { return __builtin_acosf(a); } static int64_t I(int64_t a) { return a; } };
struct FAtan { static float F(float a) { return __builtin_atanf(a); } static int64_t I(int64_t a) { return a; } };
struct FSinh { static float F(float a) { return __builtin_sinhf(a); } static int64_t I(int64_t a) { return a; } };
struct FCosh { static float F(float a) { return __builtin_coshf(a); } static int64_t I(int64_t a) { return a; } };
struct FErf { static float F(float a) { return __builtin_erff(a); } static int64_t I(int64_t a) { return a; } };
struct FErfc { static float F(float a) { return __builtin_erfcf(a); } static int64_t I(int64_t a) { return a; } };
struct FLog2 { static float F(float a) { return __builtin_log2f(a); } static int64_t I(int64_t a) { return a; } };
struct FLog10 { static float F(float a) { return __builtin_log10f(a); } static int64_t I(int64_t a) { return a; } };
}  // namespace twin_detail

ASCENDOPT_TWIN_ADV_UNARY(Tanh, FTanh, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Log, FLn, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Sin, FSin, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Cos, FCos, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Tan, FTan, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Asin, FAsin, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Acos, FAcos, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Atan, FAtan, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Sinh, FSinh, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Cosh, FCosh, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Erf, FErf, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Erfc, FErfc, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Log2, FLog2, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Log10, FLog10, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Sign, FSign, bool isReuseSource = false)
// Exp<T, taylorExpandLevel, isReuseSource> (lib/math): the docs' Taylor expansion of the fraction is not modelled,
// the host libm in fp32 rounded once, whatever the level (the basic Exp<T, isSetMask> is in vec_unary.h).
ASCENDOPT_TWIN_ADV_UNARY(Exp, FExp, uint8_t taylorExpandLevel ASCENDOPT_TWIN_COMMA bool isReuseSource = false)

// Power: tensor ^ tensor, tensor ^ scalar, scalar ^ tensor (count forms; float types and int32).
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint32_t count,
                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Power: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::Binary<twin_detail::FPow>("Power", dst, src0, src1, count, loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &scalar, uint32_t count,
                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Power: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::Scalar<twin_detail::FPow>("Power", dst, src0, scalar, count, loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &scalar, const LocalTensor<T> &src1, uint32_t count,
                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Power: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::Scalar<twin_detail::FPowOf>("Power", dst, src1, scalar, count, loc);
}
// The same three with the caller's temporary buffer before the count (accepted, not modelled, as above).
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                  const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sharedTmpBuffer;
    Power<T, isReuseSource>(dst, src0, src1, count, loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const T &scalar,
                  const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sharedTmpBuffer;
    Power<T, isReuseSource>(dst, src0, scalar, count, loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T> &dst, const T &scalar, const LocalTensor<T> &src1,
                  const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sharedTmpBuffer;
    Power<T, isReuseSource>(dst, scalar, src1, count, loc);
}

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
