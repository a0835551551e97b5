// AscendOptimizer CPU twin: vector instructions (PIPE_V). Semantics follow the AscendC basic-API docs for
// Atlas A2 (Ascend 910B): data types outside the documented A2 support fail at compile time.
#ifndef ASCENDOPT_TWIN_VEC_H
#define ASCENDOPT_TWIN_VEC_H

#include "ascendopt_twin/tpipe.h"

namespace AscendC {

constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t FULL_MASK_LEN = 128;
constexpr int32_t HALF_MASK_LEN = 64;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1;
constexpr uint8_t B64_BYTE_SIZE = 8;
constexpr uint8_t B32_BYTE_SIZE = 4;
constexpr uint8_t B16_BYTE_SIZE = 2;
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B32_DATA_NUM_PER_BLOCK = 8;
constexpr uint8_t B16_DATA_NUM_PER_BLOCK = 16;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = 128;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = 64;

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn)
    {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn),
          halfBlock(halfBlockIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

enum class RoundMode {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    CAST_HYBRID,
};

enum class CMPMODE : uint8_t {
    LT = 0,
    GT,
    EQ,
    LE,
    GE,
    NE,
};

enum class SELMODE : uint8_t {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE,
    VSEL_TENSOR_TENSOR_MODE,
};

enum class ReduceOrder {
    ORDER_VALUE_INDEX = 0,
    ORDER_INDEX_VALUE,
    ORDER_ONLY_VALUE,
    ORDER_ONLY_INDEX,
};

namespace twin_detail {
using ascendopt_twin::DTypeName;
using ascendopt_twin::FromF;
using ascendopt_twin::Loc;
using ascendopt_twin::ToF;
namespace rt = ascendopt_twin::rt;

template <typename T, typename... Ts> constexpr bool OneOf() { return (std::is_same<T, Ts>::value || ...); }
template <typename T> constexpr bool kArith = OneOf<T, int16_t, half, int32_t, float>();  // Add/Sub/Mul/Max/Min/Adds/... on A2
template <typename T> constexpr bool kFloat = OneOf<T, half, float>();

template <typename T> inline uint32_t Lanes() { return 256u / static_cast<uint32_t>(sizeof(T)); }
inline int64_t Repeats(int64_t count, uint32_t esz) { return (count * esz + 255) / 256; }

// Element arithmetic: floating types compute in fp32 and round once to T; integers compute in int64 and wrap.
template <typename Fn, typename T> inline T Apply2(T a, T b)
{
    if constexpr (std::is_integral<T>::value) return static_cast<T>(Fn::I(static_cast<int64_t>(a), static_cast<int64_t>(b)));
    else return FromF<T>(Fn::F(ToF(a), ToF(b)));
}
template <typename Fn, typename T> inline T Apply1(T a)
{
    if constexpr (std::is_integral<T>::value) return static_cast<T>(Fn::I(static_cast<int64_t>(a)));
    else return FromF<T>(Fn::F(ToF(a)));
}

struct FAdd { static float F(float a, float b) { return a + b; } static int64_t I(int64_t a, int64_t b) { return a + b; } };
struct FSub { static float F(float a, float b) { return a - b; } static int64_t I(int64_t a, int64_t b) { return a - b; } };
struct FMul { static float F(float a, float b) { return a * b; } static int64_t I(int64_t a, int64_t b) { return a * b; } };
struct FDiv { static float F(float a, float b) { return a / b; } static int64_t I(int64_t a, int64_t b) { return b ? a / b : 0; } };
struct FMax { static float F(float a, float b) { return a > b ? a : b; } static int64_t I(int64_t a, int64_t b) { return a > b ? a : b; } };
struct FMin { static float F(float a, float b) { return a < b ? a : b; } static int64_t I(int64_t a, int64_t b) { return a < b ? a : b; } };
struct FAbs { static float F(float a) { return __builtin_fabsf(a); } static int64_t I(int64_t a) { return a < 0 ? -a : a; } };
struct FExp { static float F(float a) { return __builtin_expf(a); } static int64_t I(int64_t a) { return a; } };
struct FLn { static float F(float a) { return __builtin_logf(a); } static int64_t I(int64_t a) { return a; } };
struct FSqrt { static float F(float a) { return __builtin_sqrtf(a); } static int64_t I(int64_t a) { return a; } };
struct FRsqrt { static float F(float a) { return 1.0f / __builtin_sqrtf(a); } static int64_t I(int64_t a) { return a; } };
struct FRecip { static float F(float a) { return 1.0f / a; } static int64_t I(int64_t a) { return a; } };
struct FRelu { static float F(float a) { return a > 0.0f ? a : 0.0f; } static int64_t I(int64_t a) { return a > 0 ? a : 0; } };
struct FLeaky { static float F(float a, float s) { return a >= 0.0f ? a : a * s; } static int64_t I(int64_t a, int64_t s) { return a >= 0 ? a : a * s; } };

inline void CheckRepeatCount(const rt::Op &op, int64_t count)
{
    if (count < 0) rt::Report("bad_count", true, op.file, op.line, "%s called with negative count %lld", op.name, static_cast<long long>(count));
}

// ---- count (counter-mode) forms ----
template <typename Fn, typename T>
inline void Binary(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, a.off_, bytes, false, a.buf_, "src0");
    ok = rt::CheckCount(op, b.off_, bytes, false, b.buf_, "src1") && ok;
    ok = rt::CheckCount(op, dst.off_, bytes, true, dst.buf_, "dst") && ok;
    if (!ok) return;
    T *d = dst.Ptr();
    const T *x = a.Ptr();
    const T *y = b.Ptr();
    for (int64_t i = 0; i < count; ++i) d[i] = Apply2<Fn>(x[i], y[i]);
}

template <typename Fn, typename T>
inline void Unary(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, a.off_, bytes, false, a.buf_, "src");
    ok = rt::CheckCount(op, dst.off_, bytes, true, dst.buf_, "dst") && ok;
    if (!ok) return;
    T *d = dst.Ptr();
    const T *x = a.Ptr();
    for (int64_t i = 0; i < count; ++i) d[i] = Apply1<Fn>(x[i]);
}

