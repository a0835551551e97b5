// AscendOptimizer CPU twin: host-side (op_host) API subset: ge / gert / fe / platform_ascendc / ops.
// Only what msOpGen-style tiling and op-definition code needs; anything else fails to compile on purpose.
#ifndef ASCENDOPT_TWIN_HOST_H
#define ASCENDOPT_TWIN_HOST_H

// One header per API family under host/, each with what it needs; this one brings them all, as before.
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
