// AscendOptimizer CPU twin: runner entry point used by the generated launcher.
#ifndef ASCENDOPT_TWIN_RUNNER_H
#define ASCENDOPT_TWIN_RUNNER_H

#include <cstdint>

namespace ascendopt_twin {
using LaunchFn = void (*)(uint8_t **args);
// Reads the manifest (argv[1]), runs tiling and the kernel for every block, writes outputs, findings, trace, result.
// `aic`: a mixed kernel's entry built for the cube core; each block then runs it on one AIC and `launch` on two AIVs.
int RunnerMain(int argc, char **argv, LaunchFn launch, LaunchFn aic = nullptr);
}  // namespace ascendopt_twin

#endif
