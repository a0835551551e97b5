// AscendOptimizer CPU twin: reductions (ReduceSum/Max/Min, WholeReduceSum/Max/Min, BlockReduceSum/Max/Min).
#ifndef ASCENDOPT_TWIN_VEC_REDUCE_H
#define ASCENDOPT_TWIN_VEC_REDUCE_H

#include "ascendopt_twin/raw_ub.h"
#include "ascendopt_twin/vec_common.h"

namespace AscendC {
// ---------------- Reductions ----------------
namespace twin_detail {
// Pairwise (binary-tree) sum of v[0..n) in T precision; n is padded with zeros to a power of two.
template <typename T> inline T TreeSum(T *v, uint32_t n)
{
    if (n == 0) return FromF<T>(0.0f);
    uint32_t p = 1;
    while (p < n) p <<= 1;
    for (uint32_t i = n; i < p; ++i) v[i] = FromF<T>(0.0f);
    for (uint32_t w = p; w > 1; w >>= 1)
        for (uint32_t i = 0; i < w / 2; ++i) v[i] = FromF<T>(ToF(v[2 * i]) + ToF(v[2 * i + 1]));
    return v[0];
}
// Atlas A2, ReduceSum's count form: binary tree inside each 256 B repeat, repeat results accumulated in order.
template <typename T> inline T RepeatTreeSum(const T *s, int32_t count)
{
    const uint32_t lanes = Lanes<T>();
    T tmp[128];
    T acc = FromF<T>(0.0f);
    for (int32_t base = 0; base < count; base += static_cast<int32_t>(lanes)) {
        uint32_t n = static_cast<uint32_t>(count - base) < lanes ? static_cast<uint32_t>(count - base) : lanes;
        for (uint32_t i = 0; i < n; ++i) tmp[i] = s[base + i];
        T part = TreeSum(tmp, n);
        acc = base == 0 ? part : FromF<T>(ToF(acc) + ToF(part));
    }
    return acc;
}
template <typename T> inline void StoreIndex(T *p, uint32_t idx)
{
    if constexpr (sizeof(T) == 2) { uint16_t u = static_cast<uint16_t>(idx); std::memcpy(p, &u, 2); }
    else { uint32_t u = idx; std::memcpy(p, &u, 4); }
}

// The reduction result registers (rt.h): a value as its bits in the low bytes, an index as the integer.
template <typename T> inline uint64_t RegBits(T v)
{
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <typename T> inline void SetMaxMinReg(T v, uint32_t idx)
{
    rt::g_blk->maxMinVal = RegBits(v);
    rt::g_blk->maxMinIdx = idx;
}

template <typename T, bool kMax>
inline void ReduceMaxMinCount(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, bool calIndex, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), static_cast<uint64_t>(count) * sizeof(T), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), (calIndex ? 2u : 1u) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst", sizeof(T)) && ok;
    if (!ok) return;
    const T *s = twin_detail::Access::Ptr(src);
    uint32_t best = 0;
    for (int32_t i = 1; i < count; ++i) {
        float a = ToF(s[i]), b = ToF(s[best]);
        if (kMax ? a > b : a < b) best = static_cast<uint32_t>(i);
    }
    T v = s[best];
    *twin_detail::Access::Ptr(dst, 0) = v;
    if (calIndex) StoreIndex(twin_detail::Access::Ptr(dst, 1), best);
    SetMaxMinReg(v, best);
}
template <typename T>
inline void ReduceSumCount(const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "ReduceSum", loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), static_cast<uint64_t>(count) * sizeof(T), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), sizeof(T), true, twin_detail::Access::Buf(dst), "dst", sizeof(T)) && ok;
    if (!ok) return;
    T acc = RepeatTreeSum(twin_detail::Access::Ptr(src), count);
    *twin_detail::Access::Ptr(dst, 0) = acc;
    rt::g_blk->accVal = RegBits(acc);
}
// Per-repeat reduction (mask form). kind: 0 sum, 1 max, 2 min. Returns false if skipped.
template <typename T>
inline bool RepeatReduce(const rt::Op &op, const LocalTensor<T> &src, rt::Mask &mask, uint32_t repeat, uint32_t srcBlk, uint32_t srcRep,
                         int kind, T *outVal, uint32_t *outIdx)
{
    uint32_t lanes = Lanes<T>();
    rt::Opnd o[1] = {{twin_detail::Access::Off(src), twin_detail::Access::Buf(src), sizeof(T), srcBlk, srcRep, false, "src"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, repeat, mask)) return false;
    T tmp[128];
    for (uint32_t r = 0; r < repeat; ++r) {
        uint32_t best = 0;
        bool have = false;
        for (uint32_t l = 0; l < lanes; ++l) {
            T x = FromF<T>(0.0f);
            if (mask.At(r, l, lanes)) {
                std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
                if (kind != 0) {
                    if (!have || (kind == 1 ? ToF(x) > ToF(tmp[best]) : ToF(x) < ToF(tmp[best]))) best = l;
                    have = true;
                }
            }
            tmp[l] = x;
        }
        if (kind == 0) outVal[r] = TreeSum(tmp, lanes);
        else { outVal[r] = tmp[best]; outIdx[r] = best; }
    }
    return true;
}
}  // namespace twin_detail

