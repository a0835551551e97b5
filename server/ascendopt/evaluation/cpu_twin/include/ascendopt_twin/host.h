// AscendOptimizer CPU twin: host-side (op_host) API subset: ge / gert / fe / platform_ascendc / ops.
// Only what msOpGen-style tiling and op-definition code needs; anything else fails to compile on purpose.
#ifndef ASCENDOPT_TWIN_HOST_H
#define ASCENDOPT_TWIN_HOST_H

// One header per API family under host/, each with what it needs; this one brings them all, as before.
// Every non-template member or function whose body uses a standard container (vector, string, map) is only
// declared here and defined in runtime/host_api.cpp, linked into every runner: g++ writes a precompiled header
// before it instantiates the templates that inline bodies odr-use, so each compile through the PCH would
// instantiate them again (std::map<std::string, …>, vector moves), used or not: ~0.1 CPU s per compile.
// Templates stay in the headers; bodies that touch no container may stay inline.
#include "ascendopt_twin/host/common.h"
#include "ascendopt_twin/host/ge.h"
#include "ascendopt_twin/host/fe.h"
#include "ascendopt_twin/host/gert_tensor.h"
#include "ascendopt_twin/host/gert_context.h"
#include "ascendopt_twin/host/ge_operator.h"
#include "ascendopt_twin/host/op_impl.h"
#include "ascendopt_twin/host/platform.h"
#include "ascendopt_twin/host/op_def.h"

#endif
