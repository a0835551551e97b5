// AscendOptimizer CPU twin: DataCopy / DataCopyPad (GM<->UB on MTE2/MTE3, UB->UB on V).
#ifndef ASCENDOPT_TWIN_DATACOPY_H
#define ASCENDOPT_TWIN_DATACOPY_H

#include "ascendopt_twin/tpipe.h"

namespace ascendopt_twin {
// A 16-bit field of a copy-params struct that remembers a value assigned to it that it cannot hold
// (`p.blockLen = n * sizeof(T)` with 65536 B wraps to 0 on the NPU too, and the copy moves nothing):
// the copy that uses it reports the wrap on its line instead of an output left unwritten.
struct U16Field {
    uint16_t v = 0;
    uint64_t assigned = 0;  // the value given, when it did not fit
    bool lost = false;
    U16Field() = default;
    U16Field(uint16_t x) : v(x) {}
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0> U16Field &operator=(I x)
    {
        v = static_cast<uint16_t>(x);
        lost = x < 0 || static_cast<uint64_t>(x) > 0xFFFFu;
        assigned = static_cast<uint64_t>(x);
        return *this;
    }
    template <typename I> U16Field &operator+=(I x) { return *this = static_cast<int64_t>(v) + static_cast<int64_t>(x); }
    template <typename I> U16Field &operator-=(I x) { return *this = static_cast<int64_t>(v) - static_cast<int64_t>(x); }
    operator uint16_t() const { return v; }
};
}  // namespace ascendopt_twin

namespace AscendC {

constexpr uint8_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint8_t DEFAULT_DATA_COPY_STRIDE = 0;

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn)
    {}
    ascendopt_twin::U16Field blockCount = DEFAULT_DATA_COPY_NBURST;
    ascendopt_twin::U16Field blockLen = static_cast<uint16_t>(0);
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {}
    ascendopt_twin::U16Field blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

namespace twin_detail {
using ascendopt_twin::Loc;
namespace rt = ascendopt_twin::rt;

inline void CheckUbAlign(const rt::Op &op, uint32_t off, const char *what)
{
    if (off % 32u != 0)
        rt::Report("misaligned_copy", true, op.file, op.line,
                   "%s: UB address of %s (offset %u) is not 32 B aligned; the NPU requires 32 B aligned UB addresses",
                   op.name, what, off);
}

// GM -> UB, one contiguous burst of len bytes. Returns false if skipped.
template <typename T>
inline bool BurstIn(const rt::Op &op, const LocalTensor<T> &dst, uint32_t ubOff, const GlobalTensor<T> &src, const uint8_t *gm, uint64_t len)
{
    if (len == 0) return true;
    uint64_t span = rt::GmSpan(op, gm, len, false, twin_detail::Access::DeclLo(src), twin_detail::Access::DeclHi(src), "src");
    bool okU = rt::Ub(op, ubOff, len, true, twin_detail::Access::Buf(dst), "dst");
    if (span && okU) std::memcpy(rt::UbPtr(ubOff), gm, span);
    return span == len && okU;
}

template <typename T> inline void AtomicStore(uint8_t *gm, const uint8_t *ub, uint64_t len)
{
    int mode = rt::g_blk->atomicMode;
    if (mode == 0) {
        std::memcpy(gm, ub, len);
        return;
    }
    uint64_t n = len / sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, gm + i * sizeof(T), sizeof(T));
        std::memcpy(&b, ub + i * sizeof(T), sizeof(T));
        T r;
        if constexpr (std::is_integral<T>::value) {
            int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
            int64_t z = mode == 1 ? x + y : mode == 2 ? (x > y ? x : y) : (x < y ? x : y);
            r = static_cast<T>(z);
        } else {
            float x = ascendopt_twin::ToF(a), y = ascendopt_twin::ToF(b);
            float z = mode == 1 ? x + y : mode == 2 ? (x > y ? x : y) : (x < y ? x : y);
            r = ascendopt_twin::FromF<T>(z);
        }
        std::memcpy(gm + i * sizeof(T), &r, sizeof(T));
    }
    std::memcpy(gm + n * sizeof(T), ub + n * sizeof(T), len - n * sizeof(T));
}

