// AscendOptimizer CPU twin: ge::TypeUtils, the names of data types and formats host code logs.
#ifndef ASCENDOPT_TWIN_GRAPH_UTILS_TYPE_UTILS_H
#define ASCENDOPT_TWIN_GRAPH_UTILS_TYPE_UTILS_H
#include "ascendopt_twin/host/dt_macros_hide.h"
#include <cstdint>
#include <string>

#include "ascendopt_twin/host.h"

namespace ge {
class TypeUtils {
public:
    // The element size in bytes; false (length untouched) for a type without one (DT_UNDEFINED).
    static bool GetDataTypeLength(DataType t, uint32_t &length)
    {
        const int size = GetSizeByDataType(t);
        if (size <= 0) {
            return false;
        }
        length = static_cast<uint32_t>(size);
        return true;
    }
    static std::string DataTypeToSerialString(DataType t)
    {
        switch (t) {
        case DT_FLOAT: return "DT_FLOAT";
        case DT_FLOAT16: return "DT_FLOAT16";
        case DT_BF16: return "DT_BF16";
        case DT_INT8: return "DT_INT8";
        case DT_UINT8: return "DT_UINT8";
        case DT_INT16: return "DT_INT16";
        case DT_UINT16: return "DT_UINT16";
        case DT_INT32: return "DT_INT32";
        case DT_UINT32: return "DT_UINT32";
        case DT_INT64: return "DT_INT64";
        case DT_UINT64: return "DT_UINT64";
        case DT_DOUBLE: return "DT_DOUBLE";
        case DT_BOOL: return "DT_BOOL";
        default: return "DT_UNDEFINED";
        }
    }
    static std::string FormatToSerialString(Format f)
    {
        switch (f) {
        case FORMAT_NCHW: return "NCHW";
        case FORMAT_NHWC: return "NHWC";
        case FORMAT_ND: return "ND";
        case FORMAT_NC1HWC0: return "NC1HWC0";
        case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
        case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
        default: return "RESERVED";
        }
    }
};
}  // namespace ge
#include "ascendopt_twin/host/dt_macros_show.h"
#endif
