// AscendOptimizer CPU twin: activation functions of the AscendC advanced API (Sigmoid, Silu, Swish, Gelu, FasterGelu).
// Count forms only; computed in fp32 with the host libm and rounded once to T (the NPU's approximations differ in
// the last bits). sharedTmpBuffer is accepted but not modelled.
#ifndef ASCENDOPT_TWIN_ADV_ACTIVATION_H
#define ASCENDOPT_TWIN_ADV_ACTIVATION_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
namespace twin_detail {
inline float Sig(float x) { return 1.0f / (1.0f + __builtin_expf(-x)); }
struct FSigmoid { static float F(float a) { return Sig(a); } static int64_t I(int64_t a) { return a; } };
struct FSilu { static float F(float a) { return a * Sig(a); } static int64_t I(int64_t a) { return a; } };
struct FSwish { static float F(float a, float b) { return a * Sig(b * a); } static int64_t I(int64_t a, int64_t) { return a; } };
// Docs: Gelu(x) = x / (1 + exp(-1.5957691 * (x + 0.044715 x^3))); FasterGelu(x) = x / (1 + exp(-1.702 x)).
struct FGelu { static float F(float a) { return a / (1.0f + __builtin_expf(-1.5957691216f * (a + 0.044715f * a * a * a))); } static int64_t I(int64_t a) { return a; } };
struct FFasterGelu { static float F(float a) { return a / (1.0f + __builtin_expf(-1.702f * a)); } static int64_t I(int64_t a) { return a; } };
}  // namespace twin_detail

ASCENDOPT_TWIN_ADV_UNARY(Sigmoid, FSigmoid, bool isReuseSource = false)
ASCENDOPT_TWIN_ADV_UNARY(Gelu, FGelu, bool highPrecision = false ASCENDOPT_TWIN_COMMA bool highPerformance = false)
ASCENDOPT_TWIN_ADV_UNARY(FasterGelu, FFasterGelu, bool highPrecision = false ASCENDOPT_TWIN_COMMA bool highPerformance = false)

template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t dataSize, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Silu: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::Unary<twin_detail::FSilu>("Silu", dst, src, dataSize, loc);
}
// Swish(x) = x / (1 + exp(-scalarValue * x))
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t dataSize, const T scalarValue,
                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Swish: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::Scalar<twin_detail::FSwish>("Swish", dst, src, scalarValue, dataSize, loc);
}

}  // namespace AscendC
#endif
