// AscendOptimizer CPU twin: drop-in for the host side of CANN's CPU-debug library (tikicpulib), so that a
// kernel-launch sample's own `#ifdef ASCENDC_CPU_DEBUG` main.cpp builds against the twin and runs its kernel
// on it: AscendC::GmAlloc / GmFree, AscendC::SetKernelMode, ICPU_RUN_KF, ICPU_SET_TILING_KEY.
// Findings, trace and a result file go where the ASCENDOPT_TWIN_* environment variables say (runtime/README.md).
#ifndef ASCENDOPT_TWIN_CPU_DEBUG_H
#define ASCENDOPT_TWIN_CPU_DEBUG_H

#include <cstddef>
#include <cstdint>
#include <functional>

enum class KernelMode {
    MIX_MODE = 0,
    AIC_MODE,
    AIV_MODE,
    MIX_AIC_1_1,
};

namespace AscendC {
// GM for the kernel: `size` usable bytes plus the device padding (size rounded up to 32 B, plus 32 B), zero-filled.
void *GmAlloc(size_t size);
void GmFree(void *ptr);
// Only vector kernels run on the twin: AIC_MODE / MIX modes are reported when a kernel is launched.
void SetKernelMode(KernelMode mode);
}  // namespace AscendC

namespace ascendopt_twin {
namespace cpu {
// Runs body() once per block 0..blockDim-1 on the twin's block scheduler, then writes findings / trace / result.
void RunKernel(const char *kernel, int64_t blockDim, const std::function<void()> &body, const char *file, int line);
void SetTilingKey(uint64_t key);
}  // namespace cpu
}  // namespace ascendopt_twin

// ICPU_RUN_KF(kernel, blockDim, args...): the arguments are evaluated in every block, as each core gets them.
#define ICPU_RUN_KF(func, blockdim, ...) \
    ::ascendopt_twin::cpu::RunKernel(#func, static_cast<int64_t>(blockdim), [&]() { func(__VA_ARGS__); }, __FILE__, __LINE__)
#define ICPU_SET_TILING_KEY(key) ::ascendopt_twin::cpu::SetTilingKey(static_cast<uint64_t>(key))

#endif
