// AscendOptimizer CPU twin: "lib/matrix/matmul/tiling.h", where CANN declares the Matmul API's tiling structure
// (TCubeTiling: ascendopt_twin/cube_tiling.h).
#ifndef ASCENDOPT_TWIN_LIB_MATRIX_MATMUL_TILING_H
#define ASCENDOPT_TWIN_LIB_MATRIX_MATMUL_TILING_H
#include "ascendopt_twin/cube_tiling.h"
#endif
