// AscendOptimizer CPU twin: Cast, Compare, Select, reductions. Included by vec.h.
#ifndef ASCENDOPT_TWIN_VEC2_H
#define ASCENDOPT_TWIN_VEC2_H

namespace AscendC {
namespace twin_detail {

template <typename D, typename S>
inline bool CastModeCheck(const rt::Op &op, RoundMode m)
{
    constexpr uint32_t modes = CastModes<D, S>();
    uint32_t bit = 1u << static_cast<uint32_t>(m);
    if (static_cast<uint32_t>(m) > 6 || (modes & bit) == 0) {
        rt::Report("unsupported_cast_mode", true, op.file, op.line,
                   "Cast %s -> %s with %s is not a documented combination on Ascend 910B; the twin skipped the instruction",
                   DTypeName<S>::value, DTypeName<D>::value, RoundModeName(m));
        return false;
    }
    return true;
}

struct CastIssues {
    int64_t overflow = 0, nan = 0, firstOverflow = -1, firstNan = -1;
    double firstValue = 0;
};
template <typename D, typename S> inline void CastElem(const S *s, D *d, int64_t i, RoundMode m, CastIssues &ci)
{
    bool of = false, nn = false;
    D r = CastOne<D>(*s, m, of, nn);
    std::memcpy(d, &r, sizeof(D));
    if (of) { if (ci.overflow++ == 0) { ci.firstOverflow = i; ci.firstValue = SrcToDouble(*s); } }
    if (nn) { if (ci.nan++ == 0) ci.firstNan = i; }
}
template <typename D, typename S> inline void CastReport(const rt::Op &op, const CastIssues &ci, int64_t total)
{
    if (ci.overflow)
        rt::Report("cast_overflow", false, op.file, op.line,
                   "Cast %s -> %s: %lld of %lld values are outside the %s range (first: element %lld = %g); the twin saturates as the docs' default saturation mode says",
                   DTypeName<S>::value, DTypeName<D>::value, static_cast<long long>(ci.overflow), static_cast<long long>(total),
                   DTypeName<D>::value, static_cast<long long>(ci.firstOverflow), ci.firstValue);
    if (ci.nan)
        rt::Report("cast_nan_to_int", false, op.file, op.line,
                   "Cast %s -> %s: %lld NaN inputs (first: element %lld); the integer result is undefined on the NPU (the twin writes 0)",
                   DTypeName<S>::value, DTypeName<D>::value, static_cast<long long>(ci.nan), static_cast<long long>(ci.firstNan));
}
}  // namespace twin_detail

template <typename T, typename U>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint32_t count,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::CastModes<T, U>() != 0, "Cast: this src -> dst type combination is not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Cast", loc);
    uint32_t big = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, static_cast<int64_t>(count) * big, twin_detail::Repeats(count, big), -1, dst.off_);
    if (count == 0) return;
    if (!twin_detail::CastModeCheck<T, U>(op, roundMode)) return;
    bool ok = rt::CheckCount(op, src.off_, static_cast<uint64_t>(count) * sizeof(U), false, src.buf_, "src");
    ok = rt::CheckCount(op, dst.off_, static_cast<uint64_t>(count) * sizeof(T), true, dst.buf_, "dst") && ok;
    if (!ok) return;
    twin_detail::CastIssues ci;
    if (sizeof(T) > sizeof(U) && dst.off_ > src.off_ && dst.off_ < src.off_ + count * sizeof(U)) {
        for (int64_t i = count - 1; i >= 0; --i) twin_detail::CastElem(src.Ptr(i), dst.Ptr(i), i, roundMode, ci);
    } else {
        for (int64_t i = 0; i < count; ++i) twin_detail::CastElem(src.Ptr(i), dst.Ptr(i), i, roundMode, ci);
    }
    twin_detail::CastReport<T, U>(op, ci, count);
}

