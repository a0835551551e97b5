// AscendOptimizer CPU twin: what a torch extension uses of this header (ascendopt_twin/torch_ext.h).
#ifndef ASCENDOPT_TWIN_PYBIND11_PYBIND11_H
#define ASCENDOPT_TWIN_PYBIND11_PYBIND11_H
#include "ascendopt_twin/torch_ext.h"
#endif
