// AscendOptimizer CPU twin: host-side (op_host) API subset: ge / gert / fe / platform_ascendc / ops.
// Only what msOpGen-style tiling and op-definition code needs; anything else fails to compile on purpose.
#ifndef ASCENDOPT_TWIN_HOST_H
#define ASCENDOPT_TWIN_HOST_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>  // CANN's register headers bring it: host code writes std::cout unincluded
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "securec.h"  // CANN's host headers bring securec in with them; host code calls memset_s unannounced

#include "register/tilingdata_base.h"

// ------------------------------------------------------------------ ge
namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;

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

// ------------------------------------------------------------------ fe
namespace fe {
// Platform description handed to tiling functions (opaque on the real CANN; filled from the runner manifest here).
class PlatFormInfos {
public:
    uint32_t twinCoreNumAiv = 40;
    uint32_t twinCoreNumAic = 20;
    uint64_t twinUbSize = 196608;
    std::string twinSoc = "Ascend910B4";
    // The platform ini entries tiling code asks for by (label, key); false (and "") for any other.
    bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const
    {
        val.clear();
        if (label == "version" && key == "SoC_version") val = twinSoc;
        else if (label == "version" && key == "Short_SoC_version") val = twinSoc.substr(0, twinSoc.find_first_of("0123456789", 6) + 4);
        else if (label == "AICoreintrinsicDtypeMap" && key == "Intrinsic_mmad") val = "f162f32,s82s32";
        return !val.empty();
    }
};
}  // namespace fe

// ------------------------------------------------------------------ gert
namespace gert {
class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims)
    {
        for (int64_t d : dims) AppendDim(d);
    }
    size_t GetDimNum() const { return dimNum_; }
    void SetDimNum(size_t n) { dimNum_ = n > kMaxDimNum ? kMaxDimNum : n; }
    int64_t GetDim(size_t i) const { return i < dimNum_ ? dims_[i] : 0; }
    void SetDim(size_t i, int64_t v)
    {
        if (i < kMaxDimNum) dims_[i] = v;
    }
    Shape &AppendDim(int64_t v)
    {
        if (dimNum_ < kMaxDimNum) dims_[dimNum_++] = v;
        return *this;
    }
    int64_t GetShapeSize() const
    {
        int64_t s = 1;
        for (size_t i = 0; i < dimNum_; ++i) s *= dims_[i];
        return s;
    }
    bool IsScalar() const { return dimNum_ == 0; }
    bool operator==(const Shape &o) const
    {
        if (dimNum_ != o.dimNum_) return false;
        for (size_t i = 0; i < dimNum_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape &o) const { return !(*this == o); }
    int64_t operator[](size_t i) const { return GetDim(i); }
    int64_t &operator[](size_t i) { return dims_[i]; }

private:
    int64_t dims_[kMaxDimNum] = {};
    size_t dimNum_ = 0;
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage) : origin_(origin), storage_(storage) {}
    const Shape &GetOriginShape() const { return origin_; }
    const Shape &GetStorageShape() const { return storage_; }
    Shape &MutableOriginShape() { return origin_; }
    Shape &MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape &o) const { return origin_ == o.origin_ && storage_ == o.storage_; }

private:
    Shape origin_;
    Shape storage_;
};

class StorageFormat {
public:
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    ge::Format origin_ = ge::FORMAT_ND, storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return format_; }
    ge::Format GetStorageFormat() const { return format_; }
    StorageFormat GetFormat() const { StorageFormat f; f.origin_ = format_; f.storage_ = format_; return f; }
    void SetDataType(ge::DataType d) { dtype_ = d; }
    ge::DataType dtype_ = ge::DT_FLOAT;
    ge::Format format_ = ge::FORMAT_ND;
};

class Tensor {
public:
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
    const StorageShape &GetShape() const { return shape_; }
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
    ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
    template <typename T> const T *GetData() const { return static_cast<const T *>(data_); }
    const void *GetAddr() const { return data_; }
    size_t GetSize() const { return size_; }
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_FLOAT;
    const void *data_ = nullptr;
    size_t size_ = 0;
};

