// AscendOptimizer CPU twin: kernel-side tiling access (GET_TILING_DATA & co, TILING_KEY_IS).
#ifndef ASCENDOPT_TWIN_TILING_KERNEL_H
#define ASCENDOPT_TWIN_TILING_KERNEL_H

#include "ascendopt_twin/rt.h"
#include "ascendopt_twin/tiling_reg.h"

// Which struct GET_TILING_DATA reads: the class registered for the operator being built (-DASCENDOPT_OP_TYPE,
// chosen in tiling_op.h, which the kernel build includes after the seal), else the last registered class. Not
// tested here: this header is in the kernel's precompiled header, shared by every operator.
#define ASCENDOPT_TWIN_DEFAULT_TILING_TYPE ::ascendopt_twin::tiling::Pick<AscendoptTwinTilingDefaultType, __COUNTER__>::type
#define ASCENDOPT_TWIN_OP_TILING_TYPE(op) ::optiling::ASCENDOPT_TWIN_CAT(AscendoptTwinTilingFor_, op)::type
#define ASCENDOPT_TWIN_KERNEL_TILING_TYPE ASCENDOPT_TWIN_DEFAULT_TILING_TYPE
#define GET_TILING_DATA(var, tiling)                                                                                     \
    ASCENDOPT_TWIN_KERNEL_TILING_TYPE var;                                                                               \
    ::ascendopt_twin::rt::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t *>(tiling), "tiling data", __FILE__, __LINE__)

#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, var, tiling) \
    tiling_struct var;                                           \
    ::ascendopt_twin::rt::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t *>(tiling), #tiling_struct, __FILE__, __LINE__)
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling) \
    const tiling_struct *dst_ptr = reinterpret_cast<const tiling_struct *>(tiling)
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling)                                                        \
    decltype(tiling_type::member) var;                                                                                 \
    std::memcpy(&var, reinterpret_cast<const uint8_t *>(tiling) + offsetof(tiling_type, member), sizeof(var))
#define REGISTER_TILING_DEFAULT(tiling_struct) using AscendoptTwinTilingDefaultType = tiling_struct
#define REGISTER_TILING_FOR_TILINGKEY(cond, tiling_struct) static_assert(sizeof(tiling_struct) > 0, "")
#define TILING_KEY_IS(k) (::ascendopt_twin::rt::g_blk->tilingKey == static_cast<uint64_t>(k))

#endif
