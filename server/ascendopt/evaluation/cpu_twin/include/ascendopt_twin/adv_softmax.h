// AscendOptimizer CPU twin: the SoftMax advanced APIs on an ND [m, k] tensor, row by row (the AscendC docs):
//   SoftMax:      max = rowmax(x); e = exp(x - max); sum = rowsum(e); dst = e / sum  (sum, max out when asked)
//   SoftmaxGrad:  s = rowsum(grad * src); dst = isFront ? s : (grad - s) * src
//   SoftmaxFlashV2 (FlashAttention-2): max = rowmax(x) (isUpdate: also over inMax); dst = exp(x - max);
//                 sum = rowsum(dst) (isUpdate: + exp(inMax - max) * inSum, expMax = exp(inMax - max))
// Row statistics go out as one 32 B data block a row, every element the row's value ([m, 32 / sizeof]).
// SoftMaxShapeInfo {srcM, srcK, oriSrcM, oriSrcK}: srcK is the row stride (32 B aligned); the reductions take the
// first oriSrcK columns, and the element-wise steps write all srcK (the docs: padded data takes part in part of
// the computation and its dst positions are overwritten). An empty shape ({}) takes the tiling's srcM / srcK.
// Computed in fp32 and rounded to T once. The framework-reserved temporary space (the forms without
// sharedTmpBuffer) is not modelled; a sharedTmpBuffer must not overlap src or dst (the docs' constraint).
#ifndef ASCENDOPT_TWIN_ADV_SOFTMAX_H
#define ASCENDOPT_TWIN_ADV_SOFTMAX_H

#include <vector>

#include "ascendopt_twin/softmax_tiling.h"
#include "ascendopt_twin/vec_common.h"

