// AscendOptimizer CPU twin: CANN's kernel build generates the kernel's view of op_host's tiling struct at
// global scope, and open-repo kernels name it unqualified (`const HeavisideTilingData*`). The twin's
// kernel view lives where op_host declares it (namespace optiling); this makes it visible as CANN's is.
// Forced in (-include) after the op_host tiling header, for open-repo operators only.
#ifndef ASCENDOPT_TWIN_TILING_GLOBAL_H
#define ASCENDOPT_TWIN_TILING_GLOBAL_H
namespace optiling {
}
using namespace optiling;
#endif
