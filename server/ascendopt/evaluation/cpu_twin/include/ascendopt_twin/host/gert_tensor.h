// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): gert shapes, tensors, attrs and tiling data.
#ifndef ASCENDOPT_TWIN_HOST_GERT_TENSOR_H
#define ASCENDOPT_TWIN_HOST_GERT_TENSOR_H
#include "ascendopt_twin/host/dt_macros_hide.h"

#include "ascendopt_twin/host/ge.h"

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

// A list attr's values as GetListInt gives them (CANN's TypedContinuousVector): size and data.
template <typename T> class TypedContinuousVector {
public:
    size_t GetSize() const { return v_.size(); }
    size_t GetCapacity() const { return v_.size(); }
    const T *GetData() const { return v_.data(); }
    std::vector<T> v_;
};

class RuntimeAttrs {
public:
    struct Value {
        int kind = 0;  // 0 float, 1 int, 2 bool, 3 string, 4 list int, 5 list float
        float f = 0.0f;
        int64_t i = 0;
        bool b = false;
        std::string s;
        TypedContinuousVector<int64_t> li;
        std::vector<float> lf;
    };
    // Defined in runtime/host_api.cpp, as every non-template host member that uses a standard container (host.h says why).
    const float *GetFloat(size_t idx) const;
    const int64_t *GetInt(size_t idx) const;
    const bool *GetBool(size_t idx) const;
    const char *GetStr(size_t idx) const;
    const TypedContinuousVector<int64_t> *GetListInt(size_t idx) const;
    template <typename T> const T *GetAttrPointer(size_t idx) const
    {
        if (idx >= v_.size()) return nullptr;
        if constexpr (std::is_same<T, float>::value) return &v_[idx].f;
        else if constexpr (std::is_same<T, int64_t>::value) return &v_[idx].i;
        else if constexpr (std::is_same<T, bool>::value) return &v_[idx].b;
        else if constexpr (std::is_same<T, char>::value) return v_[idx].s.c_str();
        // An Int attr is stored as int64_t; another integer read sees its bytes, as on CANN (little-endian
        // storage): a narrower one (GetAttrPointer<uint32_t>, the official Broadcast sample) its low bytes,
        // uint64_t (ApplyFusedEmaAdam's `mode`) all of them.
        else if constexpr (std::is_integral<T>::value && sizeof(T) <= sizeof(int64_t))
            return reinterpret_cast<const T *>(&v_[idx].i);
        else return static_cast<const T *>(UnsupportedAttrType<T>());
    }
    size_t GetAttrNum() const;
    std::vector<Value> v_;

private:
    template <typename T> static const void *UnsupportedAttrType()
    {
        static_assert(sizeof(T) == 0, "RuntimeAttrs::GetAttrPointer<T>: type not supported by the CPU twin");
        return nullptr;
    }
};

}  // namespace gert
namespace ascendopt_twin {
namespace tiling {
void FlushDataPtr(void *buf, size_t capacity);  // runtime/host_api.cpp: a SetDataPtr struct into its buffer
}  // namespace tiling
}  // namespace ascendopt_twin
namespace gert {
class TilingData {
public:
    void *GetData() { return data_; }
    const void *GetData() const { return data_; }
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t s)
    {
        ascendopt_twin::tiling::FlushDataPtr(data_, capacity_);
        size_ = s;
    }
    uint8_t *data_ = nullptr;
    size_t capacity_ = 0;
    size_t size_ = 0;
};
}  // namespace gert

#include "ascendopt_twin/host/dt_macros_show.h"
#endif
