// AscendOptimizer CPU twin: ops-base kernel arithmetic helpers (Ops::Base, device side).
#ifndef ASCENDOPT_TWIN_OPBASE_KERNEL_MATH_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_KERNEL_MATH_UTIL_H

#include "kernel_operator.h"

namespace Ops {
namespace Base {
// b == 0 gives a (CeilDiv) or 0 (CeilAlign), as ops-base does; FloorDiv/FloorAlign assume b != 0.
template <typename T> __aicore__ inline T CeilDiv(T a, T b) { return b == 0 ? a : static_cast<T>((a + b - 1) / b); }
template <typename T> __aicore__ inline T FloorDiv(T a, T b) { return a / b; }
template <typename T> __aicore__ inline T CeilAlign(T a, T b) { return b == 0 ? 0 : static_cast<T>((a + b - 1) / b * b); }
template <typename T> __aicore__ inline T FloorAlign(T a, T b) { return a / b * b; }
}  // namespace Base
}  // namespace Ops

#endif
