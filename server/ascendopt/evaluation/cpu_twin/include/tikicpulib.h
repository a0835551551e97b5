// AscendOptimizer CPU twin: stands in for CANN's tikicpulib.h (CPU-debug host programs include it).
#ifndef ASCENDOPT_TWIN_TIKICPULIB_H
#define ASCENDOPT_TWIN_TIKICPULIB_H

#include "kernel_operator.h"
#include "ascendopt_twin/cpu_debug.h"
// CANN's CPU-debug headers bring the secure C functions along: samples call memcpy_s with no include of their own.
#include "securec.h"

#endif
