// AscendOptimizer CPU twin: host-side API (see ascendopt_twin/host.h). gert::ExtendedKernelContext, the contexts'
// common base, is declared in host/gert_context.h.
#ifndef ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_EXTENDED_KERNEL_CONTEXT_H
#define ASCENDOPT_TWIN_EXE_GRAPH_RUNTIME_EXTENDED_KERNEL_CONTEXT_H
#include "ascendopt_twin/host.h"
#endif
