// AscendOptimizer CPU twin: "kernel_tiling/kernel_tiling.h", the header CANN generates with the tiling
// structures kernels read (GET_TILING_DATA & co). The twin's kernel-side tiling access covers what the
// operators it runs use; of the advanced APIs' tiling structs PadTiling / UnPadTiling, SoftMaxTiling and TCubeTiling are
// here (host code and main.cpp include this header too, for sizeof).
#ifndef ASCENDOPT_TWIN_KERNEL_TILING_H
#define ASCENDOPT_TWIN_KERNEL_TILING_H

#include <cstdint>

#include "ascendopt_twin/cube_tiling.h"
#include "ascendopt_twin/pad_tiling.h"
#include "ascendopt_twin/softmax_tiling.h"

#ifdef ASCENDOPT_TWIN_KERNEL
#include "ascendopt_twin/tiling_kernel.h"
#endif

#endif
