// AscendOptimizer CPU twin: GM initialisation (InitGlobalMemory and its older names Fill, InitOutput).
#ifndef ASCENDOPT_TWIN_GM_INIT_H
#define ASCENDOPT_TWIN_GM_INIT_H

#include "ascendopt_twin/tpipe.h"

namespace AscendC {

// Fills GM with a value (MTE3 on the NPU); typically followed by SyncAll before atomics.
template <typename T>
inline void InitGlobalMemory(const GlobalTensor<T> &gm, const uint64_t size, const T value, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE3, "InitGlobalMemory", loc);
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(size), static_cast<int64_t>(size * sizeof(T)));
    if (size == 0) return;
    if (!rt::Gm(op, twin_detail::Access::Addr(gm), size * sizeof(T), true, twin_detail::Access::DeclLo(gm), twin_detail::Access::DeclHi(gm), "dst")) return;
    for (uint64_t i = 0; i < size; ++i) std::memcpy(twin_detail::Access::Addr(gm) + i, &value, sizeof(T));
}

// Fill(gm, size, value): the name older samples use for InitGlobalMemory.
template <typename T>
inline void Fill(const GlobalTensor<T> &gm, const uint64_t size, const T value, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    InitGlobalMemory(gm, size, value, loc);
}

// InitOutput(gm, size, value): the name the older open-repo norm kernels use (RmsNormGrad, DeepNormGrad).
template <typename T>
inline void InitOutput(const GlobalTensor<T> &gm, const uint64_t size, const T value, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    InitGlobalMemory(gm, size, value, loc);
}

}  // namespace AscendC
#endif
