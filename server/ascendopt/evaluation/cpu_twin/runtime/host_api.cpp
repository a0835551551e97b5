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
}  // namespace ge

namespace gert {
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
