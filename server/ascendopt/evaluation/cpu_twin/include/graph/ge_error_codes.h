// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_GRAPH_GE_ERROR_CODES_H
#define ASCENDOPT_TWIN_GRAPH_GE_ERROR_CODES_H
#include "ascendopt_twin/host.h"
#endif
