// AscendOptimizer CPU twin: SelectWithBytesMask (advanced API, lib/select). dst[i][j] = mask[i][j] == 0 ? src0 : src1
// for i < firstAxis, j < srcLastAxis; one of src0 / src1 is a scalar. The mask is one value per element (not bits),
// its rows maskLastAxis long (>= srcLastAxis, a multiple of 16 elements and of 32 bytes); the rest of a mask row is
// ignored. On the NPU a mask of another length than the source rows is first compacted in place when isReuseMask is
// true, so the twin leaves the mask's bytes undefined afterwards in that case. sharedTmpBuffer is not modelled.
#ifndef ASCENDOPT_TWIN_ADV_SELECT_H
#define ASCENDOPT_TWIN_ADV_SELECT_H

#include <vector>

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

namespace twin_detail {
template <typename U> inline bool MaskSet(U v)
{
    if constexpr (std::is_same<U, half>::value || std::is_same<U, float>::value) return ToF(v) != 0.0f;
    else return v != U(0);
}

// kScalarFirst: src0 is the scalar (mask 0 picks it), the tensor is src1.
template <bool kScalarFirst, bool isReuseMask, typename T, typename U>
inline void SelectBytes(const LocalTensor<T> &dst, const LocalTensor<T> &src, T scalar, const LocalTensor<U> &mask,
                        const SelectWithBytesMaskShapeInfo &info, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "SelectWithBytesMask", loc);
    const uint64_t elems = static_cast<uint64_t>(info.firstAxis) * info.srcLastAxis;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(elems), static_cast<int64_t>(elems * sizeof(T)),
                Repeats(static_cast<int64_t>(elems), sizeof(T)), -1, Access::Off(dst));
    if (info.firstAxis == 0 || info.srcLastAxis == 0 || info.maskLastAxis < info.srcLastAxis || info.maskLastAxis % 16 != 0 ||
        (static_cast<uint64_t>(info.maskLastAxis) * sizeof(U)) % 32 != 0 || (static_cast<uint64_t>(info.srcLastAxis) * sizeof(T)) % 32 != 0) {
        rt::Report("adv_api_bad_params", true, op.file, op.line,
                   "SelectWithBytesMask: firstAxis %u, srcLastAxis %u, maskLastAxis %u: needs maskLastAxis >= srcLastAxis, "
                   "maskLastAxis a multiple of 16 elements and of 32 bytes, srcLastAxis * %u bytes a multiple of 32",
                   info.firstAxis, info.srcLastAxis, info.maskLastAxis, static_cast<unsigned>(sizeof(T)));
        return;
    }
    const uint64_t maskBytes = static_cast<uint64_t>(info.firstAxis) * info.maskLastAxis * sizeof(U);
    bool ok = rt::CheckCount(op, Access::Off(src), elems * sizeof(T), false, Access::Buf(src), "src");
    ok = rt::CheckCount(op, Access::Off(mask), maskBytes, false, Access::Buf(mask), "mask") && ok;
    ok = rt::CheckCount(op, Access::Off(dst), elems * sizeof(T), true, Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    std::vector<T> out(elems);
    const T *s = Access::Ptr(src);
    const U *m = Access::Ptr(mask);
    for (uint32_t i = 0; i < info.firstAxis; ++i)
        for (uint32_t j = 0; j < info.srcLastAxis; ++j) {
            const uint64_t e = static_cast<uint64_t>(i) * info.srcLastAxis + j;
            const bool pickSecond = MaskSet(m[static_cast<uint64_t>(i) * info.maskLastAxis + j]);
            out[e] = pickSecond == kScalarFirst ? s[e] : scalar;
        }
    for (uint64_t e = 0; e < elems; ++e) *Access::Ptr(dst, e) = out[e];
    if (isReuseMask && info.maskLastAxis != info.srcLastAxis) rt::UbUndefined(Access::Off(mask), maskBytes);
}
}  // namespace twin_detail

template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, T src1, const LocalTensor<U> &mask,
                                const LocalTensor<uint8_t> &sharedTmpBuffer, const SelectWithBytesMaskShapeInfo &info,
                                ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "SelectWithBytesMask: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(sizeof(U) <= 4, "SelectWithBytesMask: mask type not supported");
    (void)sharedTmpBuffer;
    twin_detail::SelectBytes<false, isReuseMask>(dst, src0, src1, mask, info, loc);
}
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T> &dst, T src0, const LocalTensor<T> &src1, const LocalTensor<U> &mask,
                                const LocalTensor<uint8_t> &sharedTmpBuffer, const SelectWithBytesMaskShapeInfo &info,
                                ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "SelectWithBytesMask: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(sizeof(U) <= 4, "SelectWithBytesMask: mask type not supported");
    (void)sharedTmpBuffer;
    twin_detail::SelectBytes<true, isReuseMask>(dst, src1, src0, mask, info, loc);
}
}  // namespace AscendC

#endif