template <typename T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                      ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceSumCount(dst, src, count, loc);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                      bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMax: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceMaxMinCount<T, true>("ReduceMax", dst, src, count, calIndex, loc);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                      bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMin: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceMaxMinCount<T, false>("ReduceMin", dst, src, count, calIndex, loc);
}

namespace twin_detail {
// Mask form of ReduceSum/Max/Min: per-repeat results combined (binary tree for sum, as on A2).
template <typename T>
inline void ReduceRepAll(const char *name, int kind, const LocalTensor<T> &dst, const LocalTensor<T> &src, rt::Mask mask, int32_t repeat,
                         int32_t srcRepStride, bool calIndex, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * Lanes<T>(), static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), twin_detail::Access::Off(dst));
    if (repeat <= 0) return;
    T *vals = new T[static_cast<size_t>(repeat) * 2 + 128];
    uint32_t *idx = new uint32_t[static_cast<size_t>(repeat)];
    if (RepeatReduce(op, src, mask, static_cast<uint32_t>(repeat), 1, static_cast<uint32_t>(srcRepStride), kind, vals, idx) &&
        rt::CheckCount(op, twin_detail::Access::Off(dst), (calIndex ? 2u : 1u) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst", sizeof(T))) {
        if (kind == 0) {
            *twin_detail::Access::Ptr(dst, 0) = TreeSum(vals, static_cast<uint32_t>(repeat));
        } else {
            int32_t best = 0;
            for (int32_t r = 1; r < repeat; ++r)
                if (kind == 1 ? ToF(vals[r]) > ToF(vals[best]) : ToF(vals[r]) < ToF(vals[best])) best = r;
            *twin_detail::Access::Ptr(dst, 0) = vals[best];
            if (calIndex) StoreIndex(twin_detail::Access::Ptr(dst, 1), static_cast<uint32_t>(best) * Lanes<T>() + idx[best]);
            SetMaxMinReg(vals[best], static_cast<uint32_t>(best) * Lanes<T>() + idx[best]);
        }
    }
    delete[] vals;
    delete[] idx;
}
}  // namespace twin_detail

template <typename T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                      const int32_t repeatTime, const int32_t srcRepStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceSum", 0, dst, src, twin_detail::MaskBits(mask), repeatTime, srcRepStride, false, loc);
}
template <typename T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                      const int32_t repeatTime, const int32_t srcRepStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceSum", 0, dst, src, twin_detail::MaskCnt(static_cast<uint64_t>(mask)), repeatTime, srcRepStride, false, loc);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                      const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMax: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceMax", 1, dst, src, twin_detail::MaskBits(mask), repeatTime, srcRepStride, calIndex, loc);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                      const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMax: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceMax", 1, dst, src, twin_detail::MaskCnt(static_cast<uint64_t>(mask)), repeatTime, srcRepStride, calIndex, loc);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                      const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMin: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceMin", 2, dst, src, twin_detail::MaskBits(mask), repeatTime, srcRepStride, calIndex, loc);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                      const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "ReduceMin: data type not supported on Ascend 910B (Atlas A2)");
    (void)sharedTmpBuffer;
    twin_detail::ReduceRepAll("ReduceMin", 2, dst, src, twin_detail::MaskCnt(static_cast<uint64_t>(mask)), repeatTime, srcRepStride, calIndex, loc);
}

