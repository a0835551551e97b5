// AscendOptimizer CPU twin: Copy (UB -> UB on the vector pipe, mask/repeat/stride form).
#ifndef ASCENDOPT_TWIN_VEC_COPY_H
#define ASCENDOPT_TWIN_VEC_COPY_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {

struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn)
    {}
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

namespace twin_detail {
struct FCopy { static float F(float a) { return a; } static int64_t I(int64_t a) { return a; } };
template <typename T> constexpr bool kCopy = OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>();
inline UnaryRepeatParams CopyToUnary(const CopyRepeatParams &p)
{
    UnaryRepeatParams u;
    u.dstBlkStride = p.dstStride;
    u.srcBlkStride = p.srcStride;
    u.dstRepStride = static_cast<uint8_t>(p.dstRepeatSize);
    u.srcRepStride = static_cast<uint8_t>(p.srcRepeatSize);
    return u;
}
}  // namespace twin_detail

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kCopy<T>, "Copy: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::UnaryRep<twin_detail::FCopy, T, false>("Copy", dst, src, T{}, twin_detail::UseMask<isSetMask>(mask), repeatTime,
                                                       twin_detail::CopyToUnary(repeatParams), loc);
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kCopy<T>, "Copy: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::UnaryRep<twin_detail::FCopy, T, false>("Copy", dst, src, T{}, twin_detail::UseMask<isSetMask>(mask), repeatTime,
                                                       twin_detail::CopyToUnary(repeatParams), loc);
}

}  // namespace AscendC
#endif
