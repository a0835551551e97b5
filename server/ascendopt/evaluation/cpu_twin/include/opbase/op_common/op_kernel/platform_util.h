// AscendOptimizer CPU twin: ops-base kernel platform constants (Ops::Base, device side; A2 values).
#ifndef ASCENDOPT_TWIN_OPBASE_KERNEL_PLATFORM_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_KERNEL_PLATFORM_UTIL_H

#include <cstdint>

#include "kernel_operator.h"

namespace Ops {
namespace Base {
__aicore__ inline constexpr uint32_t GetUbBlockSize() { return 32U; }
__aicore__ inline constexpr uint32_t GetVRegSize() { return 256U; }
}  // namespace Base
}  // namespace Ops

#endif
