// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): fe::PlatFormInfos (the platform handed to tiling functions).
#ifndef ASCENDOPT_TWIN_HOST_FE_H
#define ASCENDOPT_TWIN_HOST_FE_H

#include "ascendopt_twin/host/common.h"

namespace fe {
// The memories GetLocalMemSize reports on, numbered as platform_ascendc::CoreMemType.
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

// Platform description handed to tiling functions (opaque on the real CANN; filled from the runner manifest here).
class PlatFormInfos {
public:
    uint32_t twinCoreNumAiv = 40;
    uint32_t twinCoreNumAic = 20;
    uint64_t twinUbSize = 196608;
    std::string twinSoc = "Ascend910B4";
    // The platform ini entries tiling code asks for by (label, key); false (and "") for any other.
    // (This and GetCoreNum use std::string: defined in runtime/host_api.cpp, as host.h says why.)
    bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const;
    // What the tiling's platform reports as its core count: AI Cores (cube side) on Ascend910B-class SoCs,
    // the vector cores elsewhere. PlatformAscendC::GetCoreNum answers with this.
    uint32_t GetCoreNum() const;
    // One core's memory of `type` in bytes (0 for RESERVED); PlatformAscendC::GetCoreMemSize answers with this.
    void GetLocalMemSize(const LocalMemType &type, uint64_t &size) const
    {
        switch (type) {
            case LocalMemType::UB: size = twinUbSize; break;
            case LocalMemType::L1: size = 524288; break;
            case LocalMemType::L0_A: size = 65536; break;
            case LocalMemType::L0_B: size = 65536; break;
            case LocalMemType::L0_C: size = 131072; break;
            case LocalMemType::L2: size = 201326592; break;
            case LocalMemType::HBM: size = 68719476736ull; break;
            default: size = 0; break;
        }
    }
};
}  // namespace fe

#endif
