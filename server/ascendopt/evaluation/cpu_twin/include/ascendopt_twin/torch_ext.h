// AscendOptimizer CPU twin: the part of PyTorch, torch_npu and pybind11 a torch extension's launch function
// uses (a sample's pybind11.cpp: at::Tensor, at::empty, sizes(), storage().data(), the NPU stream,
// ACLRT_LAUNCH_KERNEL), so that the function builds against the twin in CPU-debug mode and its launch runs the
// kernel there. A tensor's memory is GM the twin knows (AscendC::GmAlloc). The driver that calls the function
// with a case's tensors is generated (cpu_twin/torch_ext.py) and reads them with ascendopt_twin::torch_ext::Call.
#ifndef ASCENDOPT_TWIN_TORCH_EXT_H
#define ASCENDOPT_TWIN_TORCH_EXT_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tikicpulib.h"

namespace at {

enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

inline size_t elementSize(ScalarType t)
{
    switch (t) {
        case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
        case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: return 2;
        case ScalarType::Int: case ScalarType::Float: return 4;
        default: return 8;
    }
}

struct Device {
    int index = 0;
};

class TensorOptions {
public:
    TensorOptions() = default;
    TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: at::empty(shape, at::kFloat)
    TensorOptions dtype(ScalarType t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
    TensorOptions device(Device) const { return *this; }
    ScalarType dtype() const { return dtype_; }

private:
    ScalarType dtype_ = ScalarType::Float;
};

// A view of sizes: from a vector, a braced list or a tensor's own sizes (copied where it is kept).
class IntArrayRef {
public:
    IntArrayRef(const std::vector<int64_t> &v) : d_(v.data()), n_(v.size()) {}  // NOLINT
    IntArrayRef(std::initializer_list<int64_t> l) : d_(l.begin()), n_(l.size()) {}  // NOLINT
    IntArrayRef(const int64_t *d, size_t n) : d_(d), n_(n) {}
    const int64_t *begin() const { return d_; }
    const int64_t *end() const { return d_ + n_; }
    size_t size() const { return n_; }
    int64_t operator[](size_t i) const { return d_[i]; }
    std::vector<int64_t> vec() const { return std::vector<int64_t>(d_, d_ + n_); }

private:
    const int64_t *d_;
    size_t n_;
};

struct TensorImpl {
    std::vector<int64_t> sizes;
    ScalarType dtype = ScalarType::Float;
    uint8_t *data = nullptr;
    size_t nbytes = 0;
    ~TensorImpl() { if (data) AscendC::GmFree(data); }
};

class Storage {
public:
    explicit Storage(const TensorImpl *impl) : impl_(impl) {}
    const void *data() const { return impl_->data; }
    void *mutable_data() const { return impl_->data; }
    size_t nbytes() const { return impl_->nbytes; }

private:
    const TensorImpl *impl_;
};

class Tensor {
public:
    Tensor() = default;
    explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
    bool defined() const { return impl_ != nullptr; }
    IntArrayRef sizes() const { return IntArrayRef(impl_->sizes); }
    int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
    int64_t size(int64_t d) const { return impl_->sizes.at(static_cast<size_t>(d < 0 ? d + dim() : d)); }
    int64_t numel() const
    {
        int64_t n = 1;
        for (int64_t s : impl_->sizes) n *= s;
        return n;
    }
    ScalarType scalar_type() const { return impl_->dtype; }
    TensorOptions options() const { return TensorOptions(impl_->dtype); }
    Device device() const { return Device(); }
    size_t element_size() const { return elementSize(impl_->dtype); }
    size_t nbytes() const { return impl_->nbytes; }
    Storage storage() const { return Storage(impl_.get()); }
    void *data_ptr() const { return impl_->data; }
    template <typename T> T *data_ptr() const { return reinterpret_cast<T *>(impl_->data); }
    void *mutable_data_ptr() const { return impl_->data; }
    bool is_contiguous() const { return true; }
    Tensor contiguous() const { return *this; }

private:
    std::shared_ptr<TensorImpl> impl_;
};

// Device memory for a tensor: GM the twin registers (its bounds and writes are checked), zero-filled.
inline Tensor empty(IntArrayRef size, TensorOptions options = {})
{
    auto impl = std::make_shared<TensorImpl>();
    impl->sizes = size.vec();
    impl->dtype = options.dtype();
    int64_t n = 1;
    for (int64_t s : impl->sizes) n *= s;
    impl->nbytes = static_cast<size_t>(n) * elementSize(impl->dtype);
    impl->data = static_cast<uint8_t *>(AscendC::GmAlloc(impl->nbytes));
    if (impl->data == nullptr) throw std::runtime_error("out of memory for a tensor");
    return Tensor(std::move(impl));
}
inline Tensor empty_like(const Tensor &t) { return empty(t.sizes(), t.options()); }
inline Tensor empty_like(const Tensor &t, TensorOptions options) { return empty(t.sizes(), options); }
inline Tensor zeros(IntArrayRef size, TensorOptions options = {}) { return empty(size, options); }
inline Tensor zeros_like(const Tensor &t) { return empty_like(t); }

}  // namespace at

namespace torch {
using namespace at;  // NOLINT: torch::Tensor, torch::empty as extensions write them
}
namespace c10 {
using at::IntArrayRef;
using at::ScalarType;
}

namespace c10_npu {
struct NPUStream {
    void *stream(bool = true) const { return nullptr; }
};
inline NPUStream getCurrentNPUStream(int = -1) { return NPUStream(); }
}  // namespace c10_npu

using aclrtStream = void *;

#define TORCH_CHECK(cond, ...) \
    do { if (!(cond)) throw std::runtime_error("TORCH_CHECK(" #cond ") failed"); } while (0)

// The module definition is compiled, never called: Python is not there.
namespace pybind11 {
struct arg {  // `py::arg("x") = 1` in a def
    explicit arg(const char *) {}
    template <typename T> arg &operator=(T &&) { return *this; }
};
struct module_ {
    template <typename... A> module_ &def(A &&...) { return *this; }
    std::string doc_;
    std::string &doc() { return doc_; }
};
}  // namespace pybind11
namespace py = pybind11;
#define PYBIND11_MODULE(name, m) [[maybe_unused]] static void ascendopt_twin_pybind_module_##name(::pybind11::module_ &m)
#define TORCH_EXTENSION_NAME ascendopt_twin_extension

// CANN's build generates aclrtlaunch_<kernel>.h with aclrtlaunch_<kernel>(blockDim, stream, args…); the twin's
// build generates one launching with ICPU_RUN_KF (operators/layouts/torch_extension.py).
#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel

namespace ascendopt_twin {
namespace torch_ext {

// The case the generated driver calls the function with: one line per function parameter, in order —
// `tensor <dtype> <ndim> <dims…> <path>` or `scalar <value>` — then `output <path>` per returned tensor.
class Call {
public:
    explicit Call(const char *path)
    {
        FILE *f = std::fopen(path, "r");
        if (f == nullptr) throw std::runtime_error(std::string("cannot read ") + path);
        char line[4096];
        while (std::fgets(line, sizeof line, f)) lines_.emplace_back(line);
        std::fclose(f);
    }
    at::Tensor Tensor(size_t i) const
    {
        std::istringstream in(Line(i, "tensor"));
        std::string kind, dtype, path;
        size_t ndim = 0;
        in >> kind >> dtype >> ndim;
        std::vector<int64_t> shape(ndim);
        for (int64_t &d : shape) in >> d;
        in >> path;
        at::Tensor t = at::empty(shape, at::TensorOptions(Dtype(dtype)));
        FILE *f = std::fopen(path.c_str(), "rb");
        if (f == nullptr || std::fread(t.data_ptr(), 1, t.nbytes(), f) != t.nbytes())
            throw std::runtime_error("cannot read the input " + path);
        std::fclose(f);
        return t;
    }
    template <typename T> T Scalar(size_t i) const
    {
        std::istringstream in(Line(i, "scalar"));
        std::string kind;
        double v = 0;
        in >> kind >> v;
        return static_cast<T>(v);
    }
    void Outputs(const at::Tensor &t) const { Write(0, t); }
    template <typename... T> void Outputs(const std::tuple<T...> &ts) const
    {
        size_t i = 0;
        std::apply([&](const auto &...t) { (Write(i++, t), ...); }, ts);
    }
    void Outputs(const std::vector<at::Tensor> &ts) const
    {
        for (size_t i = 0; i < ts.size(); ++i) Write(i, ts[i]);
    }

private:
    const std::string &Line(size_t i, const char *kind) const
    {
        if (i >= lines_.size() || lines_[i].rfind(kind, 0) != 0) throw std::runtime_error("bad call file");
        return lines_[i];
    }
    void Write(size_t i, const at::Tensor &t) const
    {
        size_t seen = 0;
        for (const std::string &l : lines_) {
            if (l.rfind("output ", 0) != 0 || seen++ != i) continue;
            std::string path = l.substr(7);
            while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
            FILE *f = std::fopen(path.c_str(), "wb");
            if (f == nullptr || std::fwrite(t.data_ptr(), 1, t.nbytes(), f) != t.nbytes())
                throw std::runtime_error("cannot write the output " + path);
            std::fclose(f);
            return;
        }
    }
    static at::ScalarType Dtype(const std::string &d)
    {
        if (d == "float16") return at::kHalf;
        if (d == "bfloat16") return at::kBFloat16;
        if (d == "float32") return at::kFloat;
        if (d == "float64") return at::kDouble;
        if (d == "int8") return at::kChar;
        if (d == "uint8") return at::kByte;
        if (d == "int16") return at::kShort;
        if (d == "int32") return at::kInt;
        if (d == "int64") return at::kLong;
        if (d == "bool") return at::kBool;
        throw std::runtime_error("dtype " + d + " has no torch stand-in");
    }
    std::vector<std::string> lines_;
};

}  // namespace torch_ext
}  // namespace ascendopt_twin

#endif
