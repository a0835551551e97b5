// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): platform_ascendc (cores, memory sizes, SoC version, NPU arch).
#ifndef ASCENDOPT_TWIN_HOST_PLATFORM_H
#define ASCENDOPT_TWIN_HOST_PLATFORM_H

#include "ascendopt_twin/host/fe.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND310P,
    ASCEND310B,
    ASCEND950,
    ASCEND910_55,
    ASCEND910_95 = ASCEND950,
    AS31XM1,
    ASCEND031,
    ASCEND035,
    ASCEND310,
    ASCEND610,
    ASCEND610Lite,
    ASCEND910_93,
    BS9SX1A,
    BS9SX2A,
    HI3796CV300CS,
    HI3796CV300ES,
    MC61AM21A,
    MC62,
    SD3403,
    KIRINX90,
    KIRIN9030,
    MC32DM11A,
    ASCEND350,
    RESERVED_VERSION = 99999
};
}  // namespace platform_ascendc
// The AI Core architecture of the platform (platform/soc_spec.h): the SoC's __NPU_ARCH__ number.
enum class NpuArch : uint32_t {
    DAV_1001 = 1001,
    DAV_2002 = 2002,
    DAV_2201 = 2201,
    DAV_3002 = 3002,
    DAV_3003 = 3003,
    DAV_3102 = 3102,
    DAV_3113 = 3113,
    DAV_3510 = 3510,
    DAV_5102 = 5102,
    DAV_RESV = 0xFFFFFFFF,
};
namespace platform_ascendc {
class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos *platformInfo) : info_(platformInfo) {}
    uint32_t GetCoreNum() const;
    uint32_t GetCoreNumAic() const;
    uint32_t GetCoreNumAiv() const;
    uint32_t GetCoreNumVector() const { return 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
    {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }
    void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const;
    void GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const;
    SocVersion GetSocVersion() const;
    NpuArch GetCurNpuArch() const;
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
    fe::PlatFormInfos *GetPlatFormInfo() const { return info_; }

private:
    fe::PlatFormInfos *info_;
};
class PlatformAscendCManager {
public:
    static PlatformAscendC *GetInstance();
    static PlatformAscendC *GetInstance(const char *customSocVersion);
};
}  // namespace platform_ascendc

#endif