template <typename Fn, typename T>
inline void Scalar(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, T s, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, a.off_, bytes, false, a.buf_, "src");
    ok = rt::CheckCount(op, dst.off_, bytes, true, dst.buf_, "dst") && ok;
    if (!ok) return;
    T *d = dst.Ptr();
    const T *x = a.Ptr();
    for (int64_t i = 0; i < count; ++i) d[i] = Apply2<Fn>(x[i], s);
}

// ---- repeat (mask) forms ----
inline rt::Mask MaskCnt(uint64_t m) { rt::Mask k; k.bits = false; k.cnt = m; return k; }
inline rt::Mask MaskBits(const uint64_t m[]) { rt::Mask k; k.bits = true; k.m[0] = m[0]; k.m[1] = m[1]; return k; }

template <typename Fn, typename T>
inline void BinaryRep(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, rt::Mask mask,
                      uint8_t repeat, const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    rt::Opnd o[3] = {{a.off_, a.buf_, sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {b.off_, b.buf_, sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"},
                     {dst.off_, dst.buf_, sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 3, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.On(l)) continue;
            T x, y;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            std::memcpy(&y, rt::UbPtr(rt::LaneOff(o[1], r, l)), sizeof(T));
            T z = Apply2<Fn>(x, y);
            std::memcpy(rt::UbPtr(rt::LaneOff(o[2], r, l)), &z, sizeof(T));
        }
}

template <typename Fn, typename T, bool kHasScalar>
inline void UnaryRep(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, T s, rt::Mask mask, uint8_t repeat,
                     const UnaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    rt::Opnd o[2] = {{a.off_, a.buf_, sizeof(T), p.srcBlkStride, p.srcRepStride, false, "src"},
                     {dst.off_, dst.buf_, sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.On(l)) continue;
            T x;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            T z;
            if constexpr (kHasScalar) z = Apply2<Fn>(x, s);
            else z = Apply1<Fn>(x);
            std::memcpy(rt::UbPtr(rt::LaneOff(o[1], r, l)), &z, sizeof(T));
        }
}
}  // namespace twin_detail

#define ASCENDOPT_TWIN_BINARY(NAME, FN, OK)                                                                                   \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &count, \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Binary<twin_detail::FN>(#NAME, dst, src0, src1, count, loc);                                             \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,        \
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::BinaryRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::MaskCnt(mask), repeatTime, repeatParams, \
                                                loc);                                                                         \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const uint64_t mask[],\
                     const uint8_t repeatTime, const BinaryRepeatParams &repeatParams,                                        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::BinaryRep<twin_detail::FN>(#NAME, dst, src0, src1, twin_detail::MaskBits(mask), repeatTime,              \
                                                repeatParams, loc);                                                           \
    }

