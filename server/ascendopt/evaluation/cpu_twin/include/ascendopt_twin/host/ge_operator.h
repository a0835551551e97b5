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
// Members that use a standard container are defined in runtime/host_api.cpp (host.h says why).
class AscendString {
public:
    AscendString() = default;
    AscendString(const char *s);  // NOLINT: implicit, as CANN's
    const char *GetString() const;
    size_t GetLength() const;
    bool operator<(const AscendString &o) const;
    bool operator==(const AscendString &o) const;

private:
    std::string s_;
};

class TensorDesc {
public:
    TensorDesc() = default;
    TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT);
    Shape GetShape() const;
    void SetShape(const Shape &s);
    Shape GetOriginShape() const;
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
    Operator(const char *name, const char *type);
    graphStatus GetName(AscendString &name) const;
    graphStatus GetOpType(AscendString &type) const;
    TensorDesc GetInputDescByName(const char *name) const;
    TensorDesc GetOutputDescByName(const char *name) const;
    graphStatus UpdateInputDesc(const char *name, const TensorDesc &d);
    graphStatus UpdateOutputDesc(const char *name, const TensorDesc &d);
    Operator &SetAttr(const char *name, int64_t v);
    Operator &SetAttr(const char *name, float v);
    Operator &SetAttr(const char *name, bool v);
    graphStatus GetAttr(const char *name, int64_t &v) const;
    graphStatus GetAttr(const char *name, int32_t &v) const;
    graphStatus GetAttr(const char *name, float &v) const;
    graphStatus GetAttr(const char *name, bool &v) const;

private:
    static TensorDesc Find(const std::map<std::string, TensorDesc> &m, const char *name);
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
