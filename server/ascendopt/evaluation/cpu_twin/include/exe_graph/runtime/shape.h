// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_SHAPE_H
#define ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_SHAPE_H
#include "ascendopt_twin/host.h"
#endif
