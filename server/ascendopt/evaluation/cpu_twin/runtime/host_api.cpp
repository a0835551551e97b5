// AscendOptimizer CPU twin: host-side API implementation (op registry, platform, tiling buffers).
#include <cstdio>
#include <cstring>

#include "host_registry.h"

namespace ascendopt_twin {
namespace host {
std::map<std::string, OpRecord> &Ops()
{
    static std::map<std::string, OpRecord> m;
    return m;
}
std::map<std::string, TilingClass> &TilingClasses()
{
    static std::map<std::string, TilingClass> m;
    return m;
}
fe::PlatFormInfos &Platform()
{
    static fe::PlatFormInfos p;
    return p;
}
}  // namespace host

namespace tiling {
void SaveToBuffer(const void *data, size_t size, void *buf, size_t capacity, const char *name)
{
    if (buf == nullptr) return;
    if (size > capacity) {
        std::fprintf(stderr, "ascendopt-twin: %s::SaveToBuffer: %zu B of tiling data exceed the capacity of %zu B\n", name, size, capacity);
        size = capacity;
    }
    std::memcpy(buf, data, size);
}
// SetDataPtr's bindings: the raw tiling buffer -> the struct that stands for it (CANN's struct then lives in the buffer).
static std::map<void *, std::pair<const void *, size_t>> &DataPtrs()
{
    static std::map<void *, std::pair<const void *, size_t>> m;
    return m;
}
void SetDataPtr(const void *data, size_t size, void *buf)
{
    if (buf != nullptr) DataPtrs()[buf] = {data, size};
}
void FlushDataPtr(void *buf, size_t capacity)
{
    auto it = DataPtrs().find(buf);
    if (it == DataPtrs().end()) return;
    SaveToBuffer(it->second.first, it->second.second, buf, capacity, "SetDataPtr");
    DataPtrs().erase(it);  // the struct may be gone after this (a tiling class deleted at the end of TilingFunc)
}
ClassReg::ClassReg(const char *opType, const char *className, size_t size)
{
    host::TilingClasses()[opType] = host::TilingClass{className, size};
}
}  // namespace tiling
}  // namespace ascendopt_twin

namespace ge {
int GetSizeByDataType(DataType dt)
{
    switch (dt) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return -1;
    }
}

// The host headers' members that use a standard container (host.h says why they are here).
Shape::Shape(const std::vector<int64_t> &dims) : dims_(dims) {}
size_t Shape::GetDimNum() const { return dims_.size(); }
int64_t Shape::GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
void Shape::SetDim(size_t idx, int64_t value)
{
    if (idx < dims_.size()) dims_[idx] = value;
}
std::vector<int64_t> Shape::GetDims() const { return dims_; }
int64_t Shape::GetShapeSize() const
{
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
}

AscendString::AscendString(const char *s) : s_(s ? s : "") {}
const char *AscendString::GetString() const { return s_.c_str(); }
size_t AscendString::GetLength() const { return s_.size(); }
bool AscendString::operator<(const AscendString &o) const { return s_ < o.s_; }
bool AscendString::operator==(const AscendString &o) const { return s_ == o.s_; }

TensorDesc::TensorDesc(Shape shape, Format format, DataType dt) : shape_(std::move(shape)), format_(format), dt_(dt) {}
Shape TensorDesc::GetShape() const { return shape_; }
void TensorDesc::SetShape(const Shape &s) { shape_ = s; }
Shape TensorDesc::GetOriginShape() const { return shape_; }

