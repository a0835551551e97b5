// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H
#define ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H
#include "ascendopt_twin/host.h"
#endif
