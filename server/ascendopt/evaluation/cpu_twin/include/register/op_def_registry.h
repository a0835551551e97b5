// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_REGISTER_OP_DEF_REGISTRY_H
#define ASCENDOPT_TWIN_REGISTER_OP_DEF_REGISTRY_H
#include "ascendopt_twin/host.h"
#endif
