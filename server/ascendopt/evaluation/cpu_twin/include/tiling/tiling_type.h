// AscendOptimizer CPU twin: the open operator repos' `tiling/tiling_type.h`, which tiling headers include
// beside tiling_base.h. Its tiling-key enums and helpers (attention and matmul operators) are not provided:
// code using one fails to compile, naming it.
#ifndef ASCENDOPT_TWIN_TILING_TILING_TYPE_H
#define ASCENDOPT_TWIN_TILING_TILING_TYPE_H
#include <cstdint>
#endif
