// AscendOptimizer CPU twin: what a torch extension uses of this header (ascendopt_twin/torch_ext.h).
#ifndef ASCENDOPT_TWIN_TORCH_EXTENSION_H
#define ASCENDOPT_TWIN_TORCH_EXTENSION_H
#include "ascendopt_twin/torch_ext.h"
#endif
