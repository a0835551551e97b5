// AscendOptimizer CPU twin: stands in for CANN's tikicpulib.h (CPU-debug host programs include it).
#ifndef ASCENDOPT_TWIN_TIKICPULIB_H
#define ASCENDOPT_TWIN_TIKICPULIB_H

#include "kernel_operator.h"
#include "ascendopt_twin/cpu_debug.h"

#endif