Operator::Operator(const char *name, const char *type) : name_(name ? name : ""), type_(type ? type : "") {}
graphStatus Operator::GetName(AscendString &name) const
{
    name = AscendString(name_.c_str());
    return GRAPH_SUCCESS;
}
graphStatus Operator::GetOpType(AscendString &type) const
{
    type = AscendString(type_.c_str());
    return GRAPH_SUCCESS;
}
TensorDesc Operator::GetInputDescByName(const char *name) const { return Find(in_, name); }
TensorDesc Operator::GetOutputDescByName(const char *name) const { return Find(out_, name); }
graphStatus Operator::UpdateInputDesc(const char *name, const TensorDesc &d)
{
    in_[name] = d;
    return GRAPH_SUCCESS;
}
graphStatus Operator::UpdateOutputDesc(const char *name, const TensorDesc &d)
{
    out_[name] = d;
    return GRAPH_SUCCESS;
}
Operator &Operator::SetAttr(const char *name, int64_t v)
{
    ints_[name] = v;
    return *this;
}
Operator &Operator::SetAttr(const char *name, float v)
{
    floats_[name] = v;
    return *this;
}
Operator &Operator::SetAttr(const char *name, bool v)
{
    bools_[name] = v;
    return *this;
}
graphStatus Operator::GetAttr(const char *name, int64_t &v) const { return Get(ints_, name, v); }
graphStatus Operator::GetAttr(const char *name, int32_t &v) const
{
    int64_t w = 0;
    graphStatus r = Get(ints_, name, w);
    if (r == GRAPH_SUCCESS) v = static_cast<int32_t>(w);
    return r;
}
graphStatus Operator::GetAttr(const char *name, float &v) const { return Get(floats_, name, v); }
graphStatus Operator::GetAttr(const char *name, bool &v) const { return Get(bools_, name, v); }
TensorDesc Operator::Find(const std::map<std::string, TensorDesc> &m, const char *name)
{
    auto it = m.find(name ? name : "");
    return it == m.end() ? TensorDesc() : it->second;
}
}  // namespace ge

namespace fe {
bool PlatFormInfos::GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const
{
    val.clear();
    if (label == "version" && key == "SoC_version") val = twinSoc;
    else if (label == "version" && key == "Short_SoC_version") val = twinSoc.substr(0, twinSoc.find_first_of("0123456789", 6) + 4);
    else if (label == "AICoreintrinsicDtypeMap" && key == "Intrinsic_mmad") val = "f162f32,s82s32";
    return !val.empty();
}
uint32_t PlatFormInfos::GetCoreNum() const
{
    bool a2 = twinSoc.rfind("Ascend910B", 0) == 0 || twinSoc.rfind("Ascend910_93", 0) == 0;
    return a2 ? twinCoreNumAic : twinCoreNumAiv;
}
}  // namespace fe