// UB -> GM, one contiguous burst of len bytes (honours SetAtomicAdd/Max/Min).
template <typename T>
inline bool BurstOut(const rt::Op &op, const GlobalTensor<T> &dst, uint8_t *gm, const LocalTensor<T> &src, uint32_t ubOff, uint64_t len)
{
    if (len == 0) return true;
    if (rt::g_blk->atomicMode != 0 && std::strcmp(rt::g_blk->atomicType, ascendopt_twin::DTypeName<T>::value) != 0)
        rt::Report("atomic_type_mismatch", true, op.file, op.line,
                   "%s of %s data while the DMA atomic mode was set for %s", op.name, ascendopt_twin::DTypeName<T>::value,
                   rt::g_blk->atomicType);
    bool okU = rt::Ub(op, ubOff, len, false, twin_detail::Access::Buf(src), "src");
    uint64_t span = rt::GmSpan(op, gm, len, true, twin_detail::Access::DeclLo(dst), twin_detail::Access::DeclHi(dst), "dst",
                               okU ? rt::UbPtr(ubOff) : nullptr);
    if (span && okU) AtomicStore<T>(gm, rt::UbPtr(ubOff), span);
    return span == len && okU;
}

inline void TraceCopy(const rt::Op &op, const char *dtype, int64_t n, int64_t bytes, int64_t repeat, uint32_t ubOff)
{
    rt::TraceOp(op, dtype, n, bytes, repeat, -1, ubOff);
}
}  // namespace twin_detail

// ---------------- DataCopy, contiguous ----------------
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE2, "DataCopy", loc);
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    uint64_t moved = bytes / 32u * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, count, moved, 1, twin_detail::Access::Off(dst));
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(dst), "dst");
    if (bytes != moved)
        rt::Report("misaligned_copy", true, loc.file, loc.line,
                   "DataCopy GM->UB length %u x %s = %llu B is not a multiple of 32 B; on the NPU the tail of %llu B is dropped (use DataCopyPad)",
                   count, DTypeName<T>::value, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes - moved));
    twin_detail::BurstIn(op, dst, twin_detail::Access::Off(dst), src, reinterpret_cast<const uint8_t *>(twin_detail::Access::Addr(src)), moved);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE3, "DataCopy", loc);
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    uint64_t moved = bytes / 32u * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, count, moved, 1, twin_detail::Access::Off(src));
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(src), "src");
    if (bytes != moved)
        rt::Report("misaligned_copy", true, loc.file, loc.line,
                   "DataCopy UB->GM length %u x %s = %llu B is not a multiple of 32 B; on the NPU the tail of %llu B is not written (use DataCopyPad)",
                   count, DTypeName<T>::value, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes - moved));
    twin_detail::BurstOut(op, dst, reinterpret_cast<uint8_t *>(twin_detail::Access::Addr(dst)), src, twin_detail::Access::Off(src), moved);
}

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(rt::kUbToUbPipe, "DataCopy", loc);
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    uint64_t moved = bytes / 32u * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, count, moved, 1, twin_detail::Access::Off(dst));
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(dst), "dst");
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(src), "src");
    if (bytes != moved)
        rt::Report("misaligned_copy", true, loc.file, loc.line,
                   "DataCopy UB->UB length %u x %s = %llu B is not a multiple of 32 B; on the NPU the tail of %llu B is dropped",
                   count, DTypeName<T>::value, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes - moved));
    if (moved == 0) return;
    bool ok = rt::Ub(op, twin_detail::Access::Off(src), moved, false, twin_detail::Access::Buf(src), "src");
    ok = rt::Ub(op, twin_detail::Access::Off(dst), moved, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (ok) std::memmove(rt::UbPtr(twin_detail::Access::Off(dst)), rt::UbPtr(twin_detail::Access::Off(src)), moved);
}

