// AscendOptimizer CPU twin: "lib/matmul_intf.h", the high-level Matmul API (ascendopt_twin/matmul_api.h: a
// functional model of matmul::Matmul and REGIST_MATMUL_OBJ). Vector kernels of the open repos include it whether or
// not they multiply matrices.
#ifndef ASCENDOPT_TWIN_LIB_MATMUL_INTF_H
#define ASCENDOPT_TWIN_LIB_MATMUL_INTF_H
#include "kernel_operator.h"
#include "ascendopt_twin/matmul_api.h"
#endif