namespace AscendC {
struct SoftMaxShapeInfo {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};
enum class SoftmaxMode {
    SOFTMAX_NORMAL = 0,
    SOFTMAX_OUTPUT_WITHOUT_BRC = 1,
};
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

namespace twin_detail {
// The [m, k] a call works on, and the columns its reductions take; false (reported) when it cannot run.
struct SoftShape {
    uint32_t m, k, redK;
};
template <typename T>
inline bool SoftShapeOf(const rt::Op &op, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &s, SoftShape &out)
{
    out.m = s.srcM ? s.srcM : tiling.srcM;
    out.k = s.srcM ? s.srcK : tiling.srcK;
    out.redK = s.srcM && s.oriSrcK ? s.oriSrcK : out.k;
    if (out.m == 0 || out.k == 0) {
        rt::Report("bad_argument", true, op.file, op.line, "%s: empty shape [%u, %u] (neither SoftMaxShapeInfo nor the tiling gives one)",
                   op.name, out.m, out.k);
        return false;
    }
    if (out.k * sizeof(T) % 32 != 0)
        rt::Report("misaligned_operand", true, op.file, op.line, "%s: the last axis srcK = %u of %zu-byte elements is not 32 B aligned", op.name,
                   out.k, sizeof(T));
    if (out.redK > out.k) {
        rt::Report("bad_argument", true, op.file, op.line, "%s: oriSrcK = %u exceeds srcK = %u", op.name, out.redK, out.k);
        return false;
    }
    return true;
}
// The user's temporary buffer must not overlap an operand (the docs); reported, then the call runs.
template <typename A, typename B>
inline void TmpApart(const rt::Op &op, const LocalTensor<A> &tmp, const LocalTensor<B> &t, uint64_t bytes, const char *what)
{
    const uint64_t a = Access::Off(tmp), ae = a + static_cast<uint64_t>(tmp.GetSize()) * sizeof(A);
    const uint64_t b = Access::Off(t), be = b + bytes;
    if (a < be && b < ae)
        rt::Report("overlapping_operands", true, op.file, op.line, "%s: sharedTmpBuffer [%llu, %llu) overlaps %s [%llu, %llu) in the UB", op.name,
                   static_cast<unsigned long long>(a), static_cast<unsigned long long>(ae), what, static_cast<unsigned long long>(b),
                   static_cast<unsigned long long>(be));
}
template <typename T> inline float LoadF(uint32_t off) { T v; std::memcpy(&v, rt::UbPtr(off), sizeof(T)); return static_cast<float>(v); }
template <typename T> inline void StoreF(uint32_t off, float f) { const T v = static_cast<T>(f); std::memcpy(rt::UbPtr(off), &v, sizeof(T)); }
// One 32 B block of `v` at row r of a [m, 32 B] statistics tensor.
template <typename S> inline void StoreRowBlock(const LocalTensor<S> &t, uint32_t r, float v)
{
    for (uint32_t i = 0; i < 32 / sizeof(S); ++i) StoreF<S>(Access::Off(t) + r * 32u + i * static_cast<uint32_t>(sizeof(S)), v);
}

template <typename T, typename S>
inline void SoftMaxRun(const LocalTensor<T> &dst, const LocalTensor<S> *sum, const LocalTensor<S> *max, const LocalTensor<T> &src,
                       const LocalTensor<uint8_t> *tmp, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &shape, const Loc &loc)
{
    static_assert(kFloat<T> && kFloat<S>, "SoftMax: data type not supported on Ascend 910B (Atlas A2)");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "SoftMax", loc);
    SoftShape s;
    if (!SoftShapeOf<T>(op, tiling, shape, s)) return;
    const uint64_t n = static_cast<uint64_t>(s.m) * s.k, bytes = n * sizeof(T), statBytes = static_cast<uint64_t>(s.m) * 32u;
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, static_cast<int64_t>(n), static_cast<int64_t>(bytes),
                static_cast<int64_t>((n * sizeof(float) + 255) / 256), -1, Access::Off(dst));
    if (tmp) {
        TmpApart(op, *tmp, src, bytes, "src");
        TmpApart(op, *tmp, dst, bytes, "dst");
    }
    bool ok = rt::CheckCount(op, Access::Off(src), bytes, false, Access::Buf(src), "src");
    ok = rt::CheckCount(op, Access::Off(dst), bytes, true, Access::Buf(dst), "dst") && ok;
    if (sum) ok = rt::CheckCount(op, Access::Off(*sum), statBytes, true, Access::Buf(*sum), "sumTensor") && ok;
    if (max) ok = rt::CheckCount(op, Access::Off(*max), statBytes, true, Access::Buf(*max), "maxTensor") && ok;
    if (!ok) return;
    std::vector<float> row(s.k);
    for (uint32_t r = 0; r < s.m; ++r) {
        const uint32_t in = Access::Off(src) + r * s.k * static_cast<uint32_t>(sizeof(T));
        const uint32_t out = Access::Off(dst) + r * s.k * static_cast<uint32_t>(sizeof(T));
        for (uint32_t c = 0; c < s.k; ++c) row[c] = LoadF<T>(in + c * static_cast<uint32_t>(sizeof(T)));
        float mx = row[0];
        for (uint32_t c = 1; c < s.redK; ++c) mx = row[c] > mx ? row[c] : mx;
        float total = 0.0f;
        for (uint32_t c = 0; c < s.k; ++c) {
            row[c] = __builtin_expf(row[c] - mx);
            if (c < s.redK) total += row[c];
        }
        for (uint32_t c = 0; c < s.k; ++c) StoreF<T>(out + c * static_cast<uint32_t>(sizeof(T)), row[c] / total);
        if (sum) StoreRowBlock(*sum, r, total);
        if (max) StoreRowBlock(*max, r, mx);
    }
}

template <typename T>
inline void SoftmaxGradRun(const LocalTensor<T> &dst, const LocalTensor<T> &grad, const LocalTensor<T> &src, const LocalTensor<uint8_t> *tmp,
                           const SoftMaxTiling &tiling, bool isFront, const SoftMaxShapeInfo &shape, const Loc &loc)
{
    static_assert(kFloat<T>, "SoftmaxGrad: data type not supported on Ascend 910B (Atlas A2)");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "SoftmaxGrad", loc);
    SoftShape s;
    if (!SoftShapeOf<T>(op, tiling, shape, s)) return;
    const uint64_t n = static_cast<uint64_t>(s.m) * s.k, bytes = n * sizeof(T);
    const uint64_t outBytes = isFront ? static_cast<uint64_t>(s.m) * 32u : bytes;
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, static_cast<int64_t>(n), static_cast<int64_t>(bytes),
                static_cast<int64_t>((n * sizeof(float) + 255) / 256), -1, Access::Off(dst));
    if (tmp) {
        TmpApart(op, *tmp, grad, bytes, "gradTensor");
        TmpApart(op, *tmp, src, bytes, "srcTensor");
        TmpApart(op, *tmp, dst, outBytes, "dstTensor");
    }
    bool ok = rt::CheckCount(op, Access::Off(grad), bytes, false, Access::Buf(grad), "gradTensor");
    ok = rt::CheckCount(op, Access::Off(src), bytes, false, Access::Buf(src), "srcTensor") && ok;
    ok = rt::CheckCount(op, Access::Off(dst), outBytes, true, Access::Buf(dst), "dstTensor") && ok;
    if (!ok) return;
    std::vector<float> g(s.k), y(s.k);
    const uint32_t esz = static_cast<uint32_t>(sizeof(T));
    for (uint32_t r = 0; r < s.m; ++r) {
        const uint32_t at = r * s.k * esz;
        float acc = 0.0f;
        for (uint32_t c = 0; c < s.k; ++c) {
            g[c] = LoadF<T>(Access::Off(grad) + at + c * esz);
            y[c] = LoadF<T>(Access::Off(src) + at + c * esz);
            if (c < s.redK) acc += g[c] * y[c];
        }
        if (isFront) {
            StoreRowBlock(dst, r, acc);
            continue;
        }
        for (uint32_t c = 0; c < s.k; ++c) StoreF<T>(Access::Off(dst) + at + c * esz, (g[c] - acc) * y[c]);
    }
}

