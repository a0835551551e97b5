// AscendOptimizer CPU twin: the reduce family of the AscendC advanced API (lib/reduce): Sum and Mean along the
// last axis of an [outter, inner] tile whose rows hold n valid elements (inner: n padded to 32 bytes).
// Each row is summed as ReduceSum's count form does (a binary tree inside each 256 B repeat, repeats accumulated
// in order); Mean then multiplies by 1/n in accType. CANN does not publish the instruction order of either, so
// the rounding is the twin's estimate. sharedTmpBuffer is accepted but not modelled.
#ifndef ASCENDOPT_TWIN_ADV_REDUCE_H
#define ASCENDOPT_TWIN_ADV_REDUCE_H

#include <vector>

#include "ascendopt_twin/vec_reduce.h"

namespace AscendC {
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;  // n padded to 32 bytes, in elements
    uint32_t n;      // valid elements of a row
};
struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

namespace twin_detail {
// Checks the shape and the operands; false (finding reported) when the call must not run.
template <typename T>
inline bool RowReduceChecks(const rt::Op &op, const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t outter, uint32_t inner,
                            uint32_t n)
{
    if (outter == 0 || n == 0 || n > inner || (static_cast<uint64_t>(inner) * sizeof(T)) % 32 != 0) {
        rt::Report("adv_api_bad_params", true, op.file, op.line,
                   "%s: outter %u, inner %u, n %u: needs outter >= 1, 1 <= n <= inner and inner * %u bytes a multiple of 32",
                   op.name, outter, inner, n, static_cast<unsigned>(sizeof(T)));
        return false;
    }
    const uint64_t srcBytes = (static_cast<uint64_t>(outter - 1) * inner + n) * sizeof(T);
    bool ok = rt::CheckCount(op, Access::Off(src), srcBytes, false, Access::Buf(src), "src");
    ok = rt::CheckCount(op, Access::Off(dst), static_cast<uint64_t>(outter) * sizeof(T), true, Access::Buf(dst), "dst") && ok;
    return ok;
}

template <typename T, typename Acc, bool kMean>
inline void RowReduce(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t outter, uint32_t inner,
                      uint32_t n, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    const uint64_t elems = static_cast<uint64_t>(outter) * inner;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(elems), static_cast<int64_t>(elems * sizeof(T)),
                Repeats(static_cast<int64_t>(elems), sizeof(T)), -1, Access::Off(dst));
    if (!RowReduceChecks(op, dst, src, outter, inner, n)) return;
    // Rows are read before any result is written: dst may overlap src.
    std::vector<T> out(outter);
    std::vector<Acc> row(n);
    for (uint32_t r = 0; r < outter; ++r) {
        const T *s = Access::Ptr(src, static_cast<uint64_t>(r) * inner);
        for (uint32_t i = 0; i < n; ++i) row[i] = FromF<Acc>(ToF(s[i]));
        Acc acc = RepeatTreeSum(row.data(), static_cast<int32_t>(n));
        if (kMean) acc = FromF<Acc>(ToF(acc) * ToF(FromF<Acc>(1.0f / static_cast<float>(n))));
        out[r] = FromF<T>(ToF(acc));
    }
    for (uint32_t r = 0; r < outter; ++r) *Access::Ptr(dst, r) = out[r];
}
}  // namespace twin_detail

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const LocalTensor<uint8_t> &sharedTmpBuffer,
                const SumParams &sumParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Sum: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::RowReduce<T, T, false>("Sum", dstTensor, srcTensor, sumParams.outter, sumParams.inner, sumParams.n, loc);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const SumParams &sumParams,
                ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Sum: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::RowReduce<T, T, false>("Sum", dstTensor, srcTensor, sumParams.outter, sumParams.inner, sumParams.n, loc);
}

// accType: the precision of the sum (half input with float accType: converted first, as the docs say).
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const LocalTensor<uint8_t> &sharedTmpBuffer,
                 const MeanParams &meanParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T> && twin_detail::kFloat<accType> && sizeof(accType) >= sizeof(T),
                  "Mean: (T, accType) must be (half, half), (float, float) or (half, float)");
    (void)sharedTmpBuffer;
    twin_detail::RowReduce<T, accType, true>("Mean", dstTensor, srcTensor, meanParams.outter, meanParams.inner, meanParams.n, loc);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const MeanParams &meanParams,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T> && twin_detail::kFloat<accType> && sizeof(accType) >= sizeof(T),
                  "Mean: (T, accType) must be (half, half), (float, float) or (half, float)");
    twin_detail::RowReduce<T, accType, true>("Mean", dstTensor, srcTensor, meanParams.outter, meanParams.inner, meanParams.n, loc);
}
}  // namespace AscendC

#endif
