// AscendOptimizer CPU twin: Transpose (the basic form: one 16 x 16 matrix of 2-byte elements).
#ifndef ASCENDOPT_TWIN_VEC_TRANSPOSE_H
#define ASCENDOPT_TWIN_VEC_TRANSPOSE_H

#include "ascendopt_twin/vec_common.h"

namespace AscendC {

// dst[j][i] = src[i][j] for a row-major 16 x 16 matrix (512 B). The extended form (TransposeParamsExt) is not modelled.
template <typename T> inline void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::OneOf<T, int16_t, uint16_t, half>(), "Transpose: data type not supported on Ascend 910B (Atlas A2)");
    namespace rt = ascendopt_twin::rt;
    rt::Op op = rt::Begin(ascendopt_twin::P_V, "Transpose", loc);
    rt::TraceOp(op, ascendopt_twin::DTypeName<T>::value, 256, 512, 2, -1, twin_detail::Access::Off(dst));
    bool ok = rt::CheckCount(op, twin_detail::Access::Off(src), 512, false, twin_detail::Access::Buf(src), "src");
    ok = rt::CheckCount(op, twin_detail::Access::Off(dst), 512, true, twin_detail::Access::Buf(dst), "dst") && ok;
    if (!ok) return;
    T m[256];
    std::memcpy(m, twin_detail::Access::Ptr(src), 512);
    for (uint32_t i = 0; i < 16; ++i)
        for (uint32_t j = 0; j < 16; ++j) *twin_detail::Access::Ptr(dst, j * 16 + i) = m[i * 16 + j];
}

}  // namespace AscendC
#endif