class RuntimeAttrs {
public:
    struct Value {
        int kind = 0;  // 0 float, 1 int, 2 bool, 3 string, 4 list int, 5 list float
        float f = 0.0f;
        int64_t i = 0;
        bool b = false;
        std::string s;
        std::vector<int64_t> li;
        std::vector<float> lf;
    };
    const float *GetFloat(size_t idx) const { return idx < v_.size() ? &v_[idx].f : nullptr; }
    const int64_t *GetInt(size_t idx) const { return idx < v_.size() ? &v_[idx].i : nullptr; }
    const bool *GetBool(size_t idx) const { return idx < v_.size() ? &v_[idx].b : nullptr; }
    const char *GetStr(size_t idx) const { return idx < v_.size() ? v_[idx].s.c_str() : nullptr; }
    template <typename T> const T *GetAttrPointer(size_t idx) const
    {
        if (idx >= v_.size()) return nullptr;
        if constexpr (std::is_same<T, float>::value) return &v_[idx].f;
        else if constexpr (std::is_same<T, int64_t>::value) return &v_[idx].i;
        else if constexpr (std::is_same<T, bool>::value) return &v_[idx].b;
        else if constexpr (std::is_same<T, char>::value) return v_[idx].s.c_str();
        // An Int attr is stored as int64_t; a narrower integer read (GetAttrPointer<uint32_t>, as the official
        // Broadcast sample does) sees its low bytes, as on CANN (little-endian storage).
        else if constexpr (std::is_integral<T>::value && sizeof(T) < sizeof(int64_t))
            return reinterpret_cast<const T *>(&v_[idx].i);
        else return static_cast<const T *>(UnsupportedAttrType<T>());
    }
    size_t GetAttrNum() const { return v_.size(); }
    std::vector<Value> v_;

private:
    template <typename T> static const void *UnsupportedAttrType()
    {
        static_assert(sizeof(T) == 0, "RuntimeAttrs::GetAttrPointer<T>: type not supported by the CPU twin");
        return nullptr;
    }
};

class TilingData {
public:
    void *GetData() { return data_; }
    const void *GetData() const { return data_; }
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t s) { size_ = s; }
    uint8_t *data_ = nullptr;
    size_t capacity_ = 0;
    size_t size_ = 0;
};

// IR inputs vs instances: the contexts index inputs by instance (GetInputShape(i): the i-th tensor the node
// has), while GetDynamicInput*(irIndex, relativeIndex) / GetOptionalInput*(irIndex) name an OpDef input and,
// for a DYNAMIC one, a tensor of its list. `instances` holds each instance's IR input name, in order (a list's
// tensors share one); `ir` the OpDef's input names (empty: the instances' names in first-seen order).
namespace host_detail {
inline const char *IrName(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex)
{
    if (!ir.empty()) return irIndex < ir.size() ? ir[irIndex].c_str() : nullptr;
    size_t seen = 0;
    for (size_t i = 0; i < instances.size(); ++i)
        if (i == 0 || instances[i] != instances[i - 1])
            if (seen++ == irIndex) return instances[i].c_str();
    return nullptr;
}
// The instance index of tensor `relative` of IR input `irIndex`; false when it has no such tensor.
inline bool IrInstance(const std::vector<std::string> &ir, const std::vector<std::string> &instances, size_t irIndex,
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
template <typename T> const T *AtIr(const std::vector<T> &v, const std::vector<std::string> &ir,
                                    const std::vector<std::string> &instances, size_t irIndex, size_t relative)
{
    size_t i = 0;
    return IrInstance(ir, instances, irIndex, relative, i) && i < v.size() ? &v[i] : nullptr;
}
}  // namespace host_detail

// What a tiling function learns about its node: name, type, input and output counts.
class ComputeNodeInfo {
public:
    ComputeNodeInfo() = default;
    ComputeNodeInfo(const char *name, size_t in, size_t out) : name_(name), in_(in), out_(out) {}
    const char *GetNodeName() const { return name_; }
    const char *GetNodeType() const { return name_; }
    size_t GetInputsNum() const { return in_; }
    size_t GetOutputsNum() const { return out_; }

private:
    const char *name_ = "";
    size_t in_ = 0, out_ = 0;
};

class TilingContext {
public:
    const StorageShape *GetInputShape(size_t i) const { return i < inShapes_.size() ? &inShapes_[i] : nullptr; }
    const StorageShape *GetOutputShape(size_t i) const { return i < outShapes_.size() ? &outShapes_[i] : nullptr; }
    const StorageShape *GetOptionalInputShape(size_t irIndex) const { return host_detail::AtIr(inShapes_, irInputNames_, inNames_, irIndex, 0); }
    const StorageShape *GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
    const StorageShape *GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const
    {
        return host_detail::AtIr(inShapes_, irInputNames_, inNames_, irIndex, relativeIndex);
    }
    const CompileTimeTensorDesc *GetDynamicInputDesc(size_t irIndex, size_t relativeIndex) const
    {
        return host_detail::AtIr(inDescs_, irInputNames_, inNames_, irIndex, relativeIndex);
    }
    const Tensor *GetDynamicInputTensor(size_t irIndex, size_t relativeIndex) const
    {
        return host_detail::AtIr(inTensors_, irInputNames_, inNames_, irIndex, relativeIndex);
    }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return i < inDescs_.size() ? &inDescs_[i] : nullptr; }
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t irIndex) const { return host_detail::AtIr(inDescs_, irInputNames_, inNames_, irIndex, 0); }
    const CompileTimeTensorDesc *GetRequiredInputDesc(size_t irIndex) const { return GetOptionalInputDesc(irIndex); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return i < outDescs_.size() ? &outDescs_[i] : nullptr; }
    const Tensor *GetInputTensor(size_t i) const { return i < inTensors_.size() ? &inTensors_[i] : nullptr; }
    const Tensor *GetOptionalInputTensor(size_t irIndex) const { return host_detail::AtIr(inTensors_, irInputNames_, inNames_, irIndex, 0); }
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
    size_t *GetWorkspaceSizes(size_t n)
    {
        if (workspace_.size() < n) workspace_.resize(n, 0);
        return workspace_.data();
    }
    size_t GetWorkspaceNum() const { return workspace_.size(); }
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    const char *GetNodeName() const { return opType_.c_str(); }
    const char *GetNodeType() const { return opType_.c_str(); }
    size_t GetComputeNodeInputNum() const { return inShapes_.size(); }
    const ComputeNodeInfo *GetComputeNodeInfo() const
    {
        node_ = ComputeNodeInfo(opType_.c_str(), inShapes_.size(), outShapes_.size());
        return &node_;
    }
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

