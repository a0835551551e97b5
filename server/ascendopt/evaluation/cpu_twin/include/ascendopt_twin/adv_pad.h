// AscendOptimizer CPU twin: Pad / UnPad (advanced API, pad family) on a height × width tensor, from the docs.
// Pad: each row's valid columns (PadTiling.srcOriWidth of a row stride srcShape[1]) are written after
// `leftPad` padValue columns and followed by `rightPad` of them; the padded width must be 32-byte aligned
// (the docs' cases: 16 × 15 half + rightPad 1 → 16 × 16; 16 × 16 with redundant columns refilled).
// UnPad: a 32-byte aligned width loses `leftPad` columns in front and `rightPad` behind, rows packed.
// The temporary space (sharedTmpBuffer or the framework's) is accepted and not modelled.
#ifndef ASCENDOPT_TWIN_ADV_PAD_H
#define ASCENDOPT_TWIN_ADV_PAD_H

#include <vector>

#include "ascendopt_twin/pad_tiling.h"
#include "ascendopt_twin/vec_common.h"

namespace AscendC {

struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};

struct UnPadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

namespace twin_detail {
template <typename T> constexpr bool kPadType = OneOf<T, int16_t, uint16_t, half, int32_t, uint32_t, float>();

template <typename T>
inline void PadRun(const LocalTensor<T> &dst, const LocalTensor<T> &src, const PadParams &p, const PadTiling &t, const Loc &loc)
{
    static_assert(kPadType<T>, "Pad: data type not supported on Ascend 910B (int16_t, uint16_t, half, int32_t, uint32_t, float)");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Pad", loc);
    const uint64_t h = t.srcHeight, w = t.srcWidth, valid = t.srcOriWidth;
    const uint64_t dw = static_cast<uint64_t>(p.leftPad) + valid + p.rightPad;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(h * dw), static_cast<int64_t>(h * dw * sizeof(T)),
                Repeats(static_cast<int64_t>(h * dw), sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (t.typeSize != sizeof(T) || h == 0 || w == 0 || valid == 0 || valid > w) {
        rt::Report("bad_pad_params", true, op.file, op.line,
                   "Pad: the PadTiling (height %u, width %u, valid width %u, type size %u) does not describe this %zu-byte tensor; "
                   "fill it with PadTilingFunc for the shape padded",
                   t.srcHeight, t.srcWidth, t.srcOriWidth, t.typeSize, sizeof(T));
        return;
    }
    if ((dw * sizeof(T)) % 32 != 0 || dw < w) {
        rt::Report("bad_pad_params", true, op.file, op.line,
                   "Pad: leftPad %u + valid width %llu + rightPad %u = %llu columns, which must be 32-byte aligned and cover the "
                   "source width %llu",
                   p.leftPad, static_cast<unsigned long long>(valid), p.rightPad, static_cast<unsigned long long>(dw),
                   static_cast<unsigned long long>(w));
        return;
    }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), h * w * sizeof(T), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), h * dw * sizeof(T), true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    std::vector<T> s(twin_detail::Access::Ptr(src), twin_detail::Access::Ptr(src) + h * w);  // dst may be src (in place)
    const T fill = static_cast<T>(p.padValue);
    T *d = twin_detail::Access::Ptr(dst);
    for (uint64_t r = 0; r < h; ++r)
        for (uint64_t c = 0; c < dw; ++c)
            d[r * dw + c] = c >= p.leftPad && c < p.leftPad + valid ? s[r * w + c - p.leftPad] : fill;
}

template <typename T>
inline void UnPadRun(const LocalTensor<T> &dst, const LocalTensor<T> &src, const UnPadParams &p, const UnPadTiling &t, const Loc &loc)
{
    static_assert(kPadType<T>, "UnPad: data type not supported on Ascend 910B (int16_t, uint16_t, half, int32_t, uint32_t, float)");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "UnPad", loc);
    const uint64_t h = t.srcHeight, w = t.srcWidth;
    const uint64_t cut = static_cast<uint64_t>(p.leftPad) + p.rightPad;
    const uint64_t dw = cut < w ? w - cut : 0;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(h * w), static_cast<int64_t>(h * w * sizeof(T)),
                Repeats(static_cast<int64_t>(h * w), sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (t.typeSize != sizeof(T) || h == 0 || (w * sizeof(T)) % 32 != 0 || dw == 0) {
        rt::Report("bad_pad_params", true, op.file, op.line,
                   "UnPad: the UnPadTiling (height %u, width %u, type size %u) with leftPad %u + rightPad %u does not fit this "
                   "%zu-byte tensor: the width must be 32-byte aligned and keep at least one column",
                   t.srcHeight, t.srcWidth, t.typeSize, p.leftPad, p.rightPad, sizeof(T));
        return;
    }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), h * w * sizeof(T), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), h * dw * sizeof(T), true, twin_detail::Access::Buf(dst), "dst", sizeof(T)) && ok;
    if (!ok) return;
    std::vector<T> s(twin_detail::Access::Ptr(src), twin_detail::Access::Ptr(src) + h * w);
    T *d = twin_detail::Access::Ptr(dst);
    for (uint64_t r = 0; r < h; ++r)
        for (uint64_t c = 0; c < dw; ++c) d[r * dw + c] = s[r * w + p.leftPad + c];
}
}  // namespace twin_detail

template <typename T>
inline void Pad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, PadParams &padParams,
                const LocalTensor<uint8_t> &sharedTmpBuffer, PadTiling &tiling, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sharedTmpBuffer;
    twin_detail::PadRun(dstTensor, srcTensor, padParams, tiling, loc);
}
template <typename T>
inline void Pad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, PadParams &padParams, PadTiling &tiling,
                ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::PadRun(dstTensor, srcTensor, padParams, tiling, loc);
}

template <typename T>
inline void UnPad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, UnPadParams &unPadParams,
                  LocalTensor<uint8_t> &sharedTmpBuffer, UnPadTiling &tiling, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sharedTmpBuffer;
    twin_detail::UnPadRun(dstTensor, srcTensor, unPadParams, tiling, loc);
}
template <typename T>
inline void UnPad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, UnPadParams &unPadParams, UnPadTiling &tiling,
                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::UnPadRun(dstTensor, srcTensor, unPadParams, tiling, loc);
}

}  // namespace AscendC
#endif
