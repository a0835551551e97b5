// AscendOptimizer CPU twin, host side: the one logger behind CANN's host log macros (ops-base's
// op_common/log/log.h OP_LOG*, the open repos' log/ops_log.h OPS_LOG*), kept apart from both so that a
// file including one family can define the other's names itself, as the benchmark's answers do.
// Errors and warnings go to stderr; info and debug only with ASCENDOPT_TWIN_LOG=debug.
#ifndef ASCENDOPT_TWIN_HOST_LOG_H
#define ASCENDOPT_TWIN_HOST_LOG_H

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

#include "base/alog_pub.h"  // the DLOG_* levels

namespace Ops {
namespace Base {
namespace twin_log {
inline bool Enabled(int level)
{
    if (level >= DLOG_WARN) return true;
    const char *v = std::getenv("ASCENDOPT_TWIN_LOG");
    return v != nullptr && std::strcmp(v, "debug") == 0;
}
inline const char *Name(const char *s) { return s == nullptr ? "nil" : s; }
inline const char *Name(const std::string &s) { return s.c_str(); }
template <typename C> inline auto Name(const C *context) -> decltype(context->GetNodeName())
{
    return context == nullptr ? "nil" : context->GetNodeName();
}
template <typename C> inline auto Name(C *context) -> decltype(context->GetNodeName())
{
    return context == nullptr ? "nil" : context->GetNodeName();
}
inline void Log(int level, const char *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
inline void Log(int level, const char *op, const char *fmt, ...)
{
    static const char *const kLevel[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "[%s] %s: %s\n", kLevel[level & 3], op, buf);
}
inline void Log(int level, const char *op) { Log(level, op, "%s", ""); }

inline std::string Text(const char *s) { return s == nullptr ? "nil" : s; }
inline std::string Text(const std::string &s) { return s; }
template <typename T> inline typename std::enable_if<std::is_arithmetic<T>::value, std::string>::type Text(T v)
{
    std::ostringstream o;
    o << +v;
    return o.str();
}
// OP_LOGE_FOR_INVALID_*: "<what>: a, b, c" with each argument as text.
template <typename E, typename... A> inline void Invalid(const E &entity, const char *what, const A &...args)
{
    std::string msg = what;
    const char *sep = ": ";
    for (const std::string &s : {Text(args)...}) {
        msg += sep;
        msg += s;
        sep = ", ";
    }
    Log(DLOG_ERROR, Name(entity), "%s", msg.c_str());
}
}  // namespace twin_log
}  // namespace Base
}  // namespace Ops

// Arguments are evaluated only when the level is enabled.
#define ASCENDOPT_TWIN_OP_LOG(level, opName, ...)                                                   \
    do {                                                                                            \
        if (::Ops::Base::twin_log::Enabled(level))                                                  \
            ::Ops::Base::twin_log::Log(level, ::Ops::Base::twin_log::Name(opName), ##__VA_ARGS__); \
    } while (0)

#endif
