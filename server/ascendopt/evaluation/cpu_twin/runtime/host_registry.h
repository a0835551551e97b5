// AscendOptimizer CPU twin: registry of op definitions / tiling functions filled by static initialisers in op_host code.
#ifndef ASCENDOPT_TWIN_HOST_REGISTRY_H
#define ASCENDOPT_TWIN_HOST_REGISTRY_H

#include <map>
#include <string>

#include "ascendopt_twin/host.h"

namespace ascendopt_twin {
namespace host {
struct OpRecord {
    ops::OpDef *def = nullptr;
    gert::OpImplRegisterV2::TilingKernelFunc tiling = nullptr;          // IMPL_OP_OPTILING(...).Tiling(...)
    gert::OpImplRegisterV2::InferShapeKernelFunc inferShape = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType = nullptr;
    void *(*makeCompileInfo)() = nullptr;                               // .TilingParse<T>(...)
    gert::TilingParseFunc tilingParse = nullptr;
};
std::map<std::string, OpRecord> &Ops();
struct TilingClass {
    std::string className;
    size_t size = 0;
};
std::map<std::string, TilingClass> &TilingClasses();
fe::PlatFormInfos &Platform();
}  // namespace host
}  // namespace ascendopt_twin
#endif