namespace twin_detail {
// A count or length that wrapped when it was assigned: the copy would move the wrong amount (0 B for
// 65536 B) on the NPU as here; an error on the copy's line, naming the field and both values.
inline bool FieldsHeld(const char *api, const char *type, const ascendopt_twin::U16Field &count,
                       const ascendopt_twin::U16Field *len, const char *lenUnit, ascendopt_twin::Loc loc)
{
    using namespace ascendopt_twin;
    const char *names[] = {"blockCount", "blockLen"};
    const U16Field *fields[] = {&count, len};
    bool held = true;
    for (int i = 0; i < 2; ++i) {
        if (fields[i] == nullptr || !fields[i]->lost) continue;
        rt::Report("copy_param_wrapped", true, loc.file, loc.line,
                   "%s: %s.%s was set to %llu%s, which does not fit its 16 bits; it holds %u, so the copy moves the "
                   "wrong amount (split the copy, or use DataCopyExtParams with its 32-bit blockLen)",
                   api, type, names[i], static_cast<unsigned long long>(fields[i]->assigned), i == 1 ? lenUnit : "",
                   static_cast<unsigned>(fields[i]->v));
        held = false;
    }
    return held;
}
}  // namespace twin_detail

// ---------------- DataCopy, DataCopyParams (units of 32 B blocks) ----------------
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE2, "DataCopy", loc);
    if (!twin_detail::FieldsHeld("DataCopy", "DataCopyParams", p.blockCount, &p.blockLen, " blocks", loc)) return;
    uint64_t len = static_cast<uint64_t>(p.blockLen) * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, static_cast<int64_t>(len * p.blockCount / sizeof(T)), len * p.blockCount, p.blockCount, twin_detail::Access::Off(dst));
    if (p.blockCount == 0 || p.blockLen == 0) return;
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(dst), "dst");
    const uint8_t *g = reinterpret_cast<const uint8_t *>(twin_detail::Access::Addr(src));
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint64_t gOff = static_cast<uint64_t>(i) * (len + static_cast<uint64_t>(p.srcStride) * 32u);
        uint64_t uOff = static_cast<uint64_t>(i) * (len + static_cast<uint64_t>(p.dstStride) * 32u);
        if (!twin_detail::BurstIn(op, dst, static_cast<uint32_t>(twin_detail::Access::Off(dst) + uOff), src, g + gOff, len)) break;
    }
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE3, "DataCopy", loc);
    if (!twin_detail::FieldsHeld("DataCopy", "DataCopyParams", p.blockCount, &p.blockLen, " blocks", loc)) return;
    uint64_t len = static_cast<uint64_t>(p.blockLen) * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, static_cast<int64_t>(len * p.blockCount / sizeof(T)), len * p.blockCount, p.blockCount, twin_detail::Access::Off(src));
    if (p.blockCount == 0 || p.blockLen == 0) return;
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(src), "src");
    uint8_t *g = reinterpret_cast<uint8_t *>(twin_detail::Access::Addr(dst));
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint64_t uOff = static_cast<uint64_t>(i) * (len + static_cast<uint64_t>(p.srcStride) * 32u);
        uint64_t gOff = static_cast<uint64_t>(i) * (len + static_cast<uint64_t>(p.dstStride) * 32u);
        if (!twin_detail::BurstOut(op, dst, g + gOff, src, static_cast<uint32_t>(twin_detail::Access::Off(src) + uOff), len)) break;
    }
}