template <typename T>
inline void SoftmaxFlashV2Run(const LocalTensor<T> &dst, const LocalTensor<T> &sum, const LocalTensor<T> &max, const LocalTensor<T> &src,
                              const LocalTensor<T> &expMax, const LocalTensor<T> &inSum, const LocalTensor<T> &inMax, const LocalTensor<uint8_t> *tmp,
                              const SoftMaxTiling &tiling, SoftMaxShapeInfo shape, bool update, const Loc &loc)
{
    static_assert(kFloat<T>, "SoftmaxFlashV2: data type not supported on Ascend 910B (Atlas A2)");
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "SoftmaxFlashV2", loc);
    if (shape.srcM == 0) {
        const ShapeInfo si = src.GetShapeInfo();
        if (si.originalShapeDim >= 2 && si.shapeDim >= 2)
            shape = {tiling.srcM, tiling.srcK, tiling.srcM, si.originalShape[si.originalShapeDim - 1] < tiling.srcK
                                                                ? si.originalShape[si.originalShapeDim - 1] : tiling.srcK};
    }
    SoftShape s;
    if (!SoftShapeOf<T>(op, tiling, shape, s)) return;
    const uint64_t n = static_cast<uint64_t>(s.m) * s.k, bytes = n * sizeof(T), statBytes = static_cast<uint64_t>(s.m) * 32u;
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, static_cast<int64_t>(n), static_cast<int64_t>(bytes),
                static_cast<int64_t>((n * sizeof(float) + 255) / 256), -1, Access::Off(dst));
    if (tmp) {
        TmpApart(op, *tmp, src, bytes, "src");
        TmpApart(op, *tmp, dst, bytes, "dst");
    }
    bool ok = rt::CheckCount(op, Access::Off(src), bytes, false, Access::Buf(src), "src");
    if (update) {
        ok = rt::CheckCount(op, Access::Off(inSum), statBytes, false, Access::Buf(inSum), "inExpSumTensor") && ok;
        ok = rt::CheckCount(op, Access::Off(inMax), statBytes, false, Access::Buf(inMax), "inMaxTensor") && ok;
    }
    if (!ok) return;
    // The statistics in first: the outputs may be the same tensors (FlashAttention passes sum and max as both).
    std::vector<float> prevMax(s.m), prevSum(s.m);
    if (update)
        for (uint32_t r = 0; r < s.m; ++r) {
            prevMax[r] = LoadF<T>(Access::Off(inMax) + r * 32u);
            prevSum[r] = LoadF<T>(Access::Off(inSum) + r * 32u);
        }
    ok = rt::CheckCount(op, Access::Off(dst), bytes, true, Access::Buf(dst), "dst");
    ok = rt::CheckCount(op, Access::Off(sum), statBytes, true, Access::Buf(sum), "expSumTensor") && ok;
    ok = rt::CheckCount(op, Access::Off(max), statBytes, true, Access::Buf(max), "maxTensor") && ok;
    if (update) ok = rt::CheckCount(op, Access::Off(expMax), statBytes, true, Access::Buf(expMax), "expMaxTensor") && ok;
    if (!ok) return;
    std::vector<float> row(s.k);
    const uint32_t esz = static_cast<uint32_t>(sizeof(T));
    for (uint32_t r = 0; r < s.m; ++r) {
        const uint32_t at = r * s.k * esz;
        for (uint32_t c = 0; c < s.k; ++c) row[c] = LoadF<T>(Access::Off(src) + at + c * esz);
        float mx = update ? prevMax[r] : row[0];
        for (uint32_t c = 0; c < s.redK; ++c) mx = row[c] > mx ? row[c] : mx;
        float total = 0.0f;
        for (uint32_t c = 0; c < s.k; ++c) {
            row[c] = __builtin_expf(row[c] - mx);
            if (c < s.redK) total += row[c];
        }
        for (uint32_t c = 0; c < s.k; ++c) StoreF<T>(Access::Off(dst) + at + c * esz, row[c]);
        if (update) {
            const float e = __builtin_expf(prevMax[r] - mx);
            total += e * prevSum[r];
            StoreRowBlock(expMax, r, e);
        }
        StoreRowBlock(sum, r, total);
        StoreRowBlock(max, r, mx);
    }
}
}  // namespace twin_detail

