// AscendOptimizer CPU twin: Cast (type conversion with round modes).
#ifndef ASCENDOPT_TWIN_VEC_VCONV_H
#define ASCENDOPT_TWIN_VEC_VCONV_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
// ---------------- Cast ----------------
namespace twin_detail {
enum : uint32_t {
    RM_NONE = 1u << 0, RM_RINT = 1u << 1, RM_FLOOR = 1u << 2, RM_CEIL = 1u << 3, RM_ROUND = 1u << 4, RM_TRUNC = 1u << 5, RM_ODD = 1u << 6,
    RM_5 = RM_RINT | RM_FLOOR | RM_CEIL | RM_ROUND | RM_TRUNC,
};
// Documented Atlas A2 Cast combinations (dst D, src S) and their round modes; 0 = unsupported.
template <typename D, typename S> constexpr uint32_t CastModes()
{
    if constexpr (std::is_same<S, int8_t>::value && std::is_same<D, half>::value) return RM_NONE;
    else if constexpr (std::is_same<S, uint8_t>::value && std::is_same<D, half>::value) return RM_NONE;
    else if constexpr (std::is_same<S, int16_t>::value && std::is_same<D, half>::value) return RM_5 | RM_NONE;
    else if constexpr (std::is_same<S, int16_t>::value && std::is_same<D, float>::value) return RM_NONE;
    else if constexpr (std::is_same<S, half>::value && (std::is_same<D, int8_t>::value || std::is_same<D, uint8_t>::value)) return RM_5 | RM_NONE;
    else if constexpr (std::is_same<S, half>::value && (std::is_same<D, int16_t>::value || std::is_same<D, int32_t>::value)) return RM_5;
    else if constexpr (std::is_same<S, half>::value && std::is_same<D, float>::value) return RM_NONE;
    else if constexpr (std::is_same<S, bfloat16_t>::value && std::is_same<D, int32_t>::value) return RM_5;
    else if constexpr (std::is_same<S, bfloat16_t>::value && std::is_same<D, float>::value) return RM_NONE;
    else if constexpr (std::is_same<S, int32_t>::value && std::is_same<D, int16_t>::value) return RM_NONE;
    // s322f16 is a dequantisation: dst = src * DEQSCALE (SetDeqScale(half)); the round mode has no effect.
    else if constexpr (std::is_same<S, int32_t>::value && std::is_same<D, half>::value) return RM_5 | RM_ODD | RM_NONE;
    else if constexpr (std::is_same<S, int32_t>::value && std::is_same<D, float>::value) return RM_5 | RM_NONE;
    else if constexpr (std::is_same<S, int32_t>::value && std::is_same<D, int64_t>::value) return RM_NONE;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, int16_t>::value) return RM_5;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, half>::value) return RM_5 | RM_ODD | RM_NONE;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, bfloat16_t>::value) return RM_5;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, int32_t>::value) return RM_5;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, float>::value) return RM_5;
    else if constexpr (std::is_same<S, float>::value && std::is_same<D, int64_t>::value) return RM_5;
    else if constexpr (std::is_same<S, int64_t>::value && std::is_same<D, int32_t>::value) return RM_NONE;
    else if constexpr (std::is_same<S, int64_t>::value && std::is_same<D, float>::value) return RM_5;
    else return 0;
}
const char *RoundModeName(RoundMode m);