namespace twin_detail {
// L1 -> bias table (the cube core's C2 position), cube.h.
template <typename D, typename S>
void CopyToBiasTable(const LocalTensor<D> &dst, const LocalTensor<S> &src, const DataCopyParams &p, ascendopt_twin::Loc loc);
}  // namespace twin_detail

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    if (twin_detail::SpaceOfPos(dst.GetPosition()) == rt::SP_BT) return twin_detail::CopyToBiasTable(dst, src, p, loc);
    rt::Op op = rt::Begin(rt::kUbToUbPipe, "DataCopy", loc);
    if (!twin_detail::FieldsHeld("DataCopy", "DataCopyParams", p.blockCount, &p.blockLen, " blocks", loc)) return;
    uint64_t len = static_cast<uint64_t>(p.blockLen) * 32u;
    twin_detail::TraceCopy(op, DTypeName<T>::value, static_cast<int64_t>(len * p.blockCount / sizeof(T)), len * p.blockCount, p.blockCount, twin_detail::Access::Off(dst));
    if (p.blockCount == 0 || p.blockLen == 0) return;
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(dst), "dst");
    twin_detail::CheckUbAlign(op, twin_detail::Access::Off(src), "src");
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint32_t s = twin_detail::Access::Off(src) + static_cast<uint32_t>(i * (len + p.srcStride * 32u));
        uint32_t d = twin_detail::Access::Off(dst) + static_cast<uint32_t>(i * (len + p.dstStride * 32u));
        bool ok = rt::Ub(op, s, len, false, twin_detail::Access::Buf(src), "src");
        ok = rt::Ub(op, d, len, true, twin_detail::Access::Buf(dst), "dst") && ok;
        if (!ok) break;
        std::memmove(rt::UbPtr(d), rt::UbPtr(s), len);
    }
}

// ---------------- DataCopyPad ----------------
namespace twin_detail {
template <typename T>
inline void PadIn(const char *name, const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint32_t blockCount, uint32_t blockLen,
                  uint64_t srcGapBytes, uint64_t dstGapBlocks, bool isPad, uint32_t leftPad, uint32_t rightPad, T padValue,
                  const ascendopt_twin::Loc &loc)
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE2, name, loc);
    uint64_t rowBytes = leftPad * sizeof(T) + static_cast<uint64_t>(blockLen) + rightPad * sizeof(T);
    uint64_t rowUb = (rowBytes + 31u) / 32u * 32u;
    TraceCopy(op, DTypeName<T>::value, static_cast<int64_t>(static_cast<uint64_t>(blockLen) * blockCount / sizeof(T)),
              static_cast<int64_t>(static_cast<uint64_t>(blockLen) * blockCount), blockCount, twin_detail::Access::Off(dst));
    if (blockCount == 0 || blockLen == 0) return;  // NOP on A2/A3
    CheckUbAlign(op, twin_detail::Access::Off(dst), "dst");
    if (blockLen % sizeof(T) != 0)
        rt::Report("bad_copy_params", true, loc.file, loc.line, "%s: blockLen %u B is not a multiple of sizeof(%s) = %zu", name, blockLen,
                   DTypeName<T>::value, sizeof(T));
    if (leftPad * sizeof(T) > 32 || rightPad * sizeof(T) > 32)
        rt::Report("bad_copy_params", true, loc.file, loc.line, "%s: leftPadding %u / rightPadding %u elements exceed 32 B", name, leftPad,
                   rightPad);
    const uint8_t *g = reinterpret_cast<const uint8_t *>(twin_detail::Access::Addr(src));
    for (uint32_t i = 0; i < blockCount; ++i) {
        const uint8_t *gs = g + static_cast<uint64_t>(i) * (blockLen + srcGapBytes);
        uint32_t row = twin_detail::Access::Off(dst) + static_cast<uint32_t>(i * (rowUb + dstGapBlocks * 32u));
        uint64_t span = rt::GmSpan(op, gs, blockLen, false, twin_detail::Access::DeclLo(src), twin_detail::Access::DeclHi(src), "src");
        if (!rt::Ub(op, row, rowUb, true, twin_detail::Access::Buf(dst), "dst")) break;
        uint8_t *u = rt::UbPtr(row);
        uint32_t lp = static_cast<uint32_t>(leftPad * sizeof(T));
        if (span) std::memcpy(u + lp, gs, span);
        // Left/right padding: paddingValue when isPad, else values the hardware leaves unspecified.
        uint32_t rp0 = lp + blockLen, rp1 = static_cast<uint32_t>(rp0 + rightPad * sizeof(T));
        for (uint32_t b = 0; b < lp; b += sizeof(T)) std::memcpy(u + b, &padValue, sizeof(T));
        for (uint32_t b = rp0; b + sizeof(T) <= rp1; b += sizeof(T)) std::memcpy(u + b, &padValue, sizeof(T));
        if (!isPad) {
            if (lp) rt::UbUndefined(row, lp);
            if (rp1 > rp0) rt::UbUndefined(row + rp0, rp1 - rp0);
        }
        // Dummy fill up to the 32 B boundary: the first element of the block when no padding was asked for.
        if (rowUb > rp1) {
            if (leftPad == 0 && rightPad == 0) {
                for (uint32_t b = rp1; b + sizeof(T) <= rowUb; b += sizeof(T)) std::memcpy(u + b, u, sizeof(T));
            } else if (isPad) {
                for (uint32_t b = rp1; b + sizeof(T) <= rowUb; b += sizeof(T)) std::memcpy(u + b, &padValue, sizeof(T));
            } else {
                rt::UbUndefined(row + rp1, static_cast<uint32_t>(rowUb - rp1));
            }
        }
    }
}