namespace twin_detail {
template <typename T, typename U>
inline void CastRep(const LocalTensor<T> &dst, const LocalTensor<U> &src, RoundMode m, rt::Mask mask, uint8_t repeat,
                    const UnaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Cast", loc);
    uint32_t big = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    uint32_t lanes = 256u / big;
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    if (!CastModeCheck<T, U>(op, m)) return;
    rt::Opnd o[2] = {{src.off_, src.buf_, sizeof(U), p.srcBlkStride, p.srcRepStride, false, "src"},
                     {dst.off_, dst.buf_, sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, mask)) return;
    CastIssues ci;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.On(l)) continue;
            U x;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(U));
            CastElem(&x, reinterpret_cast<T *>(rt::UbPtr(rt::LaneOff(o[1], r, l))), r * lanes + l, m, ci);
        }
    CastReport<T, U>(op, ci, static_cast<int64_t>(repeat) * lanes);
}
}  // namespace twin_detail

template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::CastModes<T, U>() != 0, "Cast: this src -> dst type combination is not supported on Ascend 910B (Atlas A2)");
    static_assert(isSetMask, "Cast: isSetMask=false is not supported by the CPU twin");
    twin_detail::CastRep(dst, src, roundMode, twin_detail::MaskCnt(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::CastModes<T, U>() != 0, "Cast: this src -> dst type combination is not supported on Ascend 910B (Atlas A2)");
    static_assert(isSetMask, "Cast: isSetMask=false is not supported by the CPU twin");
    twin_detail::CastRep(dst, src, roundMode, twin_detail::MaskBits(mask), repeatTime, repeatParams, loc);
}

// ---------------- Compare ----------------
namespace twin_detail {
template <typename T> inline bool Cmp(T a, T b, CMPMODE m)
{
    auto x = std::is_integral<T>::value ? static_cast<double>(a) : static_cast<double>(ToF(a));
    auto y = std::is_integral<T>::value ? static_cast<double>(b) : static_cast<double>(ToF(b));
    switch (m) {
        case CMPMODE::LT: return x < y;
        case CMPMODE::GT: return x > y;
        case CMPMODE::EQ: return x == y;
        case CMPMODE::LE: return x <= y;
        case CMPMODE::GE: return x >= y;
        default: return x != y;
    }
}
template <typename T> inline bool CmpModeOk(const rt::Op &op, CMPMODE m)
{
    if (std::is_same<T, int32_t>::value && m != CMPMODE::EQ) {
        rt::Report("unsupported_compare_mode", true, op.file, op.line,
                   "Compare on int32_t supports only CMPMODE::EQ on Ascend 910B; the twin skipped the instruction");
        return false;
    }
    return true;
}
}  // namespace twin_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, uint32_t count,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Compare: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(twin_detail::OneOf<U, uint8_t, int8_t>(), "Compare: the destination must be uint8_t or int8_t");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Compare", loc);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), twin_detail::Repeats(count, sizeof(T)), -1, dst.off_);
    if (!twin_detail::CmpModeOk<T>(op, cmpMode)) return;
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    uint64_t n = bytes / 256u * 256u / sizeof(T);
    if (n != count)
        rt::Report("compare_count_unaligned", true, loc.file, loc.line,
                   "Compare count %u x %s = %llu B is not a multiple of 256 B; on the NPU only the first %llu elements are compared",
                   count, ascendopt_twin::DTypeName<T>::value, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(n));
    if (n == 0) return;
    bool ok = rt::CheckCount(op, src0.off_, n * sizeof(T), false, src0.buf_, "src0");
    ok = rt::CheckCount(op, src1.off_, n * sizeof(T), false, src1.buf_, "src1") && ok;
    ok = rt::CheckCount(op, dst.off_, n / 8, true, dst.buf_, "dst") && ok;
    if (!ok) return;
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.Ptr());
    for (uint64_t byte = 0; byte < n / 8; ++byte) {
        uint8_t v = 0;
        for (uint32_t k = 0; k < 8; ++k)
            if (twin_detail::Cmp(*src0.Ptr(byte * 8 + k), *src1.Ptr(byte * 8 + k), cmpMode)) v |= static_cast<uint8_t>(1u << k);
        d[byte] = v;
    }
}

