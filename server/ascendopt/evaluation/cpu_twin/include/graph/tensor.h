// AscendOptimizer CPU twin: ge::Shape (CANN's graph/tensor.h), the shape type the host-side tiling APIs take.
#ifndef ASCENDOPT_TWIN_GRAPH_TENSOR_H
#define ASCENDOPT_TWIN_GRAPH_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge {
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t> &dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    void SetDim(size_t idx, int64_t value)
    {
        if (idx < dims_.size()) dims_[idx] = value;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    // Product of the dims; 0 for a shape with no dims (CANN: an empty shape has no elements).
    int64_t GetShapeSize() const
    {
        if (dims_.empty()) return 0;
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }

private:
    std::vector<int64_t> dims_;
};
}  // namespace ge
#endif
