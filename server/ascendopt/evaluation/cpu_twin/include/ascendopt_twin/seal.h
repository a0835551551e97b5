// AscendOptimizer CPU twin: the seal of a kernel build. build.py passes `-include ascendopt_twin/seal.h` ahead of
// every file of the operator (kernel, its headers, the tiling struct CANN would generate), so nothing a candidate
// writes comes before it. It reads every twin header a kernel translation unit may reach, then poisons the
// names of the twin's internals: after it, `ascendopt_twin` and `twin_detail` cannot be written (nor pasted
// together with ##) in the operator's code, so the runtime (rt::UbPtr, g_blk, g_trace_on, …) and the friend
// accessor twin_detail::Access are out of reach; the API classes keep their state private. Macros the headers
// defined before the seal (GET_TILING_DATA, ASCENDC_TPL_*, ICPU_RUN_KF, …) still expand to them, as GCC allows.
// Headers read again later are skipped by their include guards; a `#define private public` in the kernel comes
// after every twin class is parsed.
#ifndef ASCENDOPT_TWIN_SEAL_H
#define ASCENDOPT_TWIN_SEAL_H

#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
#include "kernel_tiling/kernel_tiling.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"
#include "ascendopt_twin/tpl_entry.h"
// The one host-side header with twin internals that an op_host tiling header brings into a kernel build (the
// others, host.h and what includes it, name none).
#include "register/tilingdata_base.h"

#pragma GCC poison ascendopt_twin twin_detail

#endif
