// AscendOptimizer CPU twin: "lib/math/kernel_operator_cos_intf.h", the advanced math API's header as CANN ships
// it. Kernels include these headers for APIs they may not call (Foreach kernels include the asin header to use
// Exp); the twin declares what it implements in kernel_operator.h, so a kernel calling an API the twin lacks
// fails to compile naming that API, and one that only includes the header builds.
#ifndef ASCENDOPT_TWIN_LIB_MATH_COS_INTF_H
#define ASCENDOPT_TWIN_LIB_MATH_COS_INTF_H
#include "kernel_operator.h"
#endif
