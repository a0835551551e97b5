// AscendOptimizer CPU twin: small kernel-side utilities (constants, workspace, task type macros).
#ifndef ASCENDOPT_TWIN_KERNEL_MISC_H
#define ASCENDOPT_TWIN_KERNEL_MISC_H

#include "ascendopt_twin/tpipe.h"

// The kernel-side ASSERT(...) expands to nothing, as in CANN's NPU build (the check exists only in its CPU
// debug mode): answers that build with CANN rely on it, leaving out the `;` after it (MulSigmoid:
// `ASSERT(...)` then a declaration on the next line) or before it (Lerp: `uint32_t n = t.n ASSERT(n != 0);`),
// which no statement or expression form accepts.
#ifndef ASSERT
#define ASSERT(...)
#endif

// The core a kernel runs on, as CANN's kernels test it (`g_coreType == AIV`): a vector core, or the cube core when
// the build defines ASCENDOPT_TWIN_CUBE (cpu_twin/bisheng.py: a kernel with only cube-core code); the runtime then
// refuses UB work, and a vector build refuses L1/L0 work (twin_core.cpp, Ub).
enum CoreTypeTwin : int32_t { AIC = 1, AIV = 2, MIX = 3 };
namespace AscendC {
using ::AIC;
using ::AIV;
using ::MIX;
}  // namespace AscendC
// A mixed kernel (ASCENDOPT_TWIN_MIX) is built once per core type and the runtime knows each core's type: no
// program-wide setting then.
#ifdef ASCENDOPT_TWIN_CUBE
constexpr int32_t g_coreType = AIC;
#ifndef ASCENDOPT_TWIN_MIX
static const bool ascendopt_twin_cube_kernel = ascendopt_twin::rt::SetCubeKernel();  // at program start
#endif
#define ASCEND_IS_AIV (false)
#define ASCEND_IS_AIC (true)
#define ASCEND_IS_NOT_AIV (true)
#define ASCEND_IS_NOT_AIC (false)
#else
constexpr int32_t g_coreType = AIV;
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#define ASCEND_IS_NOT_AIV (false)
#define ASCEND_IS_NOT_AIC (true)
#endif

// bisheng's scalar min/max builtins, which AI Core code calls unqualified (Catlass's `min(shape.k(), L1TileShape::K)`
// beside its own tla::min for compile-time constants).
template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
constexpr T min(const T a, const T b)
{
    return b < a ? b : a;
}
template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
constexpr T max(const T a, const T b)
{
    return a < b ? b : a;
}

enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};
#define KERNEL_TASK_TYPE_DEFAULT(type) ((void)(type))
#define KERNEL_TASK_TYPE(key, type) ((void)(key), (void)(type))

namespace AscendC {
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / sizeof(float);  // floats per 32-byte block (AddLayerNorm)
constexpr uint32_t BLOCK_CUBE = 16;
constexpr int32_t CUBE_MAX_SIZE = 256;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
// System workspace reserved in front of the user workspace (matches platform GetLibApiWorkSpaceSize()).
constexpr size_t RESERVED_WORKSPACE = 16 * 1024 * 1024;

inline __gm__ uint8_t *GetUserWorkspace(GM_ADDR workspace) { return workspace == nullptr ? nullptr : workspace + RESERVED_WORKSPACE; }
inline __gm__ uint8_t *GetSysWorkSpacePtr() { return ascendopt_twin::rt::g_blk->sysWorkspace; }
inline void SetSysWorkspace(GM_ADDR workspace) { ascendopt_twin::rt::g_blk->sysWorkspace = workspace; }
inline uint32_t GetUBSizeInBytes() { return ascendopt_twin::rt::g_blk->ubSize; }
inline uint32_t GetRuntimeUBSize() { return ascendopt_twin::rt::g_blk->ubSize; }
inline constexpr uint32_t GetDataBlockSizeInBytes() { return 32; }
inline constexpr uint32_t GetVecLen() { return 256; }

__aicore__ constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
__aicore__ constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
__aicore__ constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
__aicore__ inline uint32_t Ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The scalar unit's data cache (docs: DataCacheCleanAndInvalid). The twin has no such cache: a scalar
// store through GM is seen by every block at once, so cleaning and invalidating are no-ops here (a
// kernel missing one is not caught).
enum class CacheLine { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T, CacheLine entireType, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &) {}
template <typename T, CacheLine entireType, DcciDst dcciDst = DcciDst::CACHELINE_UB>
__aicore__ inline void DataCacheCleanAndInvalid(const LocalTensor<T> &) {}

// Scalar bfloat16 <-> float (the docs' ToFloat / ToBfloat16: scalar work, round to nearest even).
__aicore__ inline float ToFloat(const bfloat16_t &value) { return static_cast<float>(value); }
__aicore__ inline bfloat16_t ToBfloat16(const float &value) { return bfloat16_t(value); }
}  // namespace AscendC

#endif
