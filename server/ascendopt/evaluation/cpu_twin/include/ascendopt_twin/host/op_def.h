// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): ops::OpDef (inputs, outputs, attrs, AI Core config; OP_ADD).
#ifndef ASCENDOPT_TWIN_HOST_OP_DEF_H
#define ASCENDOPT_TWIN_HOST_OP_DEF_H

#include "ascendopt_twin/host/ge.h"
#include "ascendopt_twin/host/ge_operator.h"  // SetCheckSupport takes a function of ge::Operator
#include "ascendopt_twin/host/op_impl.h"  // SetTiling / SetInferShape take its function types

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };

// Members that use a standard container are defined in runtime/host_api.cpp (host.h says why).
class OpParamDef {
public:
    explicit OpParamDef(const char *name);
    OpParamDef &ParamType(Option t) { type_ = t; return *this; }
    OpParamDef &DataType(std::vector<ge::DataType> v);
    OpParamDef &DataTypeList(std::vector<ge::DataType> v);
    OpParamDef &Format(std::vector<ge::Format> v);
    OpParamDef &FormatList(std::vector<ge::Format> v);
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format>);
    OpParamDef &ValueDepend(Option) { return *this; }
    OpParamDef &ValueDepend(Option, DependScope) { return *this; }
    OpParamDef &IgnoreContiguous() { return *this; }
    OpParamDef &AutoContiguous() { return *this; }
    OpParamDef &Scalar() { return *this; }
    OpParamDef &ScalarList() { return *this; }
    OpParamDef &To(ge::DataType) { return *this; }
    OpParamDef &InitValue(uint64_t) { return *this; }
    OpParamDef &Follow(const char *) { return *this; }
    OpParamDef &Follow(const char *, FollowType) { return *this; }
    OpParamDef &OutputShapeDependOnCompute() { return *this; }
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char *name);
    OpAttrDef &AttrType(Option t) { type_ = t; return *this; }
    OpAttrDef &Bool(bool v) { kind_ = 2; b_ = v; return *this; }
    OpAttrDef &Bool() { kind_ = 2; return *this; }
    OpAttrDef &Float(float v) { kind_ = 0; f_ = v; return *this; }
    OpAttrDef &Float() { kind_ = 0; return *this; }
    OpAttrDef &Int(int64_t v) { kind_ = 1; i_ = v; return *this; }
    OpAttrDef &Int() { kind_ = 1; return *this; }
    OpAttrDef &String(const char *v);
    OpAttrDef &String() { kind_ = 3; return *this; }
    OpAttrDef &ListInt(std::vector<int64_t> v);
    OpAttrDef &ListInt() { kind_ = 4; return *this; }
    OpAttrDef &ListFloat(std::vector<float> v);
    OpAttrDef &ListFloat() { kind_ = 5; return *this; }
    OpAttrDef &Comment(const char *) { return *this; }
    std::string name_;
    Option type_ = OPTIONAL;
    int kind_ = 0;
    float f_ = 0.0f;
    int64_t i_ = 0;
    bool b_ = false;
    std::string s_;
    std::vector<int64_t> li_;
    std::vector<float> lf_;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char *);
    OpParamDef &Input(const char *name);
    OpParamDef &Output(const char *name);
    OpAICoreConfig &DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig &DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig &DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig &DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig &NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig &PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig &ExtendCfgInfo(const char *, const char *) { return *this; }
    std::vector<OpParamDef *> params_;
};

class OpAICoreDef {
public:
    OpAICoreDef &SetTiling(gert::OpImplRegisterV2::TilingKernelFunc fn) { tiling_ = fn; return *this; }
    // Registered, never called (host/ge_operator.h says why).
    OpAICoreDef &SetCheckSupport(ge::graphStatus (*)(const ge::Operator &, ge::AscendString &)) { return *this; }
    template <typename F> OpAICoreDef &SetOpSelectFormat(F) { return *this; }
    template <typename F> OpAICoreDef &SetOpSupportInfo(F) { return *this; }
    OpAICoreDef &AddConfig(const char *soc);
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &);
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    std::vector<std::string> socs_;
};

class OpDef {
public:
    explicit OpDef(const char *type);
    virtual ~OpDef();
    OpParamDef &Input(const char *name);
    OpParamDef &Output(const char *name);
    OpAttrDef &Attr(const char *name);
    OpDef &SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc fn) { inferShape_ = fn; return *this; }
    OpDef &SetInferShapeRange(ge::graphStatus (*)(void *)) { return *this; }
    OpDef &SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc fn) { inferDataType_ = fn; return *this; }
    OpAICoreDef &AICore() { return aicore_; }
    OpDef &Comment(const char *) { return *this; }
    OpDef &EnableFallBack() { return *this; }

    std::string type_;
    std::vector<OpParamDef *> inputs_, outputs_;
    std::vector<OpAttrDef *> attrs_;
    gert::OpImplRegisterV2::InferShapeKernelFunc inferShape_ = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType_ = nullptr;
    OpAICoreDef aicore_;
};
}  // namespace ops

#define OP_ADD(op_type, ...) static op_type ascendopt_twin_opdef_##op_type(#op_type)

#endif