namespace twin_detail {
// Max/min also set the max/min registers to the best of all repeats (the first on ties), at index
// repeat * lanes + lane (the element's index in the contiguous case, srcRepStride 8). `accumulate` (vcadd's
// mode): the repeats' sums added in order into ACC_VAL; `writeDst` false: no per-repeat results (vcadd with
// a null dst).
template <typename T>
inline void WholeReduce(const char *name, int kind, const LocalTensor<T> &dst, const LocalTensor<T> &src, rt::Mask mask, int32_t repeatTime,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order, const Loc &loc,
                        bool accumulate = false, bool writeDst = true)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    int64_t repeat = mask.counter ? mask.Repeats(0, lanes) : repeatTime;
    TraceRep(op, DTypeName<T>::value, mask, static_cast<uint32_t>(repeat < 0 ? 0 : repeat), lanes, sizeof(T), twin_detail::Access::Off(dst));
    if (repeat <= 0) return;
    if (repeat > 255) rt::Report("bad_repeat", true, loc.file, loc.line, "%s repeatTime %lld exceeds 255", name, static_cast<long long>(repeat));
    T vals[256];
    uint32_t idx[256];
    uint32_t rep = static_cast<uint32_t>(repeat > 255 ? 255 : repeat);
    if (!RepeatReduce(op, src, mask, rep, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), kind, vals, idx)) return;
    if (kind != 0) {
        uint32_t best = 0;
        for (uint32_t r = 1; r < rep; ++r)
            if (kind == 1 ? ToF(vals[r]) > ToF(vals[best]) : ToF(vals[r]) < ToF(vals[best])) best = r;
        SetMaxMinReg(vals[best], best * lanes + idx[best]);
    } else if (accumulate) {
        T acc = vals[0];
        for (uint32_t r = 1; r < rep; ++r) acc = FromF<T>(ToF(acc) + ToF(vals[r]));
        rt::g_blk->accVal = RegBits(acc);
    }
    if (!writeDst) return;
    // Result layout per repeat (units of dstRepStride): sum -> value; max/min -> per ReduceOrder.
    uint32_t per = (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE) ? sizeof(T) : (order == ReduceOrder::ORDER_ONLY_INDEX ? 4u : 2u * sizeof(T));
    for (uint32_t r = 0; r < rep; ++r) {
        uint32_t off = twin_detail::Access::Off(dst) + r * static_cast<uint32_t>(dstRepStride) * per;
        if (!rt::Ub(op, off, per, true, twin_detail::Access::Buf(dst), "dst")) return;
        uint8_t *p = rt::UbPtr(off);
        if (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE) std::memcpy(p, &vals[r], sizeof(T));
        else if (order == ReduceOrder::ORDER_ONLY_INDEX) std::memcpy(p, &idx[r], 4);
        else if (order == ReduceOrder::ORDER_VALUE_INDEX) { std::memcpy(p, &vals[r], sizeof(T)); StoreIndex(reinterpret_cast<T *>(p + sizeof(T)), idx[r]); }
        else { StoreIndex(reinterpret_cast<T *>(p), idx[r]); std::memcpy(p + sizeof(T), &vals[r], sizeof(T)); }
    }
}

