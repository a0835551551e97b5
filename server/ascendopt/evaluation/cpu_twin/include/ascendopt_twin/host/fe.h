// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): fe::PlatFormInfos (the platform handed to tiling functions).
#ifndef ASCENDOPT_TWIN_HOST_FE_H
#define ASCENDOPT_TWIN_HOST_FE_H

#include "ascendopt_twin/host/common.h"

namespace fe {
// Platform description handed to tiling functions (opaque on the real CANN; filled from the runner manifest here).
class PlatFormInfos {
public:
    uint32_t twinCoreNumAiv = 40;
    uint32_t twinCoreNumAic = 20;
    uint64_t twinUbSize = 196608;
    std::string twinSoc = "Ascend910B4";
    // The platform ini entries tiling code asks for by (label, key); false (and "") for any other.
    bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const
    {
        val.clear();
        if (label == "version" && key == "SoC_version") val = twinSoc;
        else if (label == "version" && key == "Short_SoC_version") val = twinSoc.substr(0, twinSoc.find_first_of("0123456789", 6) + 4);
        else if (label == "AICoreintrinsicDtypeMap" && key == "Intrinsic_mmad") val = "f162f32,s82s32";
        return !val.empty();
    }
};
}  // namespace fe

#endif