class InferShapeContext {
public:
    const Shape *GetInputShape(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
    const Shape *GetOptionalInputShape(size_t irIndex) const { return host_detail::AtIr(in_, ir_, names_, irIndex, 0); }
    const Shape *GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
    const Shape *GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const
    {
        return host_detail::AtIr(in_, ir_, names_, irIndex, relativeIndex);
    }
    Shape *GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
    const RuntimeAttrs *GetAttrs() const { return attrs_; }
    const Tensor *GetInputTensor(size_t) const { return nullptr; }
    const char *GetNodeName() const { return "node"; }
    const char *GetNodeType() const { return "node"; }
    std::vector<Shape> in_, out_;
    std::vector<std::string> names_, ir_;  // as TilingContext's inNames_, irInputNames_
    const RuntimeAttrs *attrs_ = nullptr;
};

class InferDataTypeContext {
public:
    ge::DataType GetInputDataType(size_t i) const { return i < in_.size() ? in_[i] : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t irIndex) const
    {
        const ge::DataType *d = host_detail::AtIr(in_, ir_, names_, irIndex, 0);
        return d ? *d : ge::DT_UNDEFINED;
    }
    ge::DataType GetRequiredInputDataType(size_t irIndex) const { return GetOptionalInputDataType(irIndex); }
    ge::DataType GetDynamicInputDataType(size_t irIndex, size_t relativeIndex) const
    {
        const ge::DataType *d = host_detail::AtIr(in_, ir_, names_, irIndex, relativeIndex);
        return d ? *d : ge::DT_UNDEFINED;
    }
    ge::DataType GetOutputDataType(size_t i) const { return i < out_.size() ? out_[i] : ge::DT_UNDEFINED; }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType d)
    {
        if (i >= out_.size()) return ge::GRAPH_FAILED;
        out_[i] = d;
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs *GetAttrs() const { return attrs_; }
    const char *GetNodeName() const { return "node"; }
    const char *GetNodeType() const { return "node"; }
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
// TilingParse<T>(fn) of an op: how to make its compile-info object and the function that fills it.
void RegisterTilingParse(const char *opType, void *(*make)(), TilingParseFunc fn);

class OpImplRegisterV2 {
public:
    using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
    using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
    using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);
    using TilingParseFunc = gert::TilingParseFunc;
    explicit OpImplRegisterV2(const char *opType) : opType_(opType) {}
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

// ------------------------------------------------------------------ platform_ascendc
namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND310P,
    ASCEND310B,
    ASCEND950,
    ASCEND910_55,
    ASCEND910_95 = ASCEND950,
    AS31XM1,
    ASCEND031,
    ASCEND035,
    ASCEND310,
    ASCEND610,
    ASCEND610Lite,
    ASCEND910_93,
    BS9SX1A,
    BS9SX2A,
    HI3796CV300CS,
    HI3796CV300ES,
    MC61AM21A,
    MC62,
    SD3403,
    KIRINX90,
    KIRIN9030,
    MC32DM11A,
    ASCEND350,
    RESERVED_VERSION = 99999
};
}  // namespace platform_ascendc
// The AI Core architecture of the platform (platform/soc_spec.h): the SoC's __NPU_ARCH__ number.
enum class NpuArch : uint32_t {
    DAV_1001 = 1001,
    DAV_2002 = 2002,
    DAV_2201 = 2201,
    DAV_3002 = 3002,
    DAV_3003 = 3003,
    DAV_3102 = 3102,
    DAV_3113 = 3113,
    DAV_3510 = 3510,
    DAV_5102 = 5102,
    DAV_RESV = 0xFFFFFFFF,
};
namespace platform_ascendc {
class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos *platformInfo) : info_(platformInfo) {}
    uint32_t GetCoreNum() const;
    uint32_t GetCoreNumAic() const;
    uint32_t GetCoreNumAiv() const;
    uint32_t GetCoreNumVector() const { return 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
    {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }
    void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const;
    void GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const;
    SocVersion GetSocVersion() const;
    NpuArch GetCurNpuArch() const;
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
    fe::PlatFormInfos *GetPlatFormInfo() const { return info_; }

private:
    fe::PlatFormInfos *info_;
};
class PlatformAscendCManager {
public:
    static PlatformAscendC *GetInstance();
    static PlatformAscendC *GetInstance(const char *customSocVersion);
};
}  // namespace platform_ascendc

