// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): the gert contexts a tiling, infer-shape or tiling-parse function gets.
#ifndef ASCENDOPT_TWIN_HOST_GERT_CONTEXT_H
#define ASCENDOPT_TWIN_HOST_GERT_CONTEXT_H
#include "ascendopt_twin/host/dt_macros_hide.h"

#include "ascendopt_twin/host/fe.h"
#include "ascendopt_twin/host/gert_tensor.h"

namespace gert {
// IR inputs vs instances: the contexts index inputs by instance (GetInputShape(i): the i-th tensor the node
// has), while GetDynamicInput*(irIndex, relativeIndex) / GetOptionalInput*(irIndex) name an OpDef input and,
// for a DYNAMIC one, a tensor of its list. `instances` holds each instance's IR input name, in order (a list's
// tensors share one); `ir` the OpDef's input names (empty: the instances' names in first-seen order).
// Members and functions that use a standard container are defined in runtime/host_api.cpp (host.h says why).
namespace host_detail {
const char *IrName(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex);
// The instance index of tensor `relative` of IR input `irIndex`; false when it has no such tensor.
bool IrInstance(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex,
                size_t relative, size_t &out);
template <typename T> const T *AtIr(const std::vector<T> &v, const std::vector<std::string> &ir,
                                    const std::vector<std::string> &instances, size_t irIndex, size_t relative)
{
    size_t i = 0;
    return IrInstance(ir, instances, irIndex, relative, i) && i < v.size() ? &v[i] : nullptr;
}
}  // namespace host_detail

// Where one IR input's tensors sit among the node's instances: the first one's index and how many.
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(size_t start, size_t num) : start_(start), num_(num) {}
    size_t GetInstanceStart() const { return start_; }
    size_t GetInstanceNum() const { return num_; }

private:
    size_t start_ = 0, num_ = 0;
};

// What a tiling function learns about its node: name, type, input and output counts, and per IR input
// its instances (a DYNAMIC input's list length; 0 for an optional input left out).
class ComputeNodeInfo {
public:
    ComputeNodeInfo() = default;
    ComputeNodeInfo(const char *name, size_t in, size_t out, std::vector<AnchorInstanceInfo> anchors = {});
    const char *GetNodeName() const { return name_; }
    const char *GetNodeType() const { return name_; }
    size_t GetInputsNum() const { return in_; }
    size_t GetOutputsNum() const { return out_; }
    const AnchorInstanceInfo *GetInputInstanceInfo(size_t irIndex) const;

private:
    const char *name_ = "";
    size_t in_ = 0, out_ = 0;
    std::vector<AnchorInstanceInfo> anchors_;
};

// CANN's common base of the tiling, infer-shape and infer-datatype contexts (extended_kernel_context.h): what every
// kernel context says about its compute node. Op hosts reinterpret_cast their context to it (ScatterList's
// InferShape reads GetComputeNodeOutputNum); here each context answers from its own fields, so the calls are virtual
// (the base subobject sits at offset 0 of every context, as the cast needs).
class ExtendedKernelContext {
public:
    virtual ~ExtendedKernelContext() = default;
    virtual size_t GetComputeNodeInputNum() const = 0;
    virtual size_t GetComputeNodeOutputNum() const = 0;
    virtual const CompileTimeTensorDesc *GetInputDesc(size_t index) const = 0;
    virtual const RuntimeAttrs *GetAttrs() const = 0;
    virtual const char *GetNodeName() const = 0;
    virtual const char *GetNodeType() const = 0;
};