namespace gert {
const float *RuntimeAttrs::GetFloat(size_t idx) const { return idx < v_.size() ? &v_[idx].f : nullptr; }
const int64_t *RuntimeAttrs::GetInt(size_t idx) const { return idx < v_.size() ? &v_[idx].i : nullptr; }
const bool *RuntimeAttrs::GetBool(size_t idx) const { return idx < v_.size() ? &v_[idx].b : nullptr; }
const char *RuntimeAttrs::GetStr(size_t idx) const { return idx < v_.size() ? v_[idx].s.c_str() : nullptr; }
const TypedContinuousVector<int64_t> *RuntimeAttrs::GetListInt(size_t idx) const
{
    return idx < v_.size() ? &v_[idx].li : nullptr;
}
size_t RuntimeAttrs::GetAttrNum() const { return v_.size(); }

namespace host_detail {
const char *IrName(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex)
{
    if (!ir.empty()) return irIndex < ir.size() ? ir[irIndex].c_str() : nullptr;
    size_t seen = 0;
    for (size_t i = 0; i < instances.size(); ++i)
        if (i == 0 || instances[i] != instances[i - 1])
            if (seen++ == irIndex) return instances[i].c_str();
    return nullptr;
}
bool IrInstance(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex,
                size_t relative, size_t &out)
{
    const char *name = IrName(ir, instances, irIndex);
    if (name == nullptr) return false;
    for (size_t i = 0; i < instances.size(); ++i)
        if (instances[i] == name) {
            out = i + relative;
            return out < instances.size() && instances[out] == name;
        }
    return false;
}
}  // namespace host_detail

ComputeNodeInfo::ComputeNodeInfo(const char *name, size_t in, size_t out, std::vector<AnchorInstanceInfo> anchors)
    : name_(name), in_(in), out_(out), anchors_(std::move(anchors))
{
}
const AnchorInstanceInfo *ComputeNodeInfo::GetInputInstanceInfo(size_t irIndex) const
{
    return irIndex < anchors_.size() ? &anchors_[irIndex] : nullptr;
}

const StorageShape *TilingContext::GetInputShape(size_t i) const { return i < inShapes_.size() ? &inShapes_[i] : nullptr; }
const StorageShape *TilingContext::GetOutputShape(size_t i) const
{
    return i < outShapes_.size() ? &outShapes_[i] : nullptr;
}
const StorageShape *TilingContext::GetOptionalInputShape(size_t irIndex) const
{
    return host_detail::AtIr(inShapes_, irInputNames_, inNames_, irIndex, 0);
}
const StorageShape *TilingContext::GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const
{
    return host_detail::AtIr(inShapes_, irInputNames_, inNames_, irIndex, relativeIndex);
}
const CompileTimeTensorDesc *TilingContext::GetDynamicInputDesc(size_t irIndex, size_t relativeIndex) const
{
    return host_detail::AtIr(inDescs_, irInputNames_, inNames_, irIndex, relativeIndex);
}
const Tensor *TilingContext::GetDynamicInputTensor(size_t irIndex, size_t relativeIndex) const
{
    return host_detail::AtIr(inTensors_, irInputNames_, inNames_, irIndex, relativeIndex);
}
const CompileTimeTensorDesc *TilingContext::GetInputDesc(size_t i) const
{
    return i < inDescs_.size() ? &inDescs_[i] : nullptr;
}
const CompileTimeTensorDesc *TilingContext::GetOptionalInputDesc(size_t irIndex) const
{
    return host_detail::AtIr(inDescs_, irInputNames_, inNames_, irIndex, 0);
}
const CompileTimeTensorDesc *TilingContext::GetOutputDesc(size_t i) const
{
    return i < outDescs_.size() ? &outDescs_[i] : nullptr;
}
const Tensor *TilingContext::GetInputTensor(size_t i) const { return i < inTensors_.size() ? &inTensors_[i] : nullptr; }
const Tensor *TilingContext::GetOptionalInputTensor(size_t irIndex) const
{
    return host_detail::AtIr(inTensors_, irInputNames_, inNames_, irIndex, 0);
}
size_t *TilingContext::GetWorkspaceSizes(size_t n)
{
    if (workspace_.size() < n) workspace_.resize(n, 0);
    return workspace_.data();
}
size_t TilingContext::GetWorkspaceNum() const { return workspace_.size(); }
const char *TilingContext::GetNodeName() const { return opType_.c_str(); }
const char *TilingContext::GetNodeType() const { return opType_.c_str(); }
size_t TilingContext::GetComputeNodeInputNum() const { return inShapes_.size(); }
size_t TilingContext::GetComputeNodeOutputNum() const { return outShapes_.size(); }
const ComputeNodeInfo *TilingContext::GetComputeNodeInfo() const
{
    // instances come in IR order: each input's start is the count of the ones before it
    std::vector<AnchorInstanceInfo> anchors;
    size_t start = 0;
    for (size_t ir = 0; host_detail::IrName(irInputNames_, inNames_, ir) != nullptr; ++ir) {
        size_t num = 0, at = 0;
        while (host_detail::IrInstance(irInputNames_, inNames_, ir, num, at)) ++num;
        anchors.emplace_back(start, num);
        start += num;
    }
    node_ = ComputeNodeInfo(opType_.c_str(), inShapes_.size(), outShapes_.size(), std::move(anchors));
    return &node_;
}

const Shape *InferShapeContext::GetInputShape(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
const Shape *InferShapeContext::GetOptionalInputShape(size_t irIndex) const
{
    return host_detail::AtIr(in_, ir_, names_, irIndex, 0);
}
const Shape *InferShapeContext::GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const
{
    return host_detail::AtIr(in_, ir_, names_, irIndex, relativeIndex);
}
Shape *InferShapeContext::GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
const CompileTimeTensorDesc *InferShapeContext::GetInputDesc(size_t i) const
{
    return i < inDescs_.size() ? &inDescs_[i] : nullptr;
}
size_t InferShapeContext::GetComputeNodeInputNum() const { return in_.size(); }
size_t InferShapeContext::GetComputeNodeOutputNum() const { return out_.size(); }

ge::DataType InferDataTypeContext::GetInputDataType(size_t i) const { return i < in_.size() ? in_[i] : ge::DT_UNDEFINED; }
ge::DataType InferDataTypeContext::GetOptionalInputDataType(size_t irIndex) const
{
    const ge::DataType *d = host_detail::AtIr(in_, ir_, names_, irIndex, 0);
    return d ? *d : ge::DT_UNDEFINED;
}
ge::DataType InferDataTypeContext::GetDynamicInputDataType(size_t irIndex, size_t relativeIndex) const
{
    const ge::DataType *d = host_detail::AtIr(in_, ir_, names_, irIndex, relativeIndex);
    return d ? *d : ge::DT_UNDEFINED;
}
ge::DataType InferDataTypeContext::GetOutputDataType(size_t i) const
{
    return i < out_.size() ? out_[i] : ge::DT_UNDEFINED;
}
ge::graphStatus InferDataTypeContext::SetOutputDataType(size_t i, ge::DataType d)
{
    if (i >= out_.size()) return ge::GRAPH_FAILED;
    out_[i] = d;
    return ge::GRAPH_SUCCESS;
}
size_t InferDataTypeContext::GetComputeNodeInputNum() const { return in_.size(); }
size_t InferDataTypeContext::GetComputeNodeOutputNum() const { return out_.size(); }

OpImplRegisterV2::OpImplRegisterV2(const char *opType) : opType_(opType) {}
OpImplRegisterV2 &OpImplRegisterV2::Tiling(TilingKernelFunc fn, size_t)
{
    ascendopt_twin::host::Ops()[opType_].tiling = fn;
    return *this;
}
void RegisterTilingParse(const char *opType, void *(*make)(), TilingParseFunc fn)
{
    ascendopt_twin::host::OpRecord &r = ascendopt_twin::host::Ops()[opType];
    r.makeCompileInfo = make;
    r.tilingParse = fn;
}
OpImplRegisterV2 &OpImplRegisterV2::InferShape(InferShapeKernelFunc fn)
{
    ascendopt_twin::host::Ops()[opType_].inferShape = fn;
    return *this;
}
OpImplRegisterV2 &OpImplRegisterV2::InferDataType(InferDataTypeKernelFunc fn)
{
    ascendopt_twin::host::Ops()[opType_].inferDataType = fn;
    return *this;
}
}  // namespace gert

namespace platform_ascendc {
uint32_t PlatformAscendC::GetCoreNumAiv() const { return info_ ? info_->twinCoreNumAiv : 0; }
uint32_t PlatformAscendC::GetCoreNumAic() const { return info_ ? info_->twinCoreNumAic : 0; }
uint32_t PlatformAscendC::GetCoreNum() const { return info_ ? info_->GetCoreNum() : 0; }
uint32_t PlatformAscendC::CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
{
    if (aicCoreNum == 0 || aivCoreNum == 0 || aivCoreNum <= aicCoreNum) return sliceNum;
    uint32_t ratio = aivCoreNum / aicCoreNum;
    return (sliceNum + ratio - 1) / ratio;
}
void PlatformAscendC::GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const
{
    // the platform's own answer (CoreMemType numbers the memories as fe::LocalMemType); the default
    // platform's without one
    const fe::PlatFormInfos defaults;
    const fe::PlatFormInfos &info = info_ ? *info_ : defaults;
    if (memType == CoreMemType::FB || memType == CoreMemType::BT) size = 0;
    else info.GetLocalMemSize(static_cast<fe::LocalMemType>(static_cast<int>(memType)), size);
}
void PlatformAscendC::GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const
{
    bwSize = memType == CoreMemType::HBM ? 1600 : memType == CoreMemType::L2 ? 5400 : 0;  // GB/s, rough 910B figures
}
SocVersion PlatformAscendC::GetSocVersion() const
{
    std::string s = info_ ? info_->twinSoc : std::string();
    if (s.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910_93;
    if (s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
    if (s.rfind("Ascend910", 0) == 0) return SocVersion::ASCEND910;
    if (s.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
    if (s.rfind("Ascend310B", 0) == 0) return SocVersion::ASCEND310B;
    if (s.rfind("Ascend950", 0) == 0) return SocVersion::ASCEND950;
    if (s.rfind("Ascend310", 0) == 0) return SocVersion::ASCEND310;
    return SocVersion::RESERVED_VERSION;
}
// The same table as operators/soc.py's SOCS (the __NPU_ARCH__ a SoC's kernels are compiled with).
NpuArch PlatformAscendC::GetCurNpuArch() const
{
    switch (GetSocVersion()) {
    case SocVersion::ASCEND910B:
    case SocVersion::ASCEND910_93: return NpuArch::DAV_2201;
    case SocVersion::ASCEND310P: return NpuArch::DAV_2002;
    case SocVersion::ASCEND310B: return NpuArch::DAV_3002;
    case SocVersion::ASCEND950: return NpuArch::DAV_3510;
    case SocVersion::ASCEND910: return NpuArch::DAV_1001;
    default: return NpuArch::DAV_RESV;
    }
}
PlatformAscendC *PlatformAscendCManager::GetInstance()
{
    static PlatformAscendC p(&ascendopt_twin::host::Platform());
    return &p;
}
PlatformAscendC *PlatformAscendCManager::GetInstance(const char *) { return GetInstance(); }
}  // namespace platform_ascendc

namespace ops {
OpDef::OpDef(const char *type) : type_(type) { ascendopt_twin::host::Ops()[type_].def = this; }
OpDef::~OpDef() = default;
OpParamDef::OpParamDef(const char *name) : name_(name) {}
OpParamDef &OpParamDef::DataType(std::vector<ge::DataType> v)
{
    dtypes_ = std::move(v);
    return *this;
}
OpParamDef &OpParamDef::DataTypeList(std::vector<ge::DataType> v) { return DataType(std::move(v)); }
OpParamDef &OpParamDef::Format(std::vector<ge::Format> v)
{
    formats_ = std::move(v);
    return *this;
}
OpParamDef &OpParamDef::FormatList(std::vector<ge::Format> v) { return Format(std::move(v)); }
OpParamDef &OpParamDef::UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
OpAttrDef::OpAttrDef(const char *name) : name_(name) {}
OpAttrDef &OpAttrDef::String(const char *v)
{
    kind_ = 3;
    s_ = v;
    return *this;
}
OpAttrDef &OpAttrDef::ListInt(std::vector<int64_t> v)
{
    kind_ = 4;
    li_ = std::move(v);
    return *this;
}
OpAttrDef &OpAttrDef::ListFloat(std::vector<float> v)
{
    kind_ = 5;
    lf_ = std::move(v);
    return *this;
}
OpAICoreConfig::OpAICoreConfig(const char *) {}
OpAICoreDef &OpAICoreDef::AddConfig(const char *soc)
{
    socs_.push_back(soc);
    return *this;
}
OpAICoreDef &OpAICoreDef::AddConfig(const char *soc, OpAICoreConfig &)
{
    socs_.push_back(soc);
    return *this;
}
OpParamDef &OpDef::Input(const char *name)
{
    for (OpParamDef *p : inputs_)
        if (p->name_ == name) return *p;
    inputs_.push_back(new OpParamDef(name));
    return *inputs_.back();
}
OpParamDef &OpDef::Output(const char *name)
{
    for (OpParamDef *p : outputs_)
        if (p->name_ == name) return *p;
    outputs_.push_back(new OpParamDef(name));
    return *outputs_.back();
}
OpAttrDef &OpDef::Attr(const char *name)
{
    for (OpAttrDef *a : attrs_)
        if (a->name_ == name) return *a;
    attrs_.push_back(new OpAttrDef(name));
    return *attrs_.back();
}
OpParamDef &OpAICoreConfig::Input(const char *name)
{
    params_.push_back(new OpParamDef(name));
    return *params_.back();
}
OpParamDef &OpAICoreConfig::Output(const char *name)
{
    params_.push_back(new OpParamDef(name));
    return *params_.back();
}
}  // namespace ops
