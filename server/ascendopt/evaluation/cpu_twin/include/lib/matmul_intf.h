// AscendOptimizer CPU twin: "lib/matmul_intf.h". Vector kernels of the open repos include it whether or
// not they multiply matrices; the twin has no Matmul API (cube unit), so a kernel that uses one fails to
// compile naming it, and one that only includes the header builds.
#ifndef ASCENDOPT_TWIN_LIB_MATMUL_INTF_H
#define ASCENDOPT_TWIN_LIB_MATMUL_INTF_H
#include "kernel_operator.h"
#endif
