// AscendOptimizer CPU twin: the operator's own tiling struct for GET_TILING_DATA. The kernel build includes this
// after ascendopt_twin/seal.h (build.py: KERNEL_OP_TILING), outside the precompiled header that every operator
// shares, since it tests -DASCENDOPT_OP_TYPE; it names none of the twin's sealed internals.
#ifndef ASCENDOPT_TWIN_TILING_OP_H
#define ASCENDOPT_TWIN_TILING_OP_H

#ifdef ASCENDOPT_OP_TYPE
#undef ASCENDOPT_TWIN_KERNEL_TILING_TYPE
#define ASCENDOPT_TWIN_KERNEL_TILING_TYPE ASCENDOPT_TWIN_OP_TILING_TYPE(ASCENDOPT_OP_TYPE)
#endif

#endif
