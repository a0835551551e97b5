// AscendOptimizer CPU twin: public AscendC APIs of other SoCs that Atlas A2 (910B) does not have (the region
// proposal family of Atlas training / inference products: ProposalConcat, ProposalExtract, RpSort16, MrgSort4).
// Declared so that a kernel calling one fails to compile naming the reason, as CANN's 910B build does, rather than
// with "not declared". Not APIs the twin models (not in api.py).
#ifndef ASCENDOPT_TWIN_IMPL_OTHER_SOC_API_H
#define ASCENDOPT_TWIN_IMPL_OTHER_SOC_API_H

#include "ascendopt_twin/tensor.h"

namespace AscendC {
namespace twin_other_soc {
template <typename T> constexpr bool kNever = false;
}  // namespace twin_other_soc

// The merge-sort descriptors exist on A2 too (its MrgSort, which the twin does not model yet).
template <typename T> struct MrgSortSrcList {
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T> &a, const LocalTensor<T> &b, const LocalTensor<T> &c, const LocalTensor<T> &d)
        : src1(a), src2(b), src3(c), src4(d) {}
    LocalTensor<T> src1, src2, src3, src4;
};
struct MrgSort4Info {
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t lengths[4], bool exhausted, uint16_t mask, uint16_t repeat)
        : elementLengths{lengths[0], lengths[1], lengths[2], lengths[3]}, ifExhaustedSuspension(exhausted), validBit(mask), repeatTimes(repeat) {}
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

template <typename T, typename... A> inline void ProposalConcat(const LocalTensor<T> &, const LocalTensor<T> &, A...)
{
    static_assert(twin_other_soc::kNever<T>, "ProposalConcat is not supported on Ascend 910B (Atlas A2): Atlas training / inference products only");
}
template <typename T, typename... A> inline void ProposalExtract(const LocalTensor<T> &, const LocalTensor<T> &, A...)
{
    static_assert(twin_other_soc::kNever<T>, "ProposalExtract is not supported on Ascend 910B (Atlas A2): Atlas training / inference products only");
}
template <typename T, typename... A> inline void RpSort16(const LocalTensor<T> &, const LocalTensor<T> &, A...)
{
    static_assert(twin_other_soc::kNever<T>, "RpSort16 is not supported on Ascend 910B (Atlas A2): Atlas training / inference products only");
}
template <typename T, typename... A> inline void MrgSort4(const LocalTensor<T> &, const MrgSortSrcList<T> &, A...)
{
    static_assert(twin_other_soc::kNever<T>, "MrgSort4 is not supported on Ascend 910B (Atlas A2): Atlas training / inference products only");
}
}  // namespace AscendC
#endif