template <typename T>
inline void PadOut(const char *name, const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint32_t blockCount, uint32_t blockLen,
                   uint64_t srcGapBlocks, uint64_t dstGapBytes, const ascendopt_twin::Loc &loc)
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE3, name, loc);
    uint64_t rowUb = (static_cast<uint64_t>(blockLen) + 31u) / 32u * 32u;
    TraceCopy(op, DTypeName<T>::value, static_cast<int64_t>(static_cast<uint64_t>(blockLen) * blockCount / sizeof(T)),
              static_cast<int64_t>(static_cast<uint64_t>(blockLen) * blockCount), blockCount, twin_detail::Access::Off(src));
    if (blockCount == 0 || blockLen == 0) return;
    CheckUbAlign(op, twin_detail::Access::Off(src), "src");
    if (blockLen % sizeof(T) != 0)
        rt::Report("bad_copy_params", true, loc.file, loc.line, "%s: blockLen %u B is not a multiple of sizeof(%s) = %zu", name, blockLen,
                   DTypeName<T>::value, sizeof(T));
    uint8_t *g = reinterpret_cast<uint8_t *>(twin_detail::Access::Addr(dst));
    for (uint32_t i = 0; i < blockCount; ++i) {
        uint32_t row = twin_detail::Access::Off(src) + static_cast<uint32_t>(i * (rowUb + srcGapBlocks * 32u));
        if (!BurstOut(op, dst, g + static_cast<uint64_t>(i) * (blockLen + dstGapBytes), src, row, blockLen)) break;
    }
}
}  // namespace twin_detail

template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
                        const DataCopyPadExtParams<T> &pad, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    if (!twin_detail::FieldsHeld("DataCopyPad", "DataCopyExtParams", p.blockCount, nullptr, "", loc)) return;
    twin_detail::PadIn("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
                       pad.rightPadding, pad.paddingValue, loc);
}
template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p, const DataCopyPadParams &pad,
                        ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    if (!twin_detail::FieldsHeld("DataCopyPad", "DataCopyParams", p.blockCount, &p.blockLen, " B", loc)) return;
    T v;
    if constexpr (std::is_integral<T>::value) v = static_cast<T>(pad.paddingValue);
    else v = ascendopt_twin::FromF<T>(static_cast<float>(pad.paddingValue));
    twin_detail::PadIn("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
                       pad.rightPadding, v, loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p,
                        ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    if (!twin_detail::FieldsHeld("DataCopyPad", "DataCopyExtParams", p.blockCount, nullptr, "", loc)) return;
    twin_detail::PadOut("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
                        ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    if (!twin_detail::FieldsHeld("DataCopyPad", "DataCopyParams", p.blockCount, &p.blockLen, " B", loc)) return;
    twin_detail::PadOut("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}

}  // namespace AscendC
#endif
