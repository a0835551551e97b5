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
    // Defined in runtime/host_api.cpp, as every host member that uses a standard container (host.h says why).
    explicit Shape(const std::vector<int64_t> &dims);
    size_t GetDimNum() const;
    int64_t GetDim(size_t idx) const;
    void SetDim(size_t idx, int64_t value);
    std::vector<int64_t> GetDims() const;
    int64_t GetShapeSize() const;

private:
    std::vector<int64_t> dims_;
};
}  // namespace ge
#endif
