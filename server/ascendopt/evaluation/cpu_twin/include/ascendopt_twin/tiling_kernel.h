// AscendOptimizer CPU twin: kernel-side tiling access (GET_TILING_DATA & co, TILING_KEY_IS).
#ifndef ASCENDOPT_TWIN_TILING_KERNEL_H
#define ASCENDOPT_TWIN_TILING_KERNEL_H

#include "ascendopt_twin/rt.h"
#include "ascendopt_twin/tiling_reg.h"

#ifdef ASCENDOPT_OP_TYPE
#define ASCENDOPT_TWIN_TILING_TYPE typename ::optiling::ASCENDOPT_TWIN_CAT(AscendoptTwinTilingFor_, ASCENDOPT_OP_TYPE)::type
#define GET_TILING_DATA(var, tiling)                                                                     \
    ::optiling::ASCENDOPT_TWIN_CAT(AscendoptTwinTilingFor_, ASCENDOPT_OP_TYPE)::type var;                \
    ::ascendopt_twin::rt::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t *>(tiling), "tiling data", __FILE__, __LINE__)
#else
#define GET_TILING_DATA(var, tiling)                                                                                     \
    ::ascendopt_twin::tiling::Pick<AscendoptTwinTilingDefaultType, __COUNTER__>::type var;                               \
    ::ascendopt_twin::rt::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t *>(tiling), "tiling data", __FILE__, __LINE__)
#endif

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
