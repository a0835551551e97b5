// AscendOptimizer CPU twin: Compare, CompareScalar, Select.
#ifndef ASCENDOPT_TWIN_VEC_CMPSEL_H
#define ASCENDOPT_TWIN_VEC_CMPSEL_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
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

namespace twin_detail {
// Count forms of Compare (src1 a tensor) and CompareScalar (src1 null, scalar s1): whole 256 B repeats only.
template <typename T, typename U>
inline void CompareCount(const char *name, const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> *src1, T s1,
                         CMPMODE cmpMode, uint32_t count, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    AfterCountForm();
    if (!CmpModeOk<T>(op, cmpMode)) return;
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    uint64_t n = bytes / 256u * 256u / sizeof(T);
    if (n != count)
        rt::Report("compare_count_unaligned", true, loc.file, loc.line,
                   "%s count %u x %s = %llu B is not a multiple of 256 B; on the NPU only the first %llu elements are compared", name,
                   count, DTypeName<T>::value, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(n));
    if (n == 0) return;
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src0), n * sizeof(T), false, twin_detail::Access::Buf(src0), "src0");
    if (src1) ok = rt::CheckCount(op, twin_detail::Access::Off(*src1), n * sizeof(T), false, twin_detail::Access::Buf(*src1), "src1") && ok;
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), n / 8, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    uint8_t *d = reinterpret_cast<uint8_t *>(twin_detail::Access::Ptr(dst));
    for (uint64_t byte = 0; byte < n / 8; ++byte) {
        uint8_t v = 0;
        for (uint32_t k = 0; k < 8; ++k)
            if (Cmp(*twin_detail::Access::Ptr(src0, byte * 8 + k), src1 ? *twin_detail::Access::Ptr(*src1, byte * 8 + k) : s1, cmpMode)) v |= static_cast<uint8_t>(1u << k);
        d[byte] = v;
    }
}
}  // namespace twin_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, uint32_t count,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "Compare: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(twin_detail::OneOf<U, uint8_t, int8_t>(), "Compare: the destination must be uint8_t or int8_t");
    twin_detail::CompareCount("Compare", dst, src0, &src1, T{}, cmpMode, count, loc);
}
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode, uint32_t count,
                          ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, half, float, int32_t>(), "CompareScalar: data type not supported on Ascend 910B (Atlas A2)");
    static_assert(twin_detail::OneOf<U, uint8_t, int8_t>(), "CompareScalar: the destination must be uint8_t or int8_t");
    twin_detail::CompareCount("CompareScalar", dst, src0, static_cast<const LocalTensor<T> *>(nullptr), src1Scalar, cmpMode, count, loc);
}

