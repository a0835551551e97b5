// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_PLATFORM_PLATFORM_INFOS_DEF_H
#define ASCENDOPT_TWIN_PLATFORM_PLATFORM_INFOS_DEF_H
#include "ascendopt_twin/host.h"
#endif
