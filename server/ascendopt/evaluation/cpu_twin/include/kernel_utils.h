// AscendOptimizer CPU twin: CANN's kernel_utils.h (AscendC's internal utilities header), which open-repo
// kernels include by name (DeepNormGrad's op_kernel/platform.h). What the twin implements of it is in its
// AscendC headers; a helper it lacks fails to compile naming itself.
#ifndef ASCENDOPT_TWIN_KERNEL_UTILS_H
#define ASCENDOPT_TWIN_KERNEL_UTILS_H
#include "kernel_operator.h"
#endif