ASCENDOPT_TWIN_BINARY(Add, FAdd, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Sub, FSub, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Mul, FMul, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Div, FDiv, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_BINARY(Max, FMax, twin_detail::kArith<T>)
ASCENDOPT_TWIN_BINARY(Min, FMin, twin_detail::kArith<T>)
#undef ASCENDOPT_TWIN_BINARY

#define ASCENDOPT_TWIN_UNARY(NAME, FN, OK)                                                                                    \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count,                              \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, count, loc);                                                     \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTime,           \
                     const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                  \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::UnaryRep<twin_detail::FN, T, false>(#NAME, dst, src, T{}, twin_detail::MaskCnt(mask), repeatTime,        \
                                                         repeatParams, loc);                                                  \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const uint8_t repeatTime,   \
                     const UnaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                  \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::UnaryRep<twin_detail::FN, T, false>(#NAME, dst, src, T{}, twin_detail::MaskBits(mask), repeatTime,       \
                                                         repeatParams, loc);                                                  \
    }

ASCENDOPT_TWIN_UNARY(Abs, FAbs, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Exp, FExp, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Ln, FLn, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Sqrt, FSqrt, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Rsqrt, FRsqrt, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Reciprocal, FRecip, twin_detail::kFloat<T>)
ASCENDOPT_TWIN_UNARY(Relu, FRelu, (twin_detail::OneOf<T, half, int32_t, float>()))
#undef ASCENDOPT_TWIN_UNARY

#define ASCENDOPT_TWIN_SCALAR(NAME, FN, OK)                                                                                   \
    template <typename T>                                                                                                     \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count,        \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        twin_detail::Scalar<twin_detail::FN>(#NAME, dst, src, scalarValue, count, loc);                                       \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask,               \
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams,                                         \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::UnaryRep<twin_detail::FN, T, true>(#NAME, dst, src, scalarValue, twin_detail::MaskCnt(mask), repeatTime, \
                                                        repeatParams, loc);                                                   \
    }                                                                                                                         \
    template <typename T, bool isSetMask = true>                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[],       \
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams,                                         \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                         \
    {                                                                                                                         \
        static_assert(OK, #NAME ": data type not supported by this instruction on Ascend 910B (Atlas A2)");                   \
        static_assert(isSetMask, #NAME ": isSetMask=false (external SetVectorMask) is not supported by the CPU twin");         \
        twin_detail::UnaryRep<twin_detail::FN, T, true>(#NAME, dst, src, scalarValue, twin_detail::MaskBits(mask),            \
                                                        repeatTime, repeatParams, loc);                                       \
    }

ASCENDOPT_TWIN_SCALAR(Adds, FAdd, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Muls, FMul, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Maxs, FMax, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(Mins, FMin, twin_detail::kArith<T>)
ASCENDOPT_TWIN_SCALAR(LeakyRelu, FLeaky, twin_detail::kFloat<T>)
#undef ASCENDOPT_TWIN_SCALAR

// ---------------- Duplicate ----------------
template <typename T>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),
                  "Duplicate: data type not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Duplicate", loc);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)),
                twin_detail::Repeats(count, sizeof(T)), -1, dst.off_);
    if (count <= 0) { twin_detail::CheckRepeatCount(op, count); return; }
    if (!rt::CheckCount(op, dst.off_, static_cast<uint64_t>(count) * sizeof(T), true, dst.buf_, "dst")) return;
    T *d = dst.Ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
}
namespace twin_detail {
template <typename T>
inline void DupRep(const LocalTensor<T> &dst, const T &v, rt::Mask mask, uint8_t repeat, uint16_t blk, uint8_t rep, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Duplicate", loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat,
                mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dst.off_);
    rt::Opnd o[1] = {{dst.off_, dst.buf_, sizeof(T), blk, rep, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 1, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l)
            if (mask.On(l)) std::memcpy(rt::UbPtr(rt::LaneOff(o[0], r, l)), &v, sizeof(T));
}
}  // namespace twin_detail
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(isSetMask, "Duplicate: isSetMask=false is not supported by the CPU twin");
    twin_detail::DupRep(dst, scalarValue, twin_detail::MaskCnt(mask), repeatTime, dstBlockStride, dstRepeatStride, loc);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(isSetMask, "Duplicate: isSetMask=false is not supported by the CPU twin");
    twin_detail::DupRep(dst, scalarValue, twin_detail::MaskBits(mask), repeatTime, dstBlockStride, dstRepeatStride, loc);
}

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
    if constexpr (std::is_same<D, float>::value && std::is_same<S, float>::value) {
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
}  // namespace AscendC

#include "ascendopt_twin/vec_cast_reduce.h"
#endif