namespace twin_detail {
template <typename T, typename U>
inline void CompareRep(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE m, uint8_t repeat,
                       const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Compare", loc);
    uint32_t lanes = Lanes<T>();
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(repeat) * lanes, static_cast<int64_t>(repeat) * 256, repeat, -1, twin_detail::Access::Off(dst));
    if (!CmpModeOk<T>(op, m)) return;
    // On A2 the mask argument of Compare is reserved: all lanes are compared. Result bits are packed contiguously.
    rt::Mask all = MaskCnt(lanes);
    rt::Opnd o[2] = {{twin_detail::Access::Off(src0), twin_detail::Access::Buf(src0), sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {twin_detail::Access::Off(src1), twin_detail::Access::Buf(src1), sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"}};
    if (!rt::CheckRepeat(op, o, 2, lanes, repeat, all)) return;
    if (!rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(repeat) * lanes / 8, true, twin_detail::Access::Buf(dst), "dst")) return;
    uint8_t *d = reinterpret_cast<uint8_t *>(twin_detail::Access::Ptr(dst));
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
    rt::TraceOp(op, DTypeName<T>::value, count, static_cast<int64_t>(count) * sizeof(T), Repeats(count, sizeof(T)), -1, twin_detail::Access::Off(dst));
    if (count == 0) return;
    if (kScalar != (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)) {
        rt::Report("bad_select_mode", true, op.file, op.line,
                   kScalar ? "Select with a scalar src1 requires SELMODE::VSEL_TENSOR_SCALAR_MODE; the twin skipped the instruction"
                           : "Select with a tensor src1 requires VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE; the twin skipped the instruction");
        return;
    }
    uint32_t lanes = Lanes<T>();
    uint64_t maskBytes = mode == SELMODE::VSEL_CMPMASK_SPR ? lanes / 8 : (static_cast<uint64_t>(count) + 7) / 8;
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(selMask), maskBytes, false, twin_detail::Access::Buf(selMask), "selMask");
    ok = rt::CheckCount(op, twin_detail::Access::Off(src0), static_cast<uint64_t>(count) * sizeof(T), false, twin_detail::Access::Buf(src0), "src0") && ok;
    if constexpr (!kScalar) ok = rt::CheckCount(op, twin_detail::Access::Off(*src1), static_cast<uint64_t>(count) * sizeof(T), false, twin_detail::Access::Buf(*src1), "src1") && ok;
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), static_cast<uint64_t>(count) * sizeof(T), true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    const uint8_t *m = reinterpret_cast<const uint8_t *>(twin_detail::Access::Ptr(selMask));
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? i % lanes : i;
        bool take0 = (m[bit / 8] >> (bit % 8)) & 1u;
        T v;
        if constexpr (kScalar) v = take0 ? *twin_detail::Access::Ptr(src0, i) : s1;
        else v = take0 ? *twin_detail::Access::Ptr(src0, i) : *twin_detail::Access::Ptr(*src1, i);
        *twin_detail::Access::Ptr(dst, i) = v;
    }
}
template <typename T, typename U, bool kScalar>
inline void SelectRep(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> *src1,
                      T s1, SELMODE mode, rt::Mask mask, uint8_t repeatTime, const BinaryRepeatParams &p, const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Select", loc);
    uint32_t lanes = Lanes<T>();
    uint32_t repeat = mask.Repeats(repeatTime, lanes);
    TraceRep(op, DTypeName<T>::value, mask, repeat, lanes, sizeof(T), twin_detail::Access::Off(dst));
    rt::Opnd o[3] = {{twin_detail::Access::Off(src0), twin_detail::Access::Buf(src0), sizeof(T), p.src0BlkStride, p.src0RepStride, false, "src0"},
                     {kScalar ? twin_detail::Access::Off(src0) : twin_detail::Access::Off(*src1), kScalar ? twin_detail::Access::Buf(src0) : twin_detail::Access::Buf(*src1), sizeof(T), p.src1BlkStride, p.src1RepStride, false, "src1"},
                     {twin_detail::Access::Off(dst), twin_detail::Access::Buf(dst), sizeof(T), p.dstBlkStride, p.dstRepStride, true, "dst"}};
    rt::Opnd oo[2] = {o[0], o[2]};
    if (!(kScalar ? rt::CheckRepeat(op, oo, 2, lanes, repeat, mask) : rt::CheckRepeat(op, o, 3, lanes, repeat, mask))) return;
    uint64_t maskBytes = mode == SELMODE::VSEL_CMPMASK_SPR ? lanes / 8 : static_cast<uint64_t>(repeat) * lanes / 8;
    if (!rt::CheckCount(op, twin_detail::Access::Off(selMask), maskBytes, false, twin_detail::Access::Buf(selMask), "selMask")) return;
    const uint8_t *m = reinterpret_cast<const uint8_t *>(twin_detail::Access::Ptr(selMask));
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!mask.At(r, l, lanes)) continue;
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
    twin_detail::SelectRep<T, U, false>(dst, selMask, src0, &src1, T{}, selMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                   SELMODE selMode, uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, false>(dst, selMask, src0, &src1, T{}, selMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1, SELMODE selMode,
                   uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1, SELMODE selMode,
                   uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::kFloat<T>, "Select: data type not supported on Ascend 910B (Atlas A2)");
    twin_detail::SelectRep<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, twin_detail::UseMask<isSetMask>(mask), repeatTime, repeatParams, loc);
}

}  // namespace AscendC
#endif
