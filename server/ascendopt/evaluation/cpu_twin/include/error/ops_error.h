// AscendOptimizer CPU twin: the open operator repos' error-report macros (cann-ops `error/ops_error.h`),
// written from their use in the repos. An inner error is an error log line (the twin has no error-message
// manager to report to); OPS_ERR_IF is the checked conditional of log/ops_log.h.
#ifndef ASCENDOPT_TWIN_ERROR_OPS_ERROR_H
#define ASCENDOPT_TWIN_ERROR_OPS_ERROR_H

#include "log/ops_log.h"

#define OPS_REPORT_VECTOR_INNER_ERR(OPS_DESC, ...) OPS_LOG_E(OPS_DESC, __VA_ARGS__)
#define OPS_REPORT_CUBE_INNER_ERR(OPS_DESC, ...) OPS_LOG_E(OPS_DESC, __VA_ARGS__)
#define OPS_ERR_IF(COND, LOG_FUNC, EXPR) ASCENDOPT_TWIN_OPS_IF(COND, LOG_FUNC, EXPR)

#endif