// BlockReduceSum/Max/Min: one result per 32 B data block of every repeat (binary tree inside the block for the sum),
// the 8 results of a repeat contiguous; dstRepStride in units of 8 results. A block none of whose lanes is active
// is not written.
template <typename T>
inline void BlockReduce(const char *name, int kind, const LocalTensor<T> &dst, const LocalTensor<T> &src, rt::Mask mask, int32_t repeatTime,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    uint32_t perBlk = 32u / sizeof(T);
    int64_t repeat = mask.counter ? mask.Repeats(0, lanes) : repeatTime;
    TraceRep(op, DTypeName<T>::value, mask, static_cast<uint32_t>(repeat < 0 ? 0 : repeat), lanes, sizeof(T), twin_detail::Access::Off(dst));
    if (repeat <= 0) return;
    if (repeat > 255) rt::Report("bad_repeat", true, loc.file, loc.line, "%s repeatTime %lld exceeds 255", name, static_cast<long long>(repeat));
    uint32_t rep = static_cast<uint32_t>(repeat > 255 ? 255 : repeat);
    if (twin_detail::Access::Off(dst) % (sizeof(T) == 2 ? 16u : 32u) != 0)
        rt::Report("misaligned_operand", true, op.file, op.line, "%s: dst at UB offset %u is not %u B aligned", name, twin_detail::Access::Off(dst),
                   sizeof(T) == 2 ? 16u : 32u);
    rt::Opnd o[1] = {{twin_detail::Access::Off(src), twin_detail::Access::Buf(src), sizeof(T), static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), false, "src"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, rep, mask)) return;
    T tmp[16];
    for (uint32_t r = 0; r < rep; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            bool any = false;
            uint32_t n = 0;
            T best{};
            for (uint32_t k = 0; k < perBlk; ++k) {
                uint32_t l = b * perBlk + k;
                T x = FromF<T>(0.0f);
                if (mask.At(r, l, lanes)) {
                    std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
                    if (!any || (kind == 1 ? ToF(x) > ToF(best) : ToF(x) < ToF(best))) best = x;
                    any = true;
                }
                tmp[n++] = x;
            }
            if (!any) continue;
            T v = kind == 0 ? TreeSum(tmp, perBlk) : best;
            uint32_t off = twin_detail::Access::Off(dst) + (r * static_cast<uint32_t>(dstRepStride) * 8u + b) * static_cast<uint32_t>(sizeof(T));
            if (!rt::Ub(op, off, sizeof(T), true, twin_detail::Access::Buf(dst), "dst")) return;
            std::memcpy(rt::UbPtr(off), &v, sizeof(T));
        }
}
}  // namespace twin_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "WholeReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::WholeReduce("WholeReduceSum", 0, dst, src, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstRepStride, srcBlkStride,
                             srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "WholeReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::WholeReduce("WholeReduceSum", 0, dst, src, twin_detail::UseMask<isSetMask>(static_cast<uint64_t>(mask)), repeatTime,
                             dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
// RepeatReduceSum: WholeReduceSum without the bitwise mask form; dstBlkStride has no effect (the docs say so),
// dstRepStride counts reduced elements.
template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const int32_t mask,
                            const int32_t dstBlkStride, const int32_t srcBlkStride, const int32_t dstRepStride,
                            const int32_t srcRepStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "RepeatReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    (void)dstBlkStride;
    twin_detail::WholeReduce("RepeatReduceSum", 0, dst, src, twin_detail::UseMask<isSetMask>(static_cast<uint64_t>(mask)), repeatTime,
                             dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
#define ASCENDOPT_TWIN_WHOLE_MAXMIN(NAME, KIND)                                                                                   \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime,       \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendopt_twin::Loc loc = ascendopt_twin::Loc())         \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::WholeReduce(#NAME, KIND, dst, src, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstRepStride,          \
                                 srcBlkStride, srcRepStride, order, loc);                                                         \
    }                                                                                                                             \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,          \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendopt_twin::Loc loc = ascendopt_twin::Loc())         \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::WholeReduce(#NAME, KIND, dst, src, twin_detail::UseMask<isSetMask>(static_cast<uint64_t>(mask)), repeatTime, \
                                 dstRepStride, srcBlkStride, srcRepStride, order, loc);                                           \
    }
ASCENDOPT_TWIN_WHOLE_MAXMIN(WholeReduceMax, 1)
ASCENDOPT_TWIN_WHOLE_MAXMIN(WholeReduceMin, 2)
#undef ASCENDOPT_TWIN_WHOLE_MAXMIN