template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &expSumTensor, const LocalTensor<T> &maxTensor,
                           const LocalTensor<T> &srcTensor, const LocalTensor<T> &expMaxTensor, const LocalTensor<T> &inExpSumTensor,
                           const LocalTensor<T> &inMaxTensor, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftmaxFlashV2: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftmaxFlashV2Run<T>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling,
                                      softmaxShapeInfo, isUpdate, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &expSumTensor, const LocalTensor<T> &maxTensor,
                           const LocalTensor<T> &srcTensor, const LocalTensor<T> &expMaxTensor, const LocalTensor<T> &inExpSumTensor,
                           const LocalTensor<T> &inMaxTensor, const LocalTensor<uint8_t> &sharedTmpBuffer, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftmaxFlashV2: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftmaxFlashV2Run<T>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer,
                                      tiling, softmaxShapeInfo, isUpdate, loc);
}
// The kernel-side tiling of SoftmaxFlashV2 (docs: SoftMaxFlashV2TilingFunc's kernel form): the shape; the split fields
// are informative to the twin.
inline SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(uint32_t srcM, uint32_t srcK, uint32_t dataTypeSize1, uint32_t dataTypeSize2,
                                                  uint32_t localWorkSpaceSize, bool isUpdate = false, bool isBasicBlock = false,
                                                  bool isFlashOutputBrc = false)
{
    (void)dataTypeSize2, (void)localWorkSpaceSize, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    SoftMaxTiling t;
    t.srcM = srcM, t.srcK = srcK, t.srcSize = srcM * srcK;
    t.outMaxM = srcM, t.outMaxK = dataTypeSize1 ? 32 / dataTypeSize1 : 0, t.outMaxSize = t.outMaxM * t.outMaxK;
    t.splitM = srcM, t.splitK = srcK, t.splitSize = t.srcSize;
    t.reduceM = srcM, t.reduceK = t.outMaxK, t.reduceSize = t.outMaxSize;
    t.rangeM = 1;
    return t;
}

template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &sumTensor, const LocalTensor<T> &maxTensor, const LocalTensor<T> &srcTensor,
                    const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftMax: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftMaxRun<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half> &dstTensor, const LocalTensor<float> &sumTensor, const LocalTensor<float> &maxTensor,
                    const LocalTensor<half> &srcTensor, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftMax: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftMaxRun<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const SoftMaxTiling &tiling,
                    const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::SoftMaxRun<T, T>(dstTensor, nullptr, nullptr, srcTensor, nullptr, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &sumTensor, const LocalTensor<T> &maxTensor, const LocalTensor<T> &srcTensor,
                    const LocalTensor<uint8_t> &sharedTmpBuffer, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftMax: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftMaxRun<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half> &dstTensor, const LocalTensor<float> &sumTensor, const LocalTensor<float> &maxTensor,
                    const LocalTensor<half> &srcTensor, const LocalTensor<uint8_t> &sharedTmpBuffer, const SoftMaxTiling &tiling,
                    const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftMax: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftMaxRun<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const LocalTensor<uint8_t> &sharedTmpBuffer,
                    const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::SoftMaxRun<T, T>(dstTensor, nullptr, nullptr, srcTensor, &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}

template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &gradTensor, const LocalTensor<T> &srcTensor, const SoftMaxTiling &tiling,
                        bool isFront = false, const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftmaxGrad: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftmaxGradRun<T>(dstTensor, gradTensor, srcTensor, nullptr, tiling, isFront, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &gradTensor, const LocalTensor<T> &srcTensor,
                        const LocalTensor<uint8_t> &sharedTmpBuffer, const SoftMaxTiling &tiling, bool isFront = false,
                        const SoftMaxShapeInfo &softmaxShapeInfo = {}, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(!isDataFormatNZ, "SoftmaxGrad: the NZ format is not modelled by the CPU twin");
    twin_detail::SoftmaxGradRun<T>(dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling, isFront, softmaxShapeInfo, loc);
}
}  // namespace AscendC
#endif
