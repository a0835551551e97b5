// AscendOptimizer CPU twin: CANN's error-message report (REPORT_INNER_ERR_MSG), which host code
// calls beside its error log. The twin prints it: there is no error manager to hand it to.
#ifndef ASCENDOPT_TWIN_BASE_ERR_MSG_H
#define ASCENDOPT_TWIN_BASE_ERR_MSG_H
#include <cstdio>

#define REPORT_INNER_ERR_MSG(code, fmt, ...)                                  \
    do {                                                                      \
        std::fprintf(stderr, "[%s] " fmt "\n", (code), ##__VA_ARGS__);        \
    } while (0)
#endif
