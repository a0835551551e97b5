// AscendOptimizer CPU twin: CANN's device-log API (dlog / alog), as host code reaches it through a
// repository's log headers (cann-ops `log/inner/dfx_base.h`). Levels and the call shapes follow the
// documented dlog interface; a record is printed to stderr at WARN and above (the twin has no log
// daemon), so a tiling program's error message reaches the run's output.
#ifndef ASCENDOPT_TWIN_BASE_ALOG_PUB_H
#define ASCENDOPT_TWIN_BASE_ALOG_PUB_H
#include <cstdarg>
#include <cstdio>

#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#define DLOG_NULL 4
#define DLOG_EVENT 0x10
#define DLOG_TYPE_DEBUG 0
#define DLOG_TYPE_RUN 1
#ifndef MSG_LENGTH
#define MSG_LENGTH 1024
#endif

// Module ids: operator code logs as OP.
enum { SLOG = 0, IDEDD = 1, GE = 45, OP = 7, FE = 52, TBE = 57 };

// The sub-module tags cann-ops' CMake defines for its host targets (optiling: "OP_TILING"), where
// the build defined none.
#ifndef OPS_UTILS_LOG_SUB_MOD_NAME
#define OPS_UTILS_LOG_SUB_MOD_NAME "OP_TILING"
#endif
#ifndef OPS_UTILS_LOG_PACKAGE_TYPE
#define OPS_UTILS_LOG_PACKAGE_TYPE ""
#endif

inline int AlogCheckDebugLevel(int moduleId, int level)
{
    (void)moduleId;
    return level >= DLOG_WARN && level != DLOG_NULL ? 1 : 0;
}

inline void AlogRecord(int moduleId, int logType, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
inline void AlogRecord(int moduleId, int logType, int level, const char *fmt, ...)
{
    (void)moduleId;
    (void)logType;
    (void)level;
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fputc('\n', stderr);
}
#endif