// Bit-level helpers for the floating destination formats.
template <typename D> struct FBits;
template <> struct FBits<half> {
    using U = uint16_t;
    static constexpr double kMax = 65504.0;
};
template <> struct FBits<float> {
    using U = uint32_t;
    static constexpr double kMax = 3.4028234663852886e38;
};
template <> struct FBits<bfloat16_t> {
    using U = uint16_t;
    static constexpr double kMax = 3.3895313892515355e38;
};
template <typename D> inline typename FBits<D>::U Bits(D v) { typename FBits<D>::U u; std::memcpy(&u, &v, sizeof(u)); return u; }
template <typename D> inline D FromBits(typename FBits<D>::U u) { D v; std::memcpy(static_cast<void *>(&v), &u, sizeof(u)); return v; }
template <typename D> inline double ToD(D v) { return static_cast<double>(ToF(v)); }
template <typename D> inline D RneFromDouble(double x)
{
    if constexpr (std::is_same<D, half>::value) return static_cast<half>(x);
    else if constexpr (std::is_same<D, float>::value) return static_cast<float>(x);
    else return bfloat16_t(static_cast<float>(x));
}
template <typename D> inline D NextUp(D v)
{
    using U = typename FBits<D>::U;
    U u = Bits(v);
    constexpr U sign = static_cast<U>(U(1) << (sizeof(U) * 8 - 1));
    if ((u & static_cast<U>(~sign)) == 0) return FromBits<D>(1);   // +-0 -> smallest subnormal
    if (u & sign) return FromBits<D>(static_cast<U>(u - 1));
    return FromBits<D>(static_cast<U>(u + 1));
}
template <typename D> inline D NextDown(D v)
{
    using U = typename FBits<D>::U;
    constexpr U sign = static_cast<U>(U(1) << (sizeof(U) * 8 - 1));
    U u = Bits(v);
    if ((u & static_cast<U>(~sign)) == 0) return FromBits<D>(static_cast<U>(sign | 1));
    if (u & sign) return FromBits<D>(static_cast<U>(u + 1));
    return FromBits<D>(static_cast<U>(u - 1));
}
// Rounds the exact value x to format D with the given mode. Finite overflow saturates (documented default).
template <typename D> inline D RoundFloat(double x, RoundMode m, bool &overflow)
{
    if (x != x) return RneFromDouble<D>(x);
    if (x == __builtin_inf() || x == -__builtin_inf()) return RneFromDouble<D>(x);
    double mx = FBits<D>::kMax;
    if (x > mx || x < -mx) {
        overflow = true;
        return RneFromDouble<D>(x > 0 ? mx : -mx);
    }
    D r = RneFromDouble<D>(x);
    double rd = ToD(r);
    if (rd == x || m == RoundMode::CAST_RINT || m == RoundMode::CAST_NONE) return r;
    D lo, hi;
    if (rd < x) { lo = r; hi = NextUp(r); } else { hi = r; lo = NextDown(r); }
    switch (m) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
        case RoundMode::CAST_ROUND: {
            double dl = x - ToD(lo), dh = ToD(hi) - x;
            if (dl == dh) return x > 0 ? hi : lo;
            return r;
        }
        case RoundMode::CAST_ODD: return (Bits(lo) & 1u) ? lo : hi;
        default: return r;
    }
}
inline double RoundIntegral(double x, RoundMode m)
{
    switch (m) {
        case RoundMode::CAST_FLOOR: return __builtin_floor(x);
        case RoundMode::CAST_CEIL: return __builtin_ceil(x);
        case RoundMode::CAST_TRUNC: return __builtin_trunc(x);
        case RoundMode::CAST_ROUND: return __builtin_round(x);
        default: return __builtin_rint(x);
    }
}
template <typename S> inline double SrcToDouble(S v)
{
    if constexpr (std::is_integral<S>::value) return static_cast<double>(v);
    else return static_cast<double>(ToF(v));
}
template <typename T> constexpr T LimMin()
{
    using U = std::make_unsigned_t<T>;
    return std::is_signed<T>::value ? static_cast<T>(static_cast<U>(U(1) << (sizeof(T) * 8 - 1))) : T(0);
}
template <typename T> constexpr T LimMax() { return static_cast<T>(~LimMin<T>()); }
template <typename D, typename S> inline D CastOne(S v, RoundMode m, bool &overflow, bool &nanInt)
{
    double x = SrcToDouble(v);
    if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value) {
        return RoundFloat<D>(x * static_cast<double>(ascendopt_twin::rt::g_blk->deqScale), RoundMode::CAST_RINT, overflow);
    } else if constexpr (std::is_same<D, float>::value && std::is_same<S, float>::value) {
        return static_cast<float>(RoundIntegral(x, m));  // float -> float rounds to an integral value
    } else if constexpr (std::is_integral<D>::value) {
        if (x != x) { nanInt = true; return 0; }
        double r = std::is_integral<S>::value ? x : RoundIntegral(x, m);
        constexpr double lo = static_cast<double>(LimMin<D>());
        constexpr double hi = static_cast<double>(LimMax<D>());
        if (r < lo) { overflow = true; return LimMin<D>(); }
        if (std::is_signed<D>::value ? r >= -lo : r > hi) { overflow = true; return LimMax<D>(); }
        return static_cast<D>(r);
    } else {
        return RoundFloat<D>(x, m, overflow);
    }
}
}  // namespace twin_detail
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
    if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value) {
        if (!rt::g_blk->deqScaleSet)
            rt::Report("deq_scale_unset", true, op.file, op.line,
                       "Cast int32 -> half scales by the DEQSCALE register, which no SetDeqScale(half) of this block has set; "
                       "its value is undefined on the NPU (the twin used 0)");
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

// DEQSCALE register for the s322f16 Cast (and AddDeqRelu / CastDequant, which the twin does not offer). A scalar
// register write: it orders with vector instructions only through the caller's PipeBarrier<PIPE_V>, as on the NPU.
inline void SetDeqScale(half scale, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_S, "SetDeqScale", loc);
    rt::TraceOp(op, "float16", 1, 0);
    rt::g_blk->deqScale = static_cast<float>(scale);
    rt::g_blk->deqScaleSet = true;
}

