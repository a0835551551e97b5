// AscendOptimizer CPU twin: device-side AscendC API subset (namespace AscendC), compiled with g++ on x86.
// APIs that are not listed here are intentionally absent so that a kernel using them fails to compile.
// One header per official API family (as CANN's kernel_vec_intf.h splits them); the list of what each
// defines is the registry in ascendopt/evaluation/cpu_twin/api.py.
#ifndef ASCENDOPT_TWIN_KERNEL_OPERATOR_H
#define ASCENDOPT_TWIN_KERNEL_OPERATOR_H

// Scalar math (sqrt, exp, …) that the device compiler offers in AI Core code, as the host libm.
#include <cmath>

#include "ascendopt_twin/base.h"
#include "ascendopt_twin/rt.h"
#include "ascendopt_twin/tensor.h"
#include "ascendopt_twin/sys_var.h"
#include "ascendopt_twin/tpipe.h"
#include "ascendopt_twin/datacopy.h"
#include "ascendopt_twin/cube.h"
#include "ascendopt_twin/gm_init.h"
#include "ascendopt_twin/mask.h"
#include "ascendopt_twin/vec_common.h"
#include "ascendopt_twin/vec_binary.h"
#include "ascendopt_twin/vec_binary_scalar.h"
#include "ascendopt_twin/vec_unary.h"
#include "ascendopt_twin/vec_ternary.h"
#include "ascendopt_twin/vec_fused.h"
#include "ascendopt_twin/vec_duplicate.h"
#include "ascendopt_twin/vec_copy.h"
#include "ascendopt_twin/vec_vconv.h"
#include "ascendopt_twin/vec_cmpsel.h"
#include "ascendopt_twin/vec_reduce.h"
#include "ascendopt_twin/vec_brcb.h"
#include "ascendopt_twin/vec_transpose.h"
#include "ascendopt_twin/vec_nchwconv.h"
#include "ascendopt_twin/vec_gather_mask.h"
#include "ascendopt_twin/vec_gather.h"
#include "ascendopt_twin/vec_index.h"
#include "ascendopt_twin/adv_activation.h"
#include "ascendopt_twin/adv_math.h"
#include "ascendopt_twin/adv_broadcast.h"
#include "ascendopt_twin/adv_pad.h"
#include "ascendopt_twin/adv_softmax.h"
#include "ascendopt_twin/adv_reduce.h"
#include "ascendopt_twin/adv_select.h"
#include "ascendopt_twin/cross_core.h"
#include "ascendopt_twin/std_lib.h"
#include "ascendopt_twin/kernel_misc.h"
#include "ascendopt_twin/tiling_kernel.h"
#include "impl/other_soc_impl.h"
#include "impl/other_soc_api.h"

#endif
