// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h).
#ifndef ASCENDOPT_TWIN_PLATFORM_PLATFORM_ASCENDC_H
#define ASCENDOPT_TWIN_PLATFORM_PLATFORM_ASCENDC_H
#include "ascendopt_twin/host.h"
#endif