// BlockReduceSum/Max/Min(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)
#define ASCENDOPT_TWIN_BLOCK_REDUCE(NAME, KIND)                                                                                   \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const uint64_t mask[],       \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                             \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::BlockReduce(#NAME, KIND, dst, src, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstRepStride,          \
                                 srcBlkStride, srcRepStride, loc);                                                                \
    }                                                                                                                             \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const int32_t mask,          \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                             \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::BlockReduce(#NAME, KIND, dst, src, twin_detail::UseMask<isSetMask>(static_cast<uint64_t>(mask)),             \
                                 repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);                                      \
    }
ASCENDOPT_TWIN_BLOCK_REDUCE(BlockReduceSum, 0)
ASCENDOPT_TWIN_BLOCK_REDUCE(BlockReduceMax, 1)
ASCENDOPT_TWIN_BLOCK_REDUCE(BlockReduceMin, 2)
#undef ASCENDOPT_TWIN_BLOCK_REDUCE

namespace twin_detail {
// PairReduceSum (docs): each repeat's lanes summed two by two (lane 2p + lane 2p+1), the lanes/2 results contiguous;
// dstRepStride in units of a reduced repeat (128 B). An inactive lane adds nothing; a pair with no active lane
// is not written. A repeat is read whole before its results are written (in place, dst behind src, is safe).
template <typename T>
inline void PairReduce(const LocalTensor<T> &dst, const LocalTensor<T> &src, rt::Mask mask, int32_t repeatTime, int32_t dstRepStride,
                       int32_t srcBlkStride, int32_t srcRepStride, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "PairReduceSum", loc);
    uint32_t lanes = Lanes<T>();
    int64_t repeat = mask.counter ? mask.Repeats(0, lanes) : repeatTime;
    TraceRep(op, DTypeName<T>::value, mask, static_cast<uint32_t>(repeat < 0 ? 0 : repeat), lanes, sizeof(T), twin_detail::Access::Off(dst));
    if (repeat <= 0) return;
    if (repeat > 255) rt::Report("bad_repeat", true, loc.file, loc.line, "PairReduceSum repeatTime %lld exceeds 255", static_cast<long long>(repeat));
    uint32_t rep = static_cast<uint32_t>(repeat > 255 ? 255 : repeat);
    rt::Opnd o[1] = {{twin_detail::Access::Off(src), twin_detail::Access::Buf(src), sizeof(T), static_cast<uint32_t>(srcBlkStride),
                      static_cast<uint32_t>(srcRepStride), false, "src"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, rep, mask)) return;
    T tmp[128];
    bool on[128];
    for (uint32_t r = 0; r < rep; ++r) {
        for (uint32_t l = 0; l < lanes; ++l) {
            on[l] = mask.At(r, l, lanes);
            tmp[l] = FromF<T>(0.0f);
            if (on[l]) std::memcpy(&tmp[l], rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
        }
        for (uint32_t p = 0; p < lanes / 2; ++p) {
            if (!on[2 * p] && !on[2 * p + 1]) continue;
            T v = FromF<T>(ToF(tmp[2 * p]) + ToF(tmp[2 * p + 1]));
            uint32_t off = twin_detail::Access::Off(dst) + (r * static_cast<uint32_t>(dstRepStride) * (lanes / 2) + p) * static_cast<uint32_t>(sizeof(T));
            if (!rt::Ub(op, off, sizeof(T), true, twin_detail::Access::Buf(dst), "dst")) return;
            std::memcpy(rt::UbPtr(off), &v, sizeof(T));
        }
    }
}
}  // namespace twin_detail
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const uint64_t mask[],
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                          ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "PairReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::PairReduce(dst, src, twin_detail::UseMask<isSetMask>(mask), repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);
}
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const int32_t mask,
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                          ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "PairReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::PairReduce(dst, src, twin_detail::UseMask<isSetMask>(static_cast<uint64_t>(mask)), repeatTime, dstRepStride, srcBlkStride,
                            srcRepStride, loc);
}