class TilingContext : public ExtendedKernelContext {
public:
    const StorageShape *GetInputShape(size_t i) const;
    const StorageShape *GetOutputShape(size_t i) const;
    const StorageShape *GetOptionalInputShape(size_t irIndex) const;
    const StorageShape *GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
    const StorageShape *GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const;
    const CompileTimeTensorDesc *GetDynamicInputDesc(size_t irIndex, size_t relativeIndex) const;
    const Tensor *GetDynamicInputTensor(size_t irIndex, size_t relativeIndex) const;
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const;
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t irIndex) const;
    const CompileTimeTensorDesc *GetRequiredInputDesc(size_t irIndex) const { return GetOptionalInputDesc(irIndex); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const;
    const Tensor *GetInputTensor(size_t i) const;
    const Tensor *GetOptionalInputTensor(size_t irIndex) const;
    const Tensor *GetRequiredInputTensor(size_t irIndex) const { return GetOptionalInputTensor(irIndex); }
    const RuntimeAttrs *GetAttrs() const { return &attrs_; }
    ge::graphStatus SetBlockDim(uint32_t n) { blockDim_ = n; blockDimSet_ = true; return ge::GRAPH_SUCCESS; }
    uint32_t GetBlockDim() const { return blockDim_; }
    ge::graphStatus SetTilingKey(uint64_t k) { tilingKey_ = k; return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const { return tilingKey_; }
    ge::graphStatus SetNeedAtomic(bool a) { needAtomic_ = a; return ge::GRAPH_SUCCESS; }
    bool NeedAtomic() const { return needAtomic_; }
    ge::graphStatus SetScheduleMode(uint32_t m) { scheduleMode_ = m; return ge::GRAPH_SUCCESS; }
    TilingData *GetRawTilingData() { return &raw_; }
    size_t *GetWorkspaceSizes(size_t n);
    size_t GetWorkspaceNum() const;
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    const char *GetNodeName() const;
    const char *GetNodeType() const;
    size_t GetComputeNodeInputNum() const;
    size_t GetComputeNodeOutputNum() const;
    const ComputeNodeInfo *GetComputeNodeInfo() const;
    int32_t GetDeterministic() const { return 0; }
    // What the op's TilingParse<T> function filled in (run by the runner before Tiling, as CANN runs it at op
    // compile time); without a TilingParse, zeroed bytes.
    const void *GetCompileInfo() const
    {
        static const uint64_t zeros[64] = {};
        return compileInfo_ ? compileInfo_ : zeros;
    }
    template <typename T> const T *GetCompileInfo() const
    {
        static T info{};
        return compileInfo_ ? static_cast<const T *>(compileInfo_) : &info;
    }
    template <typename T> T *GetTilingData()
    {
        if (sizeof(T) > raw_.capacity_) return nullptr;
        if (raw_.size_ < sizeof(T)) plainTilingSize_ = sizeof(T) > plainTilingSize_ ? sizeof(T) : plainTilingSize_;
        return reinterpret_cast<T *>(raw_.data_);
    }

    // Twin internals, filled by the runner.
    std::vector<StorageShape> inShapes_, outShapes_;
    std::vector<CompileTimeTensorDesc> inDescs_, outDescs_;
    std::vector<Tensor> inTensors_;
    std::vector<std::string> inNames_, irInputNames_;  // per instance: its IR input's name; the OpDef's inputs
    RuntimeAttrs attrs_;
    uint32_t blockDim_ = 0;
    bool blockDimSet_ = false;
    uint64_t tilingKey_ = 0;
    bool needAtomic_ = false;
    uint32_t scheduleMode_ = 0;
    TilingData raw_;
    std::vector<size_t> workspace_;
    fe::PlatFormInfos *platform_ = nullptr;
    std::string opType_;
    size_t plainTilingSize_ = 0;
    mutable ComputeNodeInfo node_;
    const void *compileInfo_ = nullptr;
};

class InferShapeContext : public ExtendedKernelContext {
public:
    const Shape *GetInputShape(size_t i) const;
    const Shape *GetOptionalInputShape(size_t irIndex) const;
    const Shape *GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
    const Shape *GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const;
    Shape *GetOutputShape(size_t i);
    const RuntimeAttrs *GetAttrs() const { return attrs_; }
    const Tensor *GetInputTensor(size_t) const { return nullptr; }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const;
    // The node's instances: an absent optional input is none of them (AddLayerNorm's InferShape checks 5 or 4).
    size_t GetComputeNodeInputNum() const;
    size_t GetComputeNodeOutputNum() const;
    const char *GetNodeName() const { return "node"; }
    const char *GetNodeType() const { return "node"; }
    std::vector<Shape> in_, out_;
    std::vector<CompileTimeTensorDesc> inDescs_;  // as TilingContext's
    std::vector<std::string> names_, ir_;  // as TilingContext's inNames_, irInputNames_
    const RuntimeAttrs *attrs_ = nullptr;
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    ge::DataType GetInputDataType(size_t i) const;
    ge::DataType GetOptionalInputDataType(size_t irIndex) const;
    ge::DataType GetRequiredInputDataType(size_t irIndex) const { return GetOptionalInputDataType(irIndex); }
    ge::DataType GetDynamicInputDataType(size_t irIndex, size_t relativeIndex) const;
    ge::DataType GetOutputDataType(size_t i) const;
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType d);
    const RuntimeAttrs *GetAttrs() const { return attrs_; }
    const char *GetNodeName() const { return "node"; }
    const char *GetNodeType() const { return "node"; }
    size_t GetComputeNodeInputNum() const;
    size_t GetComputeNodeOutputNum() const;
    const CompileTimeTensorDesc *GetInputDesc(size_t) const { return nullptr; }
    std::vector<ge::DataType> in_, out_;
    std::vector<std::string> names_, ir_;  // as TilingContext's inNames_, irInputNames_
    const RuntimeAttrs *attrs_ = nullptr;
};

class TilingParseContext {
public:
    template <typename T> T *GetCompiledInfo() { return static_cast<T *>(info_); }
    const char *GetNodeName() const { return "TilingParse"; }
    const char *GetNodeType() const { return "TilingParse"; }
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    fe::PlatFormInfos *platform_ = nullptr;
    void *info_ = nullptr;  // a value-initialised compile-info object of the registered type
};
using TilingParseFunc = ge::graphStatus (*)(TilingParseContext *);
}  // namespace gert

#include "ascendopt_twin/host/dt_macros_show.h"
#endif
