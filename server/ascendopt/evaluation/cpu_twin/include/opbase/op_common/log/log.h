// AscendOptimizer CPU twin: the ops-base logging and check macros CANN's open operator repos include as
// "log/log.h" / "op_common/log/log.h" (written from their use in the repos and CANN's logging docs).
// Errors and warnings go to stderr, where the runner shows them when a tiling program fails; info and debug
// logs are printed only with ASCENDOPT_TWIN_LOG=debug (their arguments are not evaluated otherwise).
#ifndef ASCENDOPT_TWIN_OPBASE_LOG_H
#define ASCENDOPT_TWIN_OPBASE_LOG_H

#include <string>
#include <vector>

#include "ascendopt_twin/host.h"
#include "ascendopt_twin/host/log.h"

namespace Ops {
namespace Base {
// A printable C string for a name (nullptr → "nil").
inline const char *GetSafeStr(const char *s) { return s == nullptr ? "nil" : s; }
inline const char *GetSafeStr(const std::string &s) { return s.c_str(); }

// The name a log line carries for an op: a string as it is, a context's node name.
inline const char *GetOpInfo(const char *s) { return s == nullptr ? "nil" : s; }
inline const std::string &GetOpInfo(const std::string &s) { return s; }
template <typename C> inline std::string GetOpInfo(const C *context) { return twin_log::Name(context); }

inline std::string ToString(const gert::Shape &shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.GetDimNum(); ++i) s += (i ? ", " : "") + std::to_string(shape.GetDim(i));
    return s + "]";
}
inline std::string ToString(ge::DataType type) { return "DT(" + std::to_string(static_cast<int>(type)) + ")"; }
inline std::string ToString(ge::Format format) { return "FORMAT(" + std::to_string(static_cast<int>(format)) + ")"; }
inline std::string ToString(const std::vector<const gert::Shape *> &v)
{
    std::string s;
    for (const gert::Shape *p : v) s += (s.empty() ? "" : ", ") + (p ? ToString(*p) : std::string("nil"));
    return s;
}
}  // namespace Base
}  // namespace Ops

#define OP_LOGD(opName, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_DEBUG, opName, __VA_ARGS__)
#define OP_LOGI(opName, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_INFO, opName, __VA_ARGS__)
#define OP_LOGW(opName, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_WARN, opName, __VA_ARGS__)
#define OP_LOGE(opName, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_ERROR, opName, __VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(opName, ...) OP_LOGE(opName, __VA_ARGS__)
#define D_OP_LOGD(opName, ...) OP_LOGD(opName, __VA_ARGS__)
#define D_OP_LOGI(opName, ...) OP_LOGI(opName, __VA_ARGS__)
#define D_OP_LOGW(opName, ...) OP_LOGW(opName, __VA_ARGS__)
#define D_OP_LOGE(opName, ...) OP_LOGE(opName, __VA_ARGS__)
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif

// OP_CHECK_IF(condition, log, return_expr): when the condition holds, log and run return_expr.
#define OP_CHECK_IF(condition, log, return_expr) \
    do {                                         \
        if (unlikely(condition)) {               \
            log;                                 \
            return_expr;                         \
        }                                        \
    } while (0)
// A null pointer fails the tiling (or infer-shape) function with GRAPH_FAILED, naming the pointer.
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                  \
    do {                                                          \
        if ((ptr) == nullptr) {                                   \
            OP_LOGE(context, "%s is nullptr!", #ptr);             \
            return ge::GRAPH_FAILED;                              \
        }                                                         \
    } while (0)

#define ASCENDOPT_TWIN_INVALID(entity, what, ...) ::Ops::Base::twin_log::Invalid(entity, what, __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_SHAPE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid input shape", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_ATTR(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid attr", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_ATTR_SIZE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid attr size", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid input", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_SHAPESIZE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid input shape size", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_FORMAT(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid input format", __VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_DTYPE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid input dtype", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid shape", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid shape", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid shapes", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIM(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dim count", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dim count", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dim counts", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid shape size", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid shape size", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_FORMAT(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid format", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_FORMAT_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid format", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dtype", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dtype", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid dtypes", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid value", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid value", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUES_WITH_REASON(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid values", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_LISTSIZE(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid list size", __VA_ARGS__)
#define OP_LOGE_FOR_INVALID_TENSORNUM(e, ...) ASCENDOPT_TWIN_INVALID(e, "invalid tensor count", __VA_ARGS__)

#endif
