// AscendOptimizer CPU twin: CANN's kernel build generates the kernel's view of op_host's tiling struct at
// global scope, and open-repo kernels name it unqualified (`const HeavisideTilingData*`). The twin's
// kernel view lives where op_host declares it (namespace optiling); this makes it visible as CANN's is.
// Forced in (-include) after the op_host tiling header, for open-repo operators only. build.py lists the
// header's tiling-data classes in ASCENDOPT_TWIN_TILING_USING (using-declarations), so that op_host's other
// names in optiling (a MAX_DIM_NUM the kernel defines too) do not collide with the kernel's; without the
// list, the whole namespace.
#ifndef ASCENDOPT_TWIN_TILING_GLOBAL_H
#define ASCENDOPT_TWIN_TILING_GLOBAL_H
namespace optiling {
}
#ifdef ASCENDOPT_TWIN_TILING_USING
ASCENDOPT_TWIN_TILING_USING
#else
using namespace optiling;
#endif
#endif
