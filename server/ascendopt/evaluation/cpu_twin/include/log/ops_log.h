// AscendOptimizer CPU twin: the open operator repos' host log macros (cann-ops `log/ops_log.h`: OPS_LOG_D/I/W/E,
// their _IF forms, OPS_LOG_E_IF_NULL, OPS_CHECK), written from their use in the repos. The first argument names
// the op: a context (its node name), a C string or a std::string. Errors and warnings go to stderr, where the
// runner shows them when a tiling program fails; debug and info only with ASCENDOPT_TWIN_LOG=debug (their
// arguments are not evaluated otherwise). A repository that ships its own log/ops_log.h is searched first.
#ifndef ASCENDOPT_TWIN_LOG_OPS_LOG_H
#define ASCENDOPT_TWIN_LOG_OPS_LOG_H

#include <type_traits>

#include "ascendopt_twin/host/log.h"

#define OPS_LOG_D(OPS_DESC, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_DEBUG, OPS_DESC, __VA_ARGS__)
#define OPS_LOG_I(OPS_DESC, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_INFO, OPS_DESC, __VA_ARGS__)
#define OPS_LOG_W(OPS_DESC, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_WARN, OPS_DESC, __VA_ARGS__)
#define OPS_LOG_E(OPS_DESC, ...) ASCENDOPT_TWIN_OP_LOG(DLOG_ERROR, OPS_DESC, __VA_ARGS__)
#define OPS_LOG_E_WITHOUT_REPORT(OPS_DESC, ...) OPS_LOG_E(OPS_DESC, __VA_ARGS__)
#define OPS_LOG_EVENT(OPS_DESC, ...) OPS_LOG_I(OPS_DESC, __VA_ARGS__)
#define OPS_LOG_FULL(LEVEL, OPS_DESC, ...) ASCENDOPT_TWIN_OP_LOG(LEVEL, OPS_DESC, __VA_ARGS__)
#define OPS_LOG_D_FULL(OPS_DESC, ...) OPS_LOG_D(OPS_DESC, __VA_ARGS__)
#define OPS_LOG_I_FULL(OPS_DESC, ...) OPS_LOG_I(OPS_DESC, __VA_ARGS__)
#define OPS_LOG_W_FULL(OPS_DESC, ...) OPS_LOG_W(OPS_DESC, __VA_ARGS__)

// The repos' conditional form: the condition must be a bool (their headers assert it at compile time).
#define ASCENDOPT_TWIN_OPS_IF(COND, LOG_FUNC, EXPR)                                                            \
    static_assert(std::is_same<bool, std::decay<decltype(COND)>::type>::value, "condition should be bool"); \
    do {                                                                                                    \
        if (__builtin_expect((COND), 0)) {                                                                  \
            LOG_FUNC;                                                                                       \
            EXPR;                                                                                           \
        }                                                                                                   \
    } while (0)
#define OPS_LOG_D_IF(COND, OP_DESC, EXPR, ...) ASCENDOPT_TWIN_OPS_IF(COND, OPS_LOG_D(OP_DESC, __VA_ARGS__), EXPR)
#define OPS_LOG_I_IF(COND, OP_DESC, EXPR, ...) ASCENDOPT_TWIN_OPS_IF(COND, OPS_LOG_I(OP_DESC, __VA_ARGS__), EXPR)
#define OPS_LOG_W_IF(COND, OP_DESC, EXPR, ...) ASCENDOPT_TWIN_OPS_IF(COND, OPS_LOG_W(OP_DESC, __VA_ARGS__), EXPR)
#define OPS_LOG_E_IF(COND, OP_DESC, EXPR, ...) ASCENDOPT_TWIN_OPS_IF(COND, OPS_LOG_E(OP_DESC, __VA_ARGS__), EXPR)
#define OPS_LOG_EVENT_IF(COND, OP_DESC, EXPR, ...) ASCENDOPT_TWIN_OPS_IF(COND, OPS_LOG_I(OP_DESC, __VA_ARGS__), EXPR)

// A null pointer: log its expression and run EXPR (a return, usually).
#define OPS_LOG_E_IF_NULL(OPS_DESC, PTR, EXPR)          \
    if (__builtin_expect((PTR) == nullptr, 0)) {        \
        OPS_LOG_E(OPS_DESC, "%s is nullptr!", #PTR);    \
        EXPR;                                           \
    }
// Any condition (no bool check): log and run EXPR.
#define OPS_CHECK(COND, LOG_FUNC, EXPR) \
    if (COND) {                         \
        LOG_FUNC;                       \
        EXPR;                           \
    }

#endif
