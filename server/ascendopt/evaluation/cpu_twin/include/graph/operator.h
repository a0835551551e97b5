// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_GRAPH_OPERATOR_H
#define ASCENDOPT_TWIN_GRAPH_OPERATOR_H
#include "ascendopt_twin/host.h"
#endif
