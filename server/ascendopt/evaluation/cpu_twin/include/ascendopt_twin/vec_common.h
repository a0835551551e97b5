// AscendOptimizer CPU twin: vector-instruction parameters, enums and the shared element engines (PIPE_V).
// Semantics follow the AscendC basic-API docs for Atlas A2 (Ascend 910B): data types outside the documented A2
// support fail at compile time.
#ifndef ASCENDOPT_TWIN_VEC_COMMON_H
#define ASCENDOPT_TWIN_VEC_COMMON_H

#include "ascendopt_twin/mask.h"
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
template <typename T> constexpr bool kBitwise = OneOf<T, int16_t, uint16_t>();  // And / Or on A2
template <typename T> constexpr bool kShift = OneOf<T, int16_t, uint16_t, int32_t, uint32_t>();  // ShiftLeft/Right

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
// Bitwise And / Or (integer types only: kBitwise)
struct FAnd { static float F(float a, float) { return a; } static int64_t I(int64_t a, int64_t b) { return a & b; } };
struct FOr { static float F(float a, float) { return a; } static int64_t I(int64_t a, int64_t b) { return a | b; } };
// Shifts by the scalar, at the element's width W and signedness (the docs: unsigned logical; signed
// arithmetic, a left shift keeping the sign bit, a right shift copying it).
template <int W, bool Signed> struct FShl {
    static float F(float a, float) { return a; }
    static int64_t I(int64_t a, int64_t n)
    {
        const uint64_t mask = W == 64 ? ~0ull : (1ull << W) - 1, sign = 1ull << (W - 1);
        uint64_t bits = (static_cast<uint64_t>(a) << (n & 63)) & mask;
        if (Signed) bits = (bits & ~sign) | (static_cast<uint64_t>(a) & sign);
        return Signed && (bits & sign) ? static_cast<int64_t>(bits | ~mask) : static_cast<int64_t>(bits);
    }
};
template <int W, bool Signed, bool Round = false> struct FShr {
    static float F(float a, float) { return a; }
    static int64_t I(int64_t a, int64_t n)
    {
        n &= 63;
        // roundEn: the bit shifted out last rounds the result (our reading; the docs give no formula).
        const int64_t half = Round && n > 0 ? (a >> (n - 1)) & 1 : 0;
        if (Signed) return (a >> n) + half;
        const uint64_t mask = W == 64 ? ~0ull : (1ull << W) - 1;
        return static_cast<int64_t>((static_cast<uint64_t>(a) & mask) >> n) + half;
    }
};
struct FNot { static float F(float a) { return a; } static int64_t I(int64_t a) { return ~a; } };  // kBitwise only
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
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    AfterCountForm();
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(a), bytes, false, twin_detail::Access::Buf(a), "src0");
    ok = rt::CheckCount(op, twin_detail::Access::Off(b), bytes, false, twin_detail::Access::Buf(b), "src1") && ok;
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), bytes, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    T *d = twin_detail::Access::Ptr(dst);
    const T *x = twin_detail::Access::Ptr(a);
    const T *y = twin_detail::Access::Ptr(b);
    for (int64_t i = 0; i < count; ++i) d[i] = Apply2<Fn>(x[i], y[i]);
}

template <typename Fn, typename T>
inline void Unary(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    AfterCountForm();
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(a), bytes, false, twin_detail::Access::Buf(a), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), bytes, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    T *d = twin_detail::Access::Ptr(dst);
    const T *x = twin_detail::Access::Ptr(a);
    for (int64_t i = 0; i < count; ++i) d[i] = Apply1<Fn>(x[i]);
}

template <typename Fn, typename T>
inline void Scalar(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, T s, int64_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, count * static_cast<int64_t>(sizeof(T)), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    AfterCountForm();
    if (count <= 0) { CheckRepeatCount(op, count); return; }
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(a), bytes, false, twin_detail::Access::Buf(a), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), bytes, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    T *d = twin_detail::Access::Ptr(dst);
    const T *x = twin_detail::Access::Ptr(a);
    for (int64_t i = 0; i < count; ++i) d[i] = Apply2<Fn>(x[i], s);
}

// ---- repeat (mask) forms ----
inline rt::Mask MaskCnt(uint64_t m) { rt::Mask k; k.bits = false; k.cnt = m; return k; }
inline rt::Mask MaskBits(const uint64_t m[]) { rt::Mask k; k.bits = true; k.m[0] = m[0]; k.m[1] = m[1]; return k; }