namespace twin_detail {
template <typename T, typename U>
inline void CompareRep(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE m, uint8_t repeat,
                       const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Compare", loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat, -1, dst.off_);
    if (!CmpModeOk<T>(op, m)) return;
    // On A2 the mask argument of Compare is reserved: all lanes are compared. Result bits are packed contiguously.
    rt::Mask all = MaskCnt(lanes);
    rt::Opnd o[2] = {{src0.off_, src0.buf_, sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {src1.off_, src1.buf_, sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, all)) return;
    if (!rt::CheckCount(op, dst.off_, static_cast<uint64_t>(repeat) * lanes / 8, true, dst.buf_, "dst")) return;
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.Ptr());
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; l += 8) {
            uint8_t v = 0;
            for (uint32_t k = 0; k < 8; ++k) {
                T a, b;
                std::memcpy(&a, rt::UbPtr(rt::LaneOff(o[0], r, l + k)), sizeof(T));
                std::memcpy(&b, rt::UbPtr(rt::LaneOff(o[1], r, l + k)), sizeof(T));
                if (Cmp(a, b, m)) v |= static_cast<uint8_t>(1u << k);
            }
            d[(r * lanes + l) / 8] = v;
        }
}
}  // namespace twin_detail

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Compare: data type not supported on Ascend 910B (Atlas A2)");
    (void)mask;
    twin_detail::CompareRep(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Compare: data type not supported on Ascend 910B (Atlas A2)");
    (void)mask;
    twin_detail::CompareRep(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}

// ---------------- Select ----------------
namespace twin_detail {
template <typename T, typename U, bool kScalar>
inline void SelectCount(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> *src1,
                        T s1, SELMODE mode, uint32_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Select", loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count == 0) return;
    if (kScalar != (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)) {
        rt::Report("bad_select_mode", true, op.file, op.line,
                   kScalar ? "Select with a scalar src1 requires SELMODE::VSEL_TENSOR_SCALAR_MODE; the twin skipped the instruction"
                           : "Select with a tensor src1 requires VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE; the twin skipped the instruction");
        return;
    }
    uint32_t lanes = Lanes<T>();
    uint64_t maskBytes = mode == SELMODE::VSEL_CMPMASK_SPR ? lanes / 8 : (static_cast<uint64_t>(count) + 7) / 8;
    bool ok = rt::CheckCount(op, selMask.off_, maskBytes, false, selMask.buf_, "selMask");
    ok = rt::CheckCount(op, src0.off_, static_cast<uint64_t>(count) * sizeof(T), false, src0.buf_, "src0") && ok;
    if constexpr (!kScalar) ok = rt::CheckCount(op, src1->off_, static_cast<uint64_t>(count) * sizeof(T), false, src1->buf_, "src1") && ok;
    ok = rt::CheckCount(op, dst.off_, static_cast<uint64_t>(count) * sizeof(T), true, dst.buf_, "dst") && ok;
    if (!ok) return;
    const uint8_t *m = reinterpret_cast<const uint8_t *>(selMask.Ptr());
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? i % lanes : i;
        bool take0 = (m[bit / 8] >> (bit % 8)) & 1u;
        T v;
        if constexpr (kScalar) v = take0 ? *src0.Ptr(i) : s1;
        else v = take0 ? *src0.Ptr(i) : *src1->Ptr(i);
        *dst.Ptr(i) = v;
    }
}
template <typename T, typename U, bool kScalar>
inline void SelectRep(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> *src1,
                      T s1, SELMODE mode, rt::Mask mask, uint8_t repeat, const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Select", loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    rt::Opnd o[3] = {{src0.off_, src0.buf_, sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {kScalar ? src0.off_ : src1->off_, kScalar ? src0.buf_ : src1->buf_, sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"},
                     {dst.off_, dst.buf_, sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    rt::Opnd oo[2] = {o[0], o[2]};
    if (!(kScalar ? rt::CheckRepeat(op, oo, 2, lanes, repeat, mask) : rt::CheckRepeat(op, o, 3, lanes, repeat, mask))) return;
    uint64_t maskBytes = mode == SELMODE::VSEL_CMPMASK_SPR ? lanes / 8 : static_cast<uint64_t>(repeat) * lanes / 8;
    if (!rt::CheckCount(op, selMask.off_, maskBytes, false, selMask.buf_, "selMask")) return;
    const uint8_t *m = reinterpret_cast<const uint8_t *>(selMask.Ptr());
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.On(l)) continue;
            uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? l : r * lanes + l;
            bool take0 = (m[bit / 8] >> (bit % 8)) & 1u;
            T a, b = s1;
            std::memcpy(&a, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            if constexpr (!kScalar) std::memcpy(&b, rt::UbPtr(rt::LaneOff(o[1], r, l)), sizeof(T));
            T v = take0 ? a : b;
            std::memcpy(rt::UbPtr(rt::LaneOff(o[2], r, l)), &v, sizeof(T));
        }
}
}  // namespace twin_detail

