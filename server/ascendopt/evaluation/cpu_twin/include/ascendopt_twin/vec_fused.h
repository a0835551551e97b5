// AscendOptimizer CPU twin: dual-input fused vector instructions (AddRelu, SubRelu, AddReluCast,
// SubReluCast, AddDeqRelu, MulCast, FusedMulAdd, MulAddDst, FusedMulAddRelu / MulAddRelu). Computed in fp32 (int64 for
// integer types), rounded once to the destination type, as Add/Relu are in vec_binary.h/vec_unary.h.
#ifndef ASCENDOPT_TWIN_VEC_FUSED_H
#define ASCENDOPT_TWIN_VEC_FUSED_H

#include <limits>

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
namespace twin_detail {
// Fn::F(src0, src1, dst) → the new dst; kReadsDst: the old dst is an operand.
struct FAddRelu { static constexpr bool kReadsDst = false; static float F(float a, float b, float) { float r = a + b; return r > 0.0f ? r : 0.0f; }
                  static int64_t I(int64_t a, int64_t b, int64_t) { int64_t r = a + b; return r > 0 ? r : 0; } };
struct FSubRelu { static constexpr bool kReadsDst = false; static float F(float a, float b, float) { float r = a - b; return r > 0.0f ? r : 0.0f; }
                  static int64_t I(int64_t a, int64_t b, int64_t) { int64_t r = a - b; return r > 0 ? r : 0; } };
// FusedMulAdd: dst = src0 * dst + src1; MulAddDst: dst = src0 * src1 + dst; FusedMulAddRelu: relu(src0 * dst + src1).
struct FFma { static constexpr bool kReadsDst = true; static float F(float a, float b, float d) { return a * d + b; }
              static int64_t I(int64_t a, int64_t b, int64_t d) { return a * d + b; } };
struct FMulAddDst { static constexpr bool kReadsDst = true; static float F(float a, float b, float d) { return a * b + d; }
                    static int64_t I(int64_t a, int64_t b, int64_t d) { return a * b + d; } };
struct FFmaRelu { static constexpr bool kReadsDst = true; static float F(float a, float b, float d) { float r = a * d + b; return r > 0.0f ? r : 0.0f; }
                  static int64_t I(int64_t a, int64_t b, int64_t d) { int64_t r = a * d + b; return r > 0 ? r : 0; } };

// AddDeqRelu: relu((src0 + src1) * DEQSCALE), int32 sources summed exactly, scaled in fp32 (the docs' deq).
struct FAddDeqRelu { static constexpr bool kReadsDst = false;
                     static float F(float a, float b, float) { float r = (a + b) * rt::g_blk->deqScale; return r > 0.0f ? r : 0.0f; } };
struct FMulCast { static constexpr bool kReadsDst = false; static float F(float a, float b, float) { return a * b; } };

template <typename Fn, typename T, typename U> inline T Apply3(U a, U b, T d)
{
    if constexpr (std::is_same<Fn, FAddDeqRelu>::value)  // int32 + int32 exact, then the fp32 deq
        return FromF<T>(Fn::F(static_cast<float>(static_cast<int64_t>(a) + static_cast<int64_t>(b)), 0.0f, 0.0f));
    else if constexpr (std::is_integral<T>::value && std::is_integral<U>::value)
        return static_cast<T>(Fn::I(static_cast<int64_t>(a), static_cast<int64_t>(b), static_cast<int64_t>(d)));
    else if constexpr (std::is_integral<T>::value) {  // AddReluCast/MulCast to int8/uint8: round to nearest, saturate
        float r = Fn::F(ToF(a), ToF(b), 0.0f);
        float lo = static_cast<float>(std::numeric_limits<T>::min()), hi = static_cast<float>(std::numeric_limits<T>::max());
        r = r < lo ? lo : (r > hi ? hi : r);
        return static_cast<T>(__builtin_nearbyintf(r));
    } else return FromF<T>(Fn::F(ToF(a), ToF(b), ToF(d)));
}

// Count form: dst (T) from src0, src1 (U) over `count` elements.
template <typename Fn, typename T, typename U>
inline void Fused(const char *name, const LocalTensor<T> &dst, const LocalTensor<U> &a, const LocalTensor<U> &b, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    constexpr uint32_t kWide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    rt::TraceOp(op, DTypeName<U>::value, count, count * static_cast<int64_t>(kWide), Repeats(count, kWide), -1, twin_detail::Access::Off(dst));
    AfterCountForm();
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t in = static_cast<uint64_t>(count) * sizeof(U), out = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(a), in, false, twin_detail::Access::Buf(a), "src0");
    ok = rt::CheckCount(op, twin_detail::Access::Off(b), in, false, twin_detail::Access::Buf(b), "src1") && ok;
    if (Fn::kReadsDst) ok = rt::CheckCount(op, twin_detail::Access::Off(dst), out, false, twin_detail::Access::Buf(dst), "dst") && ok;
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), out, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    T *d = twin_detail::Access::Ptr(dst);
    const U *x = twin_detail::Access::Ptr(a);
    const U *y = twin_detail::Access::Ptr(b);
    for (int64_t i = 0; i < count; ++i) d[i] = Apply3<Fn, T, U>(x[i], y[i], Fn::kReadsDst ? d[i] : T());
}