// Trace record of a repeat-form instruction (counter mode: n = the element count, mask "counter").
inline void TraceRep(const rt::Op &op, const char *dtype, const rt::Mask &mask, uint32_t rep, uint32_t lanes, uint32_t esz, uint32_t dstOff)
{
    int64_t n = mask.counter ? static_cast<int64_t>(mask.counter) : static_cast<int64_t>(rep) * lanes;
    int64_t bytes = mask.counter ? n * esz : static_cast<int64_t>(rep) * 256;
    rt::TraceOp(op, dtype, n, bytes, rep, mask.counter ? -3 : mask.bits ? -2 : static_cast<int64_t>(mask.cnt), dstOff);
}
// The mask an instruction uses: its own argument (isSetMask=true) or the mask register (false).
template <bool isSetMask> inline rt::Mask UseMask(const rt::Mask &given) { return isSetMask ? given : RegisterMask(); }
template <bool isSetMask> inline rt::Mask UseMask(uint64_t m) { return isSetMask ? MaskCnt(m) : RegisterMask(); }
template <bool isSetMask> inline rt::Mask UseMask(const uint64_t m[]) { return isSetMask ? MaskBits(m) : RegisterMask(); }

template <typename Fn, typename T>
inline void BinaryRep(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, rt::Mask mask,
                      uint8_t repeatTime, const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    rt::Opnd o[3] = {{twin_detail::Access::Off(a), twin_detail::Access::Buf(a), sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {twin_detail::Access::Off(b), twin_detail::Access::Buf(b), sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 3, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.At(r, l, lanes)) continue;
            T x, y;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            std::memcpy(&y, rt::UbPtr(rt::LaneOff(o[1], r, l)), sizeof(T));
            T z = Apply2<Fn>(x, y);
            std::memcpy(rt::UbPtr(rt::LaneOff(o[2], r, l)), &z, sizeof(T));
        }
}

template <typename Fn, typename T, bool kHasScalar>
inline void UnaryRep(const char *name, const LocalTensor<T> &dst, const LocalTensor<T> &a, T s, rt::Mask mask, uint8_t repeatTime,
                     const UnaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    uint32_t lanes = Lanes<T>();
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    rt::Opnd o[2] = {{twin_detail::Access::Off(a), twin_detail::Access::Buf(a), sizeof(T), p.srcBlkStride, p.srcRepStride, false, "src"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, mask)) return;
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.At(r, l, lanes)) continue;
            T x;
            std::memcpy(&x, rt::UbPtr(rt::LaneOff(o[0], r, l)), sizeof(T));
            T z;
            if constexpr (kHasScalar) z = Apply2<Fn>(x, s);
            else z = Apply1<Fn>(x);
            std::memcpy(rt::UbPtr(rt::LaneOff(o[1], r, l)), &z, sizeof(T));
        }
}
}  // namespace twin_detail

// Advanced-API count forms with and without sharedTmpBuffer (accepted, not modelled): NAME(dst, src[, tmp], count)
// computes FN element-wise. TPARAMS: the API's own template parameters after T.
#define ASCENDOPT_TWIN_ADV_UNARY(NAME, FN, TPARAMS)                                                                               \
    template <typename T, TPARAMS>                                                                                                \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,          \
                     const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                       \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        (void)sharedTmpBuffer;                                                                                                    \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, count, loc);                                                         \
    }                                                                                                                             \
    template <typename T, TPARAMS>                                                                                                \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count,                                  \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                             \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, count, loc);                                                         \
    }                                                                                                                             \
    /* The count form through a function pointer (`NAME<T, false>` as a template argument, vec_binary.h): a                       \
       uint32_t count only, and a call prefers the form above. */                                                                 \
    template <typename T, TPARAMS, typename C = uint32_t, std::enable_if_t<std::is_same<C, uint32_t>::value, int> = 0>            \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const C count)                                         \
    {                                                                                                                             \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, count, ascendopt_twin::Loc());                                       \
    }                                                                                                                             \
    /* The whole-tensor form (no count): every element of src. */                                                                 \
    template <typename T, TPARAMS>                                                                                                \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, ascendopt_twin::Loc loc = ascendopt_twin::Loc())       \
    {                                                                                                                             \
        static_assert(twin_detail::kFloat<T>, #NAME ": data type not supported on Ascend 910B (Atlas A2)");                       \
        twin_detail::Unary<twin_detail::FN>(#NAME, dst, src, src.GetSize(), loc);                                                 \
    }
#define ASCENDOPT_TWIN_COMMA ,
}  // namespace AscendC
#endif
