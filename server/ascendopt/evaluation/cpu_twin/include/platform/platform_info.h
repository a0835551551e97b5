// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h). CANN's platform/platform_info.h
// (fe::PlatformInfoManager's header), which tiling programs include for PlatformAscendC and fe's types.
#ifndef ASCENDOPT_TWIN_PLATFORM_PLATFORM_INFO_H
#define ASCENDOPT_TWIN_PLATFORM_PLATFORM_INFO_H
#include "ascendopt_twin/host.h"
#endif