template <typename T, typename U>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint32_t count,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::CastModes<T, U>() != 0, "Cast: this src -> dst type combination is not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Cast", loc);
    uint32_t big = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, static_cast<int64_t>(count) * big, twin_detail::Repeats(count, big), -1, twin_detail::Access::Off(dst));
    if (count == 0) return;
    if (!twin_detail::CastModeCheck<T, U>(op, roundMode)) return;
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), static_cast<uint64_t>(count) * sizeof(U), false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(count) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    twin_detail::CastIssues ci;
    if (sizeof(T) > sizeof(U) && twin_detail::Access::Off(dst) > twin_detail::Access::Off(src) && twin_detail::Access::Off(dst) < twin_detail::Access::Off(src) + count * sizeof(U)) {
        for (int64_t i = count - 1; i >= 0; --i) twin_detail::CastElem(twin_detail::Access::Ptr(src, i), twin_detail::Access::Ptr(dst, i), i, roundMode, ci);
    } else {
        for (int64_t i = 0; i < count; ++i) twin_detail::CastElem(twin_detail::Access::Ptr(src, i), twin_detail::Access::Ptr(dst, i), i, roundMode, ci);
    }
    twin_detail::CastReport<T, U>(op, ci, count);
}

namespace twin_detail {
template <typename T, typename U>
inline void CastRep(const LocalTensor<T> &dst, const LocalTensor<U> &src, RoundMode m, rt::Mask mask, uint8_t repeatTime,
                    const UnaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Cast", loc);
    uint32_t big = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    uint32_t lanes = 256u / big;
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, big, twin_detail::Access::Off(dst));
    if (!CastModeCheck<T, U>(op, m)) return;
    rt::Opnd o[2] = {{twin_detail::Access::Off(src), twin_detail::Access::Buf(src), sizeof(U), p.srcBlkStride, p.srcRepStride, false, "src"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, mask)) return;
    CastIssues ci;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.At(r, l, lanes)) continue;
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
    twin_detail::CastRep(dst, src, roundMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::CastModes<T, U>() != 0, "Cast: this src -> dst type combination is not supported on Ascend 910B (Atlas A2)");
    twin_detail::CastRep(dst, src, roundMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}

}  // namespace AscendC
#endif