// The reduction registers, read by the scalar unit (rt.h): GetReduceMaxMinCount gives the value and index of the
// last ReduceMax/Min or WholeReduceMax/Min, the index as the bits of an integer in a T (the docs: read it back
// through uint32_t for float, uint16_t for half); A2 has no value-only form. GetAccVal<T> gives ACC_VAL (the
// count-form ReduceSum's result); GetAccVal() its raw 64 bits, as kernels read it after a vcadd in accumulate mode.
template <typename T> inline void GetReduceMaxMinCount(T &maxMinValue, T &maxMinIndex, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "GetReduceMaxMinCount: data type not supported on Ascend 910B (Atlas A2)");
    ascendopt_twin::rt::Op op = ascendopt_twin::rt::Begin(ascendopt_twin::P_S, "GetReduceMaxMinCount", loc);
    ascendopt_twin::rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, 1, 2 * sizeof(T));
    std::memcpy(&maxMinValue, &ascendopt_twin::rt::g_blk->maxMinVal, sizeof(T));
    if constexpr (sizeof(T) == 2) { uint16_t i = static_cast<uint16_t>(ascendopt_twin::rt::g_blk->maxMinIdx); std::memcpy(&maxMinIndex, &i, 2); }
    else { uint32_t i = static_cast<uint32_t>(ascendopt_twin::rt::g_blk->maxMinIdx); std::memcpy(&maxMinIndex, &i, 4); }
}
template <typename T> inline T GetAccVal(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "GetAccVal: data type not supported on Ascend 910B (Atlas A2)");
    ascendopt_twin::rt::Op op = ascendopt_twin::rt::Begin(ascendopt_twin::P_S, "GetAccVal", loc);
    ascendopt_twin::rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, 1, sizeof(T));
    T v;
    std::memcpy(&v, &ascendopt_twin::rt::g_blk->accVal, sizeof(T));
    return v;
}
inline uint64_t GetAccVal(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::Op op = ascendopt_twin::rt::Begin(ascendopt_twin::P_S, "GetAccVal", loc);
    ascendopt_twin::rt::TraceOp(op, "uint64", 1, 8);
    return ascendopt_twin::rt::g_blk->accVal;
}

}  // namespace AscendC

// vcadd: the CCE intrinsic under WholeReduceSum, as CANN's older 910B kernels call it on `(__ubuf__ float *)
// t.GetPhyAddr()` (dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, mode), with the mask as set.
// The twin's GetPhyAddr() is the host address of the UB byte (reported as raw_ub_pointer), so the pointer less
// the UB's base is the offset (raw_ub.h: one outside the UB stops the block); the operands' buffers are unknown,
// so only the UB's own bounds are checked. Timed as WholeReduceSum (the same VCADD instruction).
// mode true (accumulate): the repeats' sums also go, added, into ACC_VAL, which the kernel reads with
// get_acc_val() (CPU debug build) or GetAccVal(); a null dst (`vcadd(nullptr, src, …, true)`, as the 910B norm
// kernels write it) takes no per-repeat results. dst is not deduced, so nullptr binds to it.
template <typename T>
inline void vcadd(__ubuf__ typename std::common_type<T>::type *dst, __ubuf__ T *src, uint8_t repeat, uint16_t dstRepStride,
                  uint16_t srcBlkStride, uint16_t srcRepStride, bool mode = false, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace AscendC;
    static_assert(twin_detail::kFloat<T>, "vcadd: data type not supported on Ascend 910B (Atlas A2)");
    // a null dst (accumulate mode only) is an operand outside the UB the instruction never writes
    const LocalTensor<T> d = dst ? twin_detail::RawUbView<T>(dst, "vcadd", "dst", loc)
                                 : twin_detail::Access::Make<T>(ascendopt_twin::rt::g_blk->ubSize, 0, ascendopt_twin::rt::UbBuf{0, 0}, -1,
                                                                TPosition::VECCALC);
    twin_detail::WholeReduce("WholeReduceSum", 0, d, twin_detail::RawUbView<T>(src, "vcadd", "src", loc), twin_detail::RegisterMask(), repeat, dstRepStride, srcBlkStride,
                             srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc, mode, dst != nullptr);
}
inline uint64_t get_acc_val(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) { return AscendC::GetAccVal(loc); }
#endif
