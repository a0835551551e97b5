// AscendOptimizer CPU twin: Brcb (each of 8 source elements per repeat fills one 32 B block of dst).
#ifndef ASCENDOPT_TWIN_VEC_BRCB_H
#define ASCENDOPT_TWIN_VEC_BRCB_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {
// Elements one Brcb repeat reads (each fills one 32 B block); kernels align row counts to it (AddLayerNorm).
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;

struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn)
    {}
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
};

// Repeat r reads src[8r .. 8r+8) (contiguous) and writes element i to every lane of dst block i of that repeat
// (block address: dst + (r * dstRepStride + i * dstBlkStride) * 32 B).
template <typename T>
inline void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint8_t repeatTime, const BrcbRepeatParams &repeatParams,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),
                  "Brcb: data type not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Brcb", loc);
    uint32_t perBlk = 32u / sizeof(T);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, static_cast<int64_t>(repeatTime) * 8 * perBlk, static_cast<int64_t>(repeatTime) * 256,
                repeatTime, -1, twin_detail::Access::Off(dst));
    if (repeatTime == 0) return;
    if (!rt::CheckCount(op, twin_detail::Access::Off(src), static_cast<uint64_t>(repeatTime) * 8 * sizeof(T), false, twin_detail::Access::Buf(src), "src")) return;
    if (twin_detail::Access::Off(dst) % 32 != 0)
        rt::Report("misaligned_operand", true, op.file, op.line, "Brcb: dst at UB offset %u is not 32 B aligned", twin_detail::Access::Off(dst));
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t i = 0; i < 8; ++i) {
            uint32_t off = twin_detail::Access::Off(dst) + (r * repeatParams.dstRepStride + i * repeatParams.dstBlkStride) * 32u;
            if (!rt::Ub(op, off, 32, true, twin_detail::Access::Buf(dst), "dst")) return;
            T v = *twin_detail::Access::Ptr(src, r * 8 + i);
            for (uint32_t k = 0; k < perBlk; ++k) std::memcpy(rt::UbPtr(off + k * sizeof(T)), &v, sizeof(T));
        }
}

}  // namespace AscendC
#endif
