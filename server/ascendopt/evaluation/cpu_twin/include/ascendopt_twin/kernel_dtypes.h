// AscendOptimizer CPU twin: the data type names as preprocessor numbers in kernel code, as CANN's kernel
// headers define them outside host builds, so `#if ORIG_DTYPE_X == DT_FLOAT16` (the build passes
// -DORIG_DTYPE_<NAME>=DT_<TYPE> per tensor) selects per dtype. The numbering is ge::DataType's (host/ge.h).
// CANN's kernel view never holds host code; the twin's does (op_host's tiling header, which may spell
// ge::DT_FLOAT16), so build.py includes this after that header, right before the kernel, and the twin's host
// headers hide these macros around their own use of the names (host/dt_macros_hide.h).
#ifndef ASCENDOPT_TWIN_KERNEL_DTYPES_H
#define ASCENDOPT_TWIN_KERNEL_DTYPES_H

#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_BF16 27
#define DT_UNDEFINED 28
#define DT_INT4 29
#define DT_MAX 44

#endif
