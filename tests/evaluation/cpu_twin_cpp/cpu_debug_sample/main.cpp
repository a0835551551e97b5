// Host program of the look-alike sample: NPU path with ACL, CPU-debug path with tikicpulib (ICPU_RUN_KF).
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
extern void scale_abs_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y);
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void scale_abs_custom(GM_ADDR x, GM_ADDR y);
#endif

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 8;
    size_t byteSize = 8 * 200 * sizeof(uint16_t);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(0);
    ICPU_RUN_KF(scale_abs_custom, blockDim, x, y);
    WriteFile("./output/output_y.bin", y, byteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
#else
    CHECK_ACL(aclInit(nullptr));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));
    uint8_t *xDevice, *yDevice;
    CHECK_ACL(aclrtMalloc((void **)&xDevice, byteSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&yDevice, byteSize, ACL_MEM_MALLOC_HUGE_FIRST));
    scale_abs_custom_do(blockDim, stream, xDevice, yDevice);
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclFinalize());
#endif
    return 0;
}
