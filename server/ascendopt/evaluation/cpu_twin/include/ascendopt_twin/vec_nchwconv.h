// AscendOptimizer CPU twin: the VNCHWCONV instruction, one core behind its two spellings: the AscendC API
// TransDataTo5HD (lists of 16 LocalTensors or of 16 UB addresses; TransDataTo5HDImpl, CANN's implementation function
// that some kernels call directly on `__ubuf__ T *` lists) and the CCE intrinsics scatter_vnchwconv_b8/b16/b32,
// which read their 16 addresses from the VA address registers (set_va_reg_sb). Also the raw-pointer vector
// intrinsics 910B norm kernels issue around it (vtranspose, vor, vector_dup, copy_ubuf_to_ubuf, set_vector_mask):
// each runs the twin's own AscendC instruction on the UB offsets of its pointers (raw_ub.h).
//
// One repeat reads 16 data blocks (32 B each) and writes 16: for 2-byte types dst block j holds element j of every
// source block (a 16 x 16 transpose); for 4-byte types round k (0..7) gathers element k of the 16 source blocks
// into dst blocks 2k (sources 0..7) and 2k+1 (sources 8..15); for 1-byte types round j (0..15) gathers byte j of
// the chosen half of every source block (srcHighHalf) into the chosen half of dst block j (dstHighHalf). Repeat r
// moves every address on by r * stride data blocks; with a single repeat the stride is still added once (the C API
// docs: set it to 0 to start at the listed addresses). No mask applies.
#ifndef ASCENDOPT_TWIN_VEC_NCHWCONV_H
#define ASCENDOPT_TWIN_VEC_NCHWCONV_H

#include <cstdio>

#include "ascendopt_twin/raw_ub.h"
#include "ascendopt_twin/datacopy.h"
#include "ascendopt_twin/vec_binary.h"
#include "ascendopt_twin/vec_duplicate.h"
#include "ascendopt_twin/vec_transpose.h"

// The VA address registers (a CCE type, global as the device compiler has it).
enum ub_addr8_t : uint8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };

