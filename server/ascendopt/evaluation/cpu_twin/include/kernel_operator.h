// AscendOptimizer CPU twin: device-side AscendC API subset (namespace AscendC), compiled with g++ on x86.
// APIs that are not listed here are intentionally absent so that a kernel using them fails to compile.
#ifndef ASCENDOPT_TWIN_KERNEL_OPERATOR_H
#define ASCENDOPT_TWIN_KERNEL_OPERATOR_H

#include "ascendopt_twin/base.h"
#include "ascendopt_twin/rt.h"
#include "ascendopt_twin/tensor.h"
#include "ascendopt_twin/tpipe.h"
#include "ascendopt_twin/datacopy.h"
#include "ascendopt_twin/vec.h"
#include "ascendopt_twin/kernel_misc.h"
#include "ascendopt_twin/tiling_kernel.h"

#endif
