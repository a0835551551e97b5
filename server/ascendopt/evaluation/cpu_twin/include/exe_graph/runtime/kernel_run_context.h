// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h). CANN's KernelRunContext is
// the runtime's raw frame behind every context; tiling code includes it beside tiling_context.h and
// reaches it only through the contexts, which host.h provides.
#ifndef ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_KERNEL_RUN_CONTEXT_H
#define ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_KERNEL_RUN_CONTEXT_H
#include "ascendopt_twin/host.h"
#endif