namespace AscendC {
constexpr uint32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    TransDataTo5HDParams() {}
    TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn, const uint16_t dstRepStrideIn,
                         const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

namespace twin_detail {
// One operand list: the 16 blocks' UB offsets and, when known, their tensors' buffers.
struct ConvList {
    uint32_t off[16];
    rt::UbBuf buf[16];
};

inline void Nchwconv(const char *name, const char *dtype, uint32_t esz, const ConvList &dst, const ConvList &src, const TransDataTo5HDParams &p,
                     const Loc &loc)
{
    rt::Op op = rt::Begin(ascendopt_twin::P_V, name, loc);
    const uint32_t repeat = p.repeatTimes;
    // 512 B a repeat: two 256 B vector repeats, as Transpose's one 16 x 16 matrix
    rt::TraceOp(op, dtype, static_cast<int64_t>(repeat) * 512 / esz, static_cast<int64_t>(repeat) * 512, 2 * static_cast<int64_t>(repeat), -1, dst.off[0]);
    if (repeat == 0) return;
    for (uint32_t i = 0; i < 16; ++i) {
        if (src.off[i] % 32 != 0)
            rt::Report("misaligned_operand", true, op.file, op.line, "%s: source block %u at UB offset %u is not 32 B aligned", name, i, src.off[i]);
        if (dst.off[i] % 32 != 0)
            rt::Report("misaligned_operand", true, op.file, op.line, "%s: destination block %u at UB offset %u is not 32 B aligned", name, i, dst.off[i]);
    }
    const uint32_t half = esz == 1 ? 16 : 32;  // bytes of each block read and written
    const uint32_t srcPart = esz == 1 && p.srcHighHalf ? 16 : 0, dstPart = esz == 1 && p.dstHighHalf ? 16 : 0;
    static const char *const kSrc[16] = {"src[0]", "src[1]", "src[2]", "src[3]", "src[4]", "src[5]", "src[6]", "src[7]",
                                         "src[8]", "src[9]", "src[10]", "src[11]", "src[12]", "src[13]", "src[14]", "src[15]"};
    static const char *const kDst[16] = {"dst[0]", "dst[1]", "dst[2]", "dst[3]", "dst[4]", "dst[5]", "dst[6]", "dst[7]",
                                         "dst[8]", "dst[9]", "dst[10]", "dst[11]", "dst[12]", "dst[13]", "dst[14]", "dst[15]"};
    for (uint32_t r = 0; r < repeat; ++r) {
        const uint64_t step = repeat == 1 ? 1 : r;
        uint8_t in[16][32], out[16][32];
        uint32_t at[16];
        for (uint32_t i = 0; i < 16; ++i) {
            const uint64_t o = src.off[i] + step * p.srcRepStride * 32u + srcPart;
            if (!rt::Ub(op, static_cast<uint32_t>(o), half, false, src.buf[i], kSrc[i])) return;
            std::memcpy(in[i], rt::UbPtr(static_cast<uint32_t>(o)), half);
        }
        for (uint32_t j = 0; j < 16; ++j) {
            const uint64_t o = dst.off[j] + step * p.dstRepStride * 32u + dstPart;
            if (o + half > rt::g_blk->ubSize)
                rt::Fatal("local_out_of_bounds", op.file, op.line, "%s: %s of repeat %u at UB offset %llu is past the end of the %u B Unified Buffer",
                          name, kDst[j], r, static_cast<unsigned long long>(o), rt::g_blk->ubSize);
            at[j] = static_cast<uint32_t>(o);
        }
        if (esz == 2) {
            for (uint32_t j = 0; j < 16; ++j)
                for (uint32_t i = 0; i < 16; ++i) std::memcpy(out[j] + 2 * i, in[i] + 2 * j, 2);
        } else if (esz == 4) {
            for (uint32_t k = 0; k < 8; ++k)
                for (uint32_t i = 0; i < 16; ++i) std::memcpy(out[2 * k + i / 8] + 4 * (i % 8), in[i] + 4 * k, 4);
        } else {
            for (uint32_t j = 0; j < 16; ++j)
                for (uint32_t i = 0; i < 16; ++i) out[j][i] = in[i][j];
        }
        for (uint32_t j = 0; j < 16; ++j) {
            rt::Ub(op, at[j], half, true, dst.buf[j], kDst[j]);
            std::memcpy(rt::UbPtr(at[j]), out[j], half);
        }
    }
}

template <typename T> inline void CheckConvType()
{
    static_assert(OneOf<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>(),
                  "TransDataTo5HD: data type not supported on Ascend 910B (Atlas A2)");
}
// A list of 16 raw UB addresses (host addresses of UB bytes, as GetPhyAddr gives them).
inline ConvList RawConvList(const uint64_t (&addr)[16], const char *api, const char *side, const Loc &loc)
{
    ConvList l;
    for (uint32_t i = 0; i < 16; ++i) {
        char what[24];
        std::snprintf(what, sizeof(what), "%s[%u]", side, i);
        l.off[i] = RawUbOffset(addr[i], api, what, loc);
        l.buf[i] = rt::UbBuf{0, 0};
    }
    return l;
}
// The 16 addresses of an instruction operand: register `reg` and the next one (the C API: VA0 names VA0 and VA1).
inline ConvList FromVa(ub_addr8_t reg, const char *api, const char *side, const ascendopt_twin::Loc &loc)
{
    const uint32_t r = static_cast<uint32_t>(reg);
    if (r > 6 || (rt::g_blk->vaSet >> r & 3u) != 3u)
        rt::Fatal("bad_register", loc.file, loc.line, "%s: %s reads VA%u and VA%u, %s", api, side, r, r + 1,
                  r > 6 ? "but VA7 is the last address register" : "which set_va_reg_sb has not both set in this block");
    uint64_t a[16];
    for (uint32_t i = 0; i < 16; ++i) a[i] = rt::g_blk->va[r + i / 8][i % 8];
    return RawConvList(a, api, side, loc);
}
}  // namespace twin_detail

template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstLocalList)[NCHW_CONV_ADDR_LIST_SIZE], const LocalTensor<T> (&srcLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams &nchwconvParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::CheckConvType<T>();
    twin_detail::ConvList d, s;
    for (uint32_t i = 0; i < 16; ++i) {
        d.off[i] = twin_detail::Access::Off(dstLocalList[i]);
        d.buf[i] = twin_detail::Access::Buf(dstLocalList[i]);
        s.off[i] = twin_detail::Access::Off(srcLocalList[i]);
        s.buf[i] = twin_detail::Access::Buf(srcLocalList[i]);
    }
    twin_detail::Nchwconv("TransDataTo5HD", ascendopt_twin::DTypeName<T>::value, sizeof(T), d, s, nchwconvParams, loc);
}
template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams &nchwconvParams,
                           ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::CheckConvType<T>();
    uint64_t d[16], s[16];
    std::memcpy(d, dstList, sizeof(d));
    std::memcpy(s, srcList, sizeof(s));
    twin_detail::Nchwconv("TransDataTo5HD", ascendopt_twin::DTypeName<T>::value, sizeof(T),
                          twin_detail::RawConvList(d, "TransDataTo5HD", "dstList", loc),
                          twin_detail::RawConvList(s, "TransDataTo5HD", "srcList", loc), nchwconvParams, loc);
}
// CANN's implementation function under TransDataTo5HD, on lists of raw UB pointers.
template <typename T>
inline void TransDataTo5HDImpl(__ubuf__ T *dstList[NCHW_CONV_ADDR_LIST_SIZE], __ubuf__ T *srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams &nchwconvParams, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::CheckConvType<T>();
    uint64_t d[16], s[16];
    for (uint32_t i = 0; i < 16; ++i) {
        d[i] = reinterpret_cast<uintptr_t>(dstList[i]);
        s[i] = reinterpret_cast<uintptr_t>(srcList[i]);
    }
    twin_detail::Nchwconv("TransDataTo5HDImpl", ascendopt_twin::DTypeName<T>::value, sizeof(T),
                          twin_detail::RawConvList(d, "TransDataTo5HDImpl", "dstList", loc),
                          twin_detail::RawConvList(s, "TransDataTo5HDImpl", "srcList", loc), nchwconvParams, loc);
}
}  // namespace AscendC

