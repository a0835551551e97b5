// AscendOptimizer CPU twin: CANN's internal 910B (dav-c220) header for register-level helpers, which
// cann-ops norm kernels include by name. What the twin implements of them is in its AscendC
// headers; a helper it lacks fails to compile naming itself.
#ifndef ASCENDOPT_TWIN_IMPL_DAV_C220_KERNEL_OPERATOR_REG_OTHERS_IMPL_H
#define ASCENDOPT_TWIN_IMPL_DAV_C220_KERNEL_OPERATOR_REG_OTHERS_IMPL_H
#include "kernel_operator.h"
#endif
