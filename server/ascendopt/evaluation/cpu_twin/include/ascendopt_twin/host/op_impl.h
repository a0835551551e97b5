// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): the op implementation registry (IMPL_OP: tiling, infer-shape, tiling-parse functions).
#ifndef ASCENDOPT_TWIN_HOST_OP_IMPL_H
#define ASCENDOPT_TWIN_HOST_OP_IMPL_H

#include "ascendopt_twin/host/gert_context.h"

namespace gert {
// TilingParse<T>(fn) of an op: how to make its compile-info object and the function that fills it.
void RegisterTilingParse(const char *opType, void *(*make)(), TilingParseFunc fn);

class OpImplRegisterV2 {
public:
    using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
    using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
    using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);
    using TilingParseFunc = gert::TilingParseFunc;
    explicit OpImplRegisterV2(const char *opType);  // runtime/host_api.cpp (host.h says why)
    OpImplRegisterV2 &Tiling(TilingKernelFunc fn, size_t maxTilingDataSize = 2048);
    template <typename T> OpImplRegisterV2 &TilingParse(TilingParseFunc fn)
    {
        RegisterTilingParse(opType_.c_str(), []() -> void * { return new T{}; }, fn);
        return *this;
    }
    // Other callables: a captureless lambda of the same signature registers; anything else is accepted unused.
    template <typename T, typename F> OpImplRegisterV2 &TilingParse(F f)
    {
        if constexpr (std::is_convertible<F, TilingParseFunc>::value) return TilingParse<T>(static_cast<TilingParseFunc>(f));
        return *this;
    }
    OpImplRegisterV2 &InferShape(InferShapeKernelFunc fn);
    OpImplRegisterV2 &InferDataType(InferDataTypeKernelFunc fn);
    OpImplRegisterV2 &InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2 &TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2 &PrivateAttr(const char *, int64_t) { return *this; }

private:
    std::string opType_;
};
}  // namespace gert

#define IMPL_OP(op_type) \
    static ::gert::OpImplRegisterV2 ASCENDOPT_TWIN_CAT(ascendopt_twin_impl_, __COUNTER__) = ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)

#endif
