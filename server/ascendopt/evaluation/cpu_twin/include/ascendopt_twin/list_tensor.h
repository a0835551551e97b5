// AscendOptimizer CPU twin: list tensors (kernel_operator_list_tensor_intf.h): ListTensorDesc, TensorDesc.
//
// What a kernel receives for a list of tensors (an OpDef DYNAMIC input, or a list a host program builds, as
// the official AddN sample's main.cpp does) is a GM pointer to one block of 64-bit words:
//   word 0                 the byte offset, from the block's start, of the data pointers below
//   per tensor i           one word: dim (low 32 bits) | index (high 32 bits), then dim words of shape
//   at that offset         one data pointer per tensor, in order
// The twin's runner lays a DYNAMIC input out this way; ListTensorDesc parses it.
#ifndef ASCENDOPT_TWIN_LIST_TENSOR_H
#define ASCENDOPT_TWIN_LIST_TENSOR_H

#include <cstdint>

#include "ascendopt_twin/rt.h"
#include "ascendopt_twin/tensor.h"

namespace AscendC {

template <class T> class TensorDesc {
public:
    TensorDesc() = default;
    ~TensorDesc() = default;
    // GetDesc writes the shape here (the caller provides room for every dim).
    void SetShapeAddr(uint64_t *shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset) { return shape_ != nullptr && offset < dim_ ? shape_[offset] : 0; }
    T *GetDataPtr() { return data_; }
    GlobalTensor<T> GetDataObj()
    {
        uint64_t n = 1;
        for (uint64_t i = 0; i < dim_ && shape_ != nullptr; ++i) n *= shape_[i];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(data_, n);
        return g;
    }

private:
    friend class ListTensorDesc;  // GetDesc fills them in
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    uint64_t *shape_ = nullptr;
    T *data_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
                   ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        Init(data, length, shapeSize, loc);
    }
    // Parses the block; length (bytes) and shapeSize (pointer count) only check it, as the docs say.
    void Init(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
              ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        using ascendopt_twin::rt::Report;
        words_ = static_cast<__gm__ uint64_t *>(data);
        count_ = 0;
        if (words_ == nullptr) {
            Report("bad_list_tensor", true, loc.file, loc.line, "ListTensorDesc: the list pointer is null");
            return;
        }
        const uint64_t ptrOffset = words_[0];
        if (ptrOffset < 8 || ptrOffset % 8 != 0 || ptrOffset > (1u << 20)) {
            Report("bad_list_tensor", true, loc.file, loc.line,
                   "ListTensorDesc: the first word (the byte offset of the data pointers) is %llu, not a multiple of 8 "
                   "past the header", static_cast<unsigned long long>(ptrOffset));
            return;
        }
        // Walk the per-tensor descriptions up to the data pointers: one per tensor.
        const uint64_t end = ptrOffset / 8;
        uint64_t w = 1;
        while (w < end && count_ < kMaxTensors) {
            const uint64_t dim = words_[w] & 0xffffffffu;
            if (w + 1 + dim > end) {
                Report("bad_list_tensor", true, loc.file, loc.line,
                       "ListTensorDesc: tensor %u claims %llu dims, past the data pointers at byte %llu", count_,
                       static_cast<unsigned long long>(dim), static_cast<unsigned long long>(ptrOffset));
                break;
            }
            desc_[count_++] = w;
            w += 1 + dim;
        }
        ptrs_ = words_ + end;
        if (length != 0xffffffffu && length != ptrOffset + 8ull * count_)
            Report("bad_list_tensor", true, loc.file, loc.line,
                   "ListTensorDesc: length %u B does not match the block (%llu B: %u tensor(s))", length,
                   static_cast<unsigned long long>(ptrOffset + 8ull * count_), count_);
        if (shapeSize != 0xffffffffu && shapeSize != count_)
            Report("bad_list_tensor", true, loc.file, loc.line,
                   "ListTensorDesc: shapeSize %u, but the block holds %u data pointer(s)", shapeSize, count_);
    }
    template <class T> void GetDesc(TensorDesc<T> &desc, uint32_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        if (!InRange(index, loc, "GetDesc")) return;
        if (desc.shape_ == nullptr) {
            ascendopt_twin::rt::Report("bad_list_tensor", true, loc.file, loc.line,
                                       "ListTensorDesc::GetDesc: call TensorDesc::SetShapeAddr first (the docs require it)");
            return;
        }
        const uint64_t head = words_[desc_[index]];
        desc.dim_ = head & 0xffffffffu;
        desc.index_ = head >> 32;
        for (uint64_t i = 0; i < desc.dim_; ++i) desc.shape_[i] = words_[desc_[index] + 1 + i];
        desc.data_ = reinterpret_cast<T *>(ptrs_[index]);
    }
    template <class T> __gm__ T *GetDataPtr(uint32_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        return InRange(index, loc, "GetDataPtr") ? reinterpret_cast<__gm__ T *>(ptrs_[index]) : nullptr;
    }
    uint32_t GetSize() { return count_; }

private:
    static constexpr uint32_t kMaxTensors = 1024;
    bool InRange(uint32_t index, const ascendopt_twin::Loc &loc, const char *what)
    {
        if (index < count_) return true;
        ascendopt_twin::rt::Report("bad_list_tensor", true, loc.file, loc.line, "ListTensorDesc::%s(%u): the list holds %u tensor(s)",
                                   what, index, count_);
        return false;
    }
    __gm__ uint64_t *words_ = nullptr;
    __gm__ uint64_t *ptrs_ = nullptr;
    uint64_t desc_[kMaxTensors] = {};  // word offset of each tensor's description
    uint32_t count_ = 0;
};

}  // namespace AscendC
#endif