// ---- CCE intrinsics (global namespace, as the device compiler offers them) ----

// VAr takes eight UB addresses; an address outside the UB stops the block here, at the kernel's line.
inline void set_va_reg_sb(ub_addr8_t reg, const uint64_t *addrs, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_S, "set_va_reg_sb", loc);
    rt::TraceOp(op, nullptr, -1, -1);
    const uint32_t r = static_cast<uint32_t>(reg) & 7u;
    for (uint32_t i = 0; i < 8; ++i) {
        char what[24];
        std::snprintf(what, sizeof(what), "VA%u slot %u", r, i);
        AscendC::twin_detail::RawUbOffset(addrs[i], "set_va_reg_sb", what, loc);
        rt::g_blk->va[r][i] = addrs[i];
    }
    rt::g_blk->vaSet = static_cast<uint8_t>(rt::g_blk->vaSet | (1u << r));
}
template <typename T> inline void set_va_reg_sb(ub_addr8_t reg, __ubuf__ T **addrs, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    uint64_t a[8];
    for (uint32_t i = 0; i < 8; ++i) a[i] = reinterpret_cast<uintptr_t>(addrs[i]);
    set_va_reg_sb(reg, a, loc);
}


#define ASCENDOPT_TWIN_SCATTER_VNCHWCONV(NAME, ESZ, DTYPE)                                                                         \
    inline void NAME(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride,                       \
                     ascendopt_twin::Loc loc = ascendopt_twin::Loc())                                                              \
    {                                                                                                                              \
        AscendC::twin_detail::Nchwconv("TransDataTo5HD", DTYPE, ESZ, AscendC::twin_detail::FromVa(dst, #NAME, "dst", loc),     \
                                       AscendC::twin_detail::FromVa(src, #NAME, "src", loc),                                  \
                                       AscendC::TransDataTo5HDParams(false, false, repeat, dstStride, srcStride), loc);           \
    }
ASCENDOPT_TWIN_SCATTER_VNCHWCONV(scatter_vnchwconv_b16, 2, "half")
ASCENDOPT_TWIN_SCATTER_VNCHWCONV(scatter_vnchwconv_b32, 4, "float")
#undef ASCENDOPT_TWIN_SCATTER_VNCHWCONV
inline void scatter_vnchwconv_b8(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride, bool dstHighHalf,
                                 bool srcHighHalf, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    AscendC::twin_detail::Nchwconv("TransDataTo5HD", "int8", 1, AscendC::twin_detail::FromVa(dst, "scatter_vnchwconv_b8", "dst", loc),
                                   AscendC::twin_detail::FromVa(src, "scatter_vnchwconv_b8", "src", loc),
                                   AscendC::TransDataTo5HDParams(dstHighHalf, srcHighHalf, repeat, dstStride, srcStride), loc);
}

// vtranspose: Transpose's 16 x 16 matrix of 2-byte elements at raw UB pointers.
template <typename T> inline void vtranspose(__ubuf__ T *dst, __ubuf__ T *src, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    AscendC::Transpose(AscendC::twin_detail::RawUbView<T>(dst, "vtranspose", "dst", loc), AscendC::twin_detail::RawUbView<T>(src, "vtranspose", "src", loc),
                       loc);
}
// vor: Or's repeat form, lanes from the mask register (set_vector_mask / SetMask).
template <typename T>
inline void vor(__ubuf__ T *dst, __ubuf__ T *src0, __ubuf__ T *src1, uint8_t repeat, uint8_t dstBlkStride, uint8_t src0BlkStride,
                uint8_t src1BlkStride, uint8_t dstRepStride, uint8_t src0RepStride, uint8_t src1RepStride,
                ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(AscendC::twin_detail::kBitwise<T>, "vor: data type not supported on Ascend 910B (Atlas A2)");
    namespace td = AscendC::twin_detail;
    td::BinaryRep<td::FOr>("Or", td::RawUbView<T>(dst, "vor", "dst", loc), td::RawUbView<T>(src0, "vor", "src0", loc),
                           td::RawUbView<T>(src1, "vor", "src1", loc), td::RegisterMask(), repeat,
                           AscendC::BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride), loc);
}
// vector_dup: Duplicate's repeat form (the source strides of a scalar mean nothing), lanes from the mask register.
template <typename T, typename S>
inline void vector_dup(__ubuf__ T *dst, S value, uint8_t repeat, uint16_t dstBlkStride, uint16_t srcBlkStride, uint8_t dstRepStride,
                       uint8_t srcRepStride, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)srcBlkStride; (void)srcRepStride;
    namespace td = AscendC::twin_detail;
    td::DupRep<T>(td::RawUbView<T>(dst, "vector_dup", "dst", loc), static_cast<T>(value), td::RegisterMask(), repeat, dstBlkStride, dstRepStride, loc);
}
// copy_ubuf_to_ubuf: DataCopy UB -> UB (nBurst bursts of lenBurst 32 B blocks, gaps in blocks); sid is unused.
template <typename T>
inline void copy_ubuf_to_ubuf(__ubuf__ T *dst, __ubuf__ T *src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst, uint16_t srcGap, uint16_t dstGap,
                              ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    (void)sid;
    namespace td = AscendC::twin_detail;
    AscendC::DataCopy(td::RawUbView<T>(dst, "copy_ubuf_to_ubuf", "dst", loc), td::RawUbView<T>(src, "copy_ubuf_to_ubuf", "src", loc),
                      AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), loc);
}
// set_vector_mask(high, low): the mask register in normal mode, as SetVectorMask.
inline void set_vector_mask(uint64_t maskHigh, uint64_t maskLow, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    AscendC::SetVectorMask<uint16_t>(maskHigh, maskLow, loc);
}
// set_mask_count() / set_mask_norm(): the intrinsics under SetMaskCount / SetMaskNorm (the mask register's mode;
// in counter mode the register's low word is the element count of the next isSetMask=false instruction).
inline void set_mask_count(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) { AscendC::SetMaskCount(loc); }
inline void set_mask_norm(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) { AscendC::SetMaskNorm(loc); }
#endif
