// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): ge (graph status, data types, formats).
#ifndef ASCENDOPT_TWIN_HOST_GE_H
#define ASCENDOPT_TWIN_HOST_GE_H
#include "ascendopt_twin/host/dt_macros_hide.h"

#include "ascendopt_twin/host/common.h"

namespace ge {
// graph/types.h's character type (node names: GetNodeName() returns const char_t *).
using char_t = char;
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;
// A check-support function's "cannot tell" (graph/ge_error_codes.h).
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304;
// GE's API status codes (ge_api_error_codes.h), which CANN's register headers bring into host code:
// tiling programs compare helpers' results against `SUCCESS` under `using namespace ge`.
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 1;
constexpr Status PARAM_INVALID = 2;

enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_MAX = 44,
};

enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_NDHWC = 27,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30,
    FORMAT_RESERVED = 40,
};

int GetSizeByDataType(DataType dt);
// The primary format of a (possibly sub-formatted) format value: its low byte.
inline int32_t GetPrimaryFormat(int32_t format) { return format & 0xff; }
}  // namespace ge

#include "ascendopt_twin/host/dt_macros_show.h"
#endif
