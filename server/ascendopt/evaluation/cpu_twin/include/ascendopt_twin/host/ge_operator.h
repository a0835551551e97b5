// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): the graph-level operator view CANN hands an op's
// check-support function (graph/operator.h, graph/tensor.h, graph/ascend_string.h): ge::Operator, ge::TensorDesc,
// ge::AscendString. GE calls that function when it selects kernels for a graph; a single op launched through its
// aclnn front end (the twin's case) never reaches it, so the twin registers it and does not call it.
#ifndef ASCENDOPT_TWIN_HOST_GE_OPERATOR_H
#define ASCENDOPT_TWIN_HOST_GE_OPERATOR_H
#include "ascendopt_twin/host/dt_macros_hide.h"

#include <map>
#include <string>

#include "ascendopt_twin/host/ge.h"
#include "graph/tensor.h"

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char *s) : s_(s ? s : "") {}  // NOLINT: implicit, as CANN's
    const char *GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString &o) const { return s_ < o.s_; }
    bool operator==(const AscendString &o) const { return s_ == o.s_; }

private:
    std::string s_;
};

class TensorDesc {
public:
    TensorDesc() = default;
    TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT) : shape_(std::move(shape)), format_(format), dt_(dt) {}
    Shape GetShape() const { return shape_; }
    void SetShape(const Shape &s) { shape_ = s; }
    Shape GetOriginShape() const { return shape_; }
    DataType GetDataType() const { return dt_; }
    void SetDataType(DataType dt) { dt_ = dt; }
    Format GetFormat() const { return format_; }
    void SetFormat(Format f) { format_ = f; }

private:
    Shape shape_;
    Format format_ = FORMAT_ND;
    DataType dt_ = DT_UNDEFINED;
};

// Tensors and attributes by name. A name the operator does not have gives an empty TensorDesc (CANN logs and
// returns one) and GetAttr GRAPH_FAILED.
class Operator {
public:
    Operator() = default;
    Operator(const char *name, const char *type) : name_(name ? name : ""), type_(type ? type : "") {}
    graphStatus GetName(AscendString &name) const { name = AscendString(name_.c_str()); return GRAPH_SUCCESS; }
    graphStatus GetOpType(AscendString &type) const { type = AscendString(type_.c_str()); return GRAPH_SUCCESS; }
    TensorDesc GetInputDescByName(const char *name) const { return Find(in_, name); }
    TensorDesc GetOutputDescByName(const char *name) const { return Find(out_, name); }
    graphStatus UpdateInputDesc(const char *name, const TensorDesc &d) { in_[name] = d; return GRAPH_SUCCESS; }
    graphStatus UpdateOutputDesc(const char *name, const TensorDesc &d) { out_[name] = d; return GRAPH_SUCCESS; }
    Operator &SetAttr(const char *name, int64_t v) { ints_[name] = v; return *this; }
    Operator &SetAttr(const char *name, float v) { floats_[name] = v; return *this; }
    Operator &SetAttr(const char *name, bool v) { bools_[name] = v; return *this; }
    graphStatus GetAttr(const char *name, int64_t &v) const { return Get(ints_, name, v); }
    graphStatus GetAttr(const char *name, int32_t &v) const
    {
        int64_t w = 0;
        graphStatus r = Get(ints_, name, w);
        if (r == GRAPH_SUCCESS) v = static_cast<int32_t>(w);
        return r;
    }
    graphStatus GetAttr(const char *name, float &v) const { return Get(floats_, name, v); }
    graphStatus GetAttr(const char *name, bool &v) const { return Get(bools_, name, v); }

private:
    static TensorDesc Find(const std::map<std::string, TensorDesc> &m, const char *name)
    {
        auto it = m.find(name ? name : "");
        return it == m.end() ? TensorDesc() : it->second;
    }
    template <typename V> static graphStatus Get(const std::map<std::string, V> &m, const char *name, V &v)
    {
        auto it = m.find(name ? name : "");
        if (it == m.end()) return GRAPH_FAILED;
        v = it->second;
        return GRAPH_SUCCESS;
    }
    std::string name_, type_;
    std::map<std::string, TensorDesc> in_, out_;
    std::map<std::string, int64_t> ints_;
    std::map<std::string, float> floats_;
    std::map<std::string, bool> bools_;
};
}  // namespace ge

#include "ascendopt_twin/host/dt_macros_show.h"
#endif
