// AscendOptimizer CPU twin: "tiling/tiling_api.h". Host tiling code includes it for the tiling-data macros
// and the platform; the advanced APIs' host tiling functions (SoftMax, LayerNorm, Matmul, …) are not in the
// twin, so a tiling program calling one fails to compile naming it.
#ifndef ASCENDOPT_TWIN_TILING_TILING_API_H
#define ASCENDOPT_TWIN_TILING_TILING_API_H
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#endif