template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                   SELMODE selMode, uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectCount<T, U, false>(dst, selMask, src0, &src1, T{}, selMode, count, loc);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1, SELMODE selMode,
                   uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectCount<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, count, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                   SELMODE selMode, uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, false>(dst, selMask, src0, &src1, T{}, selMode, twin_detail::MaskCnt(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                   SELMODE selMode, uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, false>(dst, selMask, src0, &src1, T{}, selMode, twin_detail::MaskBits(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1, SELMODE selMode,
                   uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, twin_detail::MaskCnt(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1, SELMODE selMode,
                   uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, twin_detail::MaskBits(mask), repeatTime, repeatParams, loc);
}

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
template <typename T> inline void StoreIndex(T *p, uint32_t idx)
{
    if constexpr (sizeof(T) == 2) { uint16_t u = static_cast<uint16_t>(idx); std::memcpy(p, &u, 2); }
    else { uint32_t u = idx; std::memcpy(p, &u, 4); }
}

template <typename T, bool kMax>
inline void ReduceMaxMinCount(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, bool calIndex, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    bool ok = rt::CheckCount(op, src.off_, static_cast<uint64_t>(count) * sizeof(T), false, src.buf_, "src");
    ok = rt::CheckCount(op, dst.off_, (calIndex ? 2u : 1u) * sizeof(T), true, dst.buf_, "dst", sizeof(T)) && ok;
    if (!ok) return;
    const T *s = src.Ptr();
    uint32_t best = 0;
    for (int32_t i = 1; i < count; ++i) {
        float a = ToF(s[i]), b = ToF(s[best]);
        if (kMax ? a > b : a < b) best = static_cast<uint32_t>(i);
    }
    T v = s[best];
    *dst.Ptr(0) = v;
    if (calIndex) StoreIndex(dst.Ptr(1), best);
}
template <typename T>
inline void ReduceSumCount(const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "ReduceSum", loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    bool ok = rt::CheckCount(op, src.off_, static_cast<uint64_t>(count) * sizeof(T), false, src.buf_, "src");
    ok = rt::CheckCount(op, dst.off_, sizeof(T), true, dst.buf_, "dst", sizeof(T)) && ok;
    if (!ok) return;
    // Atlas A2, count form: binary tree inside each 256 B repeat, repeat results accumulated in order.
    uint32_t lanes = Lanes<T>();
    T tmp[128];
    T acc = FromF<T>(0.0f);
    const T *s = src.Ptr();
    for (int32_t base = 0; base < count; base += static_cast<int32_t>(lanes)) {
        uint32_t n = static_cast<uint32_t>(count - base) < lanes ? static_cast<uint32_t>(count - base) : lanes;
        for (uint32_t i = 0; i < n; ++i) tmp[i] = s[base + i];
        T part = TreeSum(tmp, n);
        acc = base == 0 ? part : FromF<T>(ToF(acc) + ToF(part));
    }
    *dst.Ptr(0) = acc;
}
// Per-repeat reduction (mask form). kind: 0 sum, 1 max, 2 min. Returns false if skipped.
template <typename T>
inline bool RepeatReduce(const rt::Op &op, const LocalTensor<T> &src, rt::Mask &mask, uint32_t repeat, uint32_t srcBlk, uint32_t srcRep,
                         int kind, T *outVal, uint32_t *outIdx)
{
    uint32_t lanes = Lanes<T>();
    rt::Opnd o[1] = {{src.off_, src.buf_, sizeof(T), srcBlk, srcRep, false, "src"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, repeat, mask)) return false;
    T tmp[128];
    for (uint32_t r = 0; r < repeat; ++r) {
        uint32_t best = 0;
        bool have = false;
        for (uint32_t l = 0; l < lanes; ++l) {
            T x = FromF<T>(0.0f);
            if (mask.On(l)) {
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
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    if (repeat <= 0) return;
    T *vals = new T[static_cast<size_t>(repeat) * 2 + 128];
    uint32_t *idx = new uint32_t[static_cast<size_t>(repeat)];
    if (RepeatReduce(op, src, mask, static_cast<uint32_t>(repeat), 1, static_cast<uint32_t>(srcRepStride), kind, vals, idx) &&
        rt::CheckCount(op, dst.off_, (calIndex ? 2u : 1u) * sizeof(T), true, dst.buf_, "dst", sizeof(T))) {
        if (kind == 0) {
            *dst.Ptr(0) = TreeSum(vals, static_cast<uint32_t>(repeat));
        } else {
            int32_t best = 0;
            for (int32_t r = 1; r < repeat; ++r)
                if (kind == 1 ? ToF(vals[r]) > ToF(vals[best]) : ToF(vals[r]) < ToF(vals[best])) best = r;
            *dst.Ptr(0) = vals[best];
            if (calIndex) StoreIndex(dst.Ptr(1), static_cast<uint32_t>(best) * Lanes<T>() + idx[best]);
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

namespace twin_detail {
template <typename T>
inline void WholeReduce(const char *name, int kind, const LocalTensor<T> &dst, const LocalTensor<T> &src, rt::Mask mask, int32_t repeat,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * Lanes<T>(), static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    if (repeat <= 0) return;
    if (repeat > 255) rt::Report("bad_repeat", true, loc.file, loc.line, "%s repeatTime %d exceeds 255", name, repeat);
    T vals[256];
    uint32_t idx[256];
    uint32_t rep = static_cast<uint32_t>(repeat > 255 ? 255 : repeat);
    if (!RepeatReduce(op, src, mask, rep, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), kind, vals, idx)) return;
    // Result layout per repeat (units of dstRepStride): sum -> value; max/min -> per ReduceOrder.
    uint32_t per = (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE) ? sizeof(T) : (order == ReduceOrder::ORDER_ONLY_INDEX ? 4u : 2u * sizeof(T));
    for (uint32_t r = 0; r < rep; ++r) {
        uint32_t off = dst.off_ + r * static_cast<uint32_t>(dstRepStride) * per;
        if (!rt::Ub(op, off, per, true, dst.buf_, "dst")) return;
        uint8_t *p = rt::UbPtr(off);
        if (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE) std::memcpy(p, &vals[r], sizeof(T));
        else if (order == ReduceOrder::ORDER_ONLY_INDEX) std::memcpy(p, &idx[r], 4);
        else if (order == ReduceOrder::ORDER_VALUE_INDEX) { std::memcpy(p, &vals[r], sizeof(T)); StoreIndex(reinterpret_cast<T *>(p + sizeof(T)), idx[r]); }
        else { StoreIndex(reinterpret_cast<T *>(p), idx[r]); std::memcpy(p + sizeof(T), &vals[r], sizeof(T)); }
    }
}
}  // namespace twin_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "WholeReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(isSetMask, "WholeReduceSum: isSetMask=false is not supported by the CPU twin");
    twin_detail::WholeReduce("WholeReduceSum", 0, dst, src, twin_detail::MaskBits(mask), repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                             ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,
                           const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "WholeReduceSum: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(isSetMask, "WholeReduceSum: isSetMask=false is not supported by the CPU twin");
    twin_detail::WholeReduce("WholeReduceSum", 0, dst, src, twin_detail::MaskCnt(static_cast<uint64_t>(mask)), repeatTime, dstRepStride,
                             srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
#define ASCENDOPT_TWIN_WHOLE_MAXMIN(NAME, KIND)                                                                                   \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime,       \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendopt_twin::Loc loc = ascendopt_twin::Loc())         \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::WholeReduce(#NAME, KIND, dst, src, twin_detail::MaskBits(mask), repeatTime, dstRepStride, srcBlkStride,      \
                                 srcRepStride, order, loc);                                                                       \
    }                                                                                                                             \
    template <typename T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,          \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                          \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendopt_twin::Loc loc = ascendopt_twin::Loc())         \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::WholeReduce(#NAME, KIND, dst, src, twin_detail::MaskCnt(static_cast<uint64_t>(mask)), repeatTime,            \
                                 dstRepStride, srcBlkStride, srcRepStride, order, loc);                                           \
    }
ASCENDOPT_TWIN_WHOLE_MAXMIN(WholeReduceMax, 1)
ASCENDOPT_TWIN_WHOLE_MAXMIN(WholeReduceMin, 2)
#undef ASCENDOPT_TWIN_WHOLE_MAXMIN

}  // namespace AscendC
#endif
