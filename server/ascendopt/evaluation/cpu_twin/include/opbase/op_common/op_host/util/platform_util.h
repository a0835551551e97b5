// AscendOptimizer CPU twin: ops-base platform queries for tiling programs (Ops::Base), answered from the
// platform the runner describes (the manifest's SoC, core counts and UB size).
#ifndef ASCENDOPT_TWIN_OPBASE_HOST_PLATFORM_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_HOST_PLATFORM_UTIL_H

#include <cstdint>
#include <type_traits>

#include "ascendopt_twin/host.h"
#include "op_common/log/log.h"

namespace Ops {
namespace Base {
namespace twin_platform {
template <typename T> constexpr bool IsContext()
{
    using U = typename std::remove_const<T>::type;
    return std::is_same<U, gert::TilingParseContext>::value || std::is_same<U, gert::TilingContext>::value;
}
}  // namespace twin_platform

template <typename T> uint32_t GetAivCoreNum(const T *context)
{
    static_assert(twin_platform::IsContext<T>(), "context should be gert::TilingParseContext or gert::TilingContext");
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    return platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
}
template <typename T> uint32_t GetAicCoreNum(const T *context)
{
    static_assert(twin_platform::IsContext<T>(), "context should be gert::TilingParseContext or gert::TilingContext");
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    return platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAic();
}
template <typename T> uint32_t GetUbSize(const T *context)
{
    static_assert(twin_platform::IsContext<T>(), "context should be gert::TilingParseContext or gert::TilingContext");
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    uint64_t ub = 0;
    platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    return static_cast<uint32_t>(ub);
}
template <typename T> uint32_t GetUbBlockSize(const T *) { return 32U; }
template <typename T> uint32_t GetVRegSize(const T *) { return 256U; }
template <typename T> uint32_t GetCacheLineSize(const T *) { return 256U; }
template <typename T> uint32_t GetWorkspaceSize(const T *context)
{
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    return platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetLibApiWorkSpaceSize();
}
// "Regbase" SoCs are the 950 family (the repos' arch35 kernels); the A2/A3 SoCs are not.
template <typename T> bool IsRegbaseSocVersion(const T *context)
{
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return false;
    return context->GetPlatformInfo()->twinSoc.rfind("Ascend950", 0) == 0;
}
}  // namespace Base
}  // namespace Ops

#endif