// ------------------------------------------------------------------ ops (OpDef)
namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };

class OpParamDef {
public:
    explicit OpParamDef(const char *name) : name_(name) {}
    OpParamDef &ParamType(Option t) { type_ = t; return *this; }
    OpParamDef &DataType(std::vector<ge::DataType> v) { dtypes_ = std::move(v); return *this; }
    OpParamDef &DataTypeList(std::vector<ge::DataType> v) { dtypes_ = std::move(v); return *this; }
    OpParamDef &Format(std::vector<ge::Format> v) { formats_ = std::move(v); return *this; }
    OpParamDef &FormatList(std::vector<ge::Format> v) { formats_ = std::move(v); return *this; }
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
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
    explicit OpAttrDef(const char *name) : name_(name) {}
    OpAttrDef &AttrType(Option t) { type_ = t; return *this; }
    OpAttrDef &Bool(bool v) { kind_ = 2; b_ = v; return *this; }
    OpAttrDef &Bool() { kind_ = 2; return *this; }
    OpAttrDef &Float(float v) { kind_ = 0; f_ = v; return *this; }
    OpAttrDef &Float() { kind_ = 0; return *this; }
    OpAttrDef &Int(int64_t v) { kind_ = 1; i_ = v; return *this; }
    OpAttrDef &Int() { kind_ = 1; return *this; }
    OpAttrDef &String(const char *v) { kind_ = 3; s_ = v; return *this; }
    OpAttrDef &String() { kind_ = 3; return *this; }
    OpAttrDef &ListInt(std::vector<int64_t> v) { kind_ = 4; li_ = std::move(v); return *this; }
    OpAttrDef &ListInt() { kind_ = 4; return *this; }
    OpAttrDef &ListFloat(std::vector<float> v) { kind_ = 5; lf_ = std::move(v); return *this; }
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
    explicit OpAICoreConfig(const char *) {}
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
    OpAICoreDef &SetCheckSupport(ge::graphStatus (*)(const void *, void *)) { return *this; }
    template <typename F> OpAICoreDef &SetOpSelectFormat(F) { return *this; }
    template <typename F> OpAICoreDef &SetOpSupportInfo(F) { return *this; }
    OpAICoreDef &AddConfig(const char *soc) { socs_.push_back(soc); return *this; }
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &) { socs_.push_back(soc); return *this; }
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    std::vector<std::string> socs_;
};

class OpDef {
public:
    explicit OpDef(const char *type);
    virtual ~OpDef() = default;
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