// Repeat (mask) form, same-type operands.
template <typename Fn, typename T>
inline void FusedRep(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, rt::Mask mask,
                     uint8_t repeatTime, const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    rt::Opnd o[4] = {{twin_detail::Access::Off(a), twin_detail::Access::Buf(a), sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {twin_detail::Access::Off(b), twin_detail::Access::Buf(b), sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, false, "dst"}};
    if (!rt::CheckRepeat(op, o, Fn::kReadsDst ? 4 : 3, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.At(r, l, lanes)) continue;
            T x, y, z;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            std::memcpy(&y, rt::UbPtr(rt::LaneOff(o[1], r, l)), sizeof(T));
            std::memcpy(&z, rt::UbPtr(rt::LaneOff(o[2], r, l)), sizeof(T));
            z = Apply3<Fn, T, T>(x, y, z);
            std::memcpy(rt::UbPtr(rt::LaneOff(o[2], r, l)), &z, sizeof(T));
        }
}
}  // namespace twin_detail

#define ASCENDOPT_TWIN_FUSED(NAME, FN, OK)                                                                                    \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &count, \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Fused<twin_detail::FN, T, T>(#NAME, dst, src0, src1, count, loc);                                        \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,        \
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::FusedRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::UseMask<isSetMask>(mask), repeatTime,     \
                                               repeatParams, loc);                                                            \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const uint64_t mask[],\
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::FusedRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::UseMask<isSetMask>(mask), repeatTime,     \
                                               repeatParams, loc);                                                            \
    }

ASCENDOPT_TWIN_FUSED(AddRelu, FAddRelu, (twin_detail::OneOf<T, int16_t, half, float>()))
ASCENDOPT_TWIN_FUSED(SubRelu, FSubRelu, (twin_detail::OneOf<T, int16_t, half, float>()))
ASCENDOPT_TWIN_FUSED(FusedMulAdd, FFma, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_FUSED(MulAddDst, FMulAddDst, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_FUSED(FusedMulAddRelu, FFmaRelu, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_FUSED(MulAddRelu, FFmaRelu, twin_detail::kFloat<T>)  // the newer documents' name for FusedMulAddRelu
#undef ASCENDOPT_TWIN_FUSED

// AddReluCast / SubReluCast: (T dst, U src) = (half, float), (int8_t, half), (int8_t, int16_t) on A2; count form.
namespace twin_detail {
template <typename T, typename U>
constexpr bool kReluCastPair = (std::is_same<T, half>::value && std::is_same<U, float>::value) ||
                               (std::is_same<T, int8_t>::value && (std::is_same<U, half>::value || std::is_same<U, int16_t>::value));
}  // namespace twin_detail
template <typename T, typename U>
inline void AddReluCast(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1, const uint32_t count,
                        ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kReluCastPair<T, U>, "AddReluCast: data type combination not supported on Ascend 910B (Atlas A2)");
    twin_detail::Fused<twin_detail::FAddRelu, T, U>("AddReluCast", dst, src0, src1, count, loc);
}
template <typename T, typename U>
inline void SubReluCast(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1, const uint32_t count,
                        ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kReluCastPair<T, U>, "SubReluCast: data type combination not supported on Ascend 910B (Atlas A2)");
    twin_detail::Fused<twin_detail::FSubRelu, T, U>("SubReluCast", dst, src0, src1, count, loc);
}
// AddDeqRelu (count form): half dst from int32 sources, scaled by the DEQSCALE register (SetDeqScale).
inline void AddDeqRelu(const LocalTensor<half> &dst, const LocalTensor<int32_t> &src0, const LocalTensor<int32_t> &src1, const int32_t &count,
                       ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    if (!ascendopt_twin::rt::g_blk->deqScaleSet)
        ascendopt_twin::rt::Report("deq_scale_unset", true, loc.file, loc.line,
                                   "AddDeqRelu scales by the DEQSCALE register, which no SetDeqScale(half) of this block has set; "
                                   "its value is undefined on the NPU (the twin used 0)");
    twin_detail::Fused<twin_detail::FAddDeqRelu, half, int32_t>("AddDeqRelu", dst, src0, src1, count, loc);
}
// MulCast (count form): (T dst, U src) = (int8_t or uint8_t, half) on A2; the product rounded to nearest, saturated.
template <typename T, typename U>
inline void MulCast(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1, const uint32_t count,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert((std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value) && std::is_same<U, half>::value,
                  "MulCast: data type combination not supported on Ascend 910B (Atlas A2)");
    twin_detail::Fused<twin_detail::FMulCast, T, U>("MulCast", dst, src0, src1, count, loc);
}
}  // namespace AscendC
#endif
