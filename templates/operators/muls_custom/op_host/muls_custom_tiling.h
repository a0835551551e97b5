#ifndef MULS_CUSTOM_TILING_H
#define MULS_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulsCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);    // elements in x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);    // elements per core (32 B aligned), last core takes the rest
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)
  TILING_DATA_FIELD_DEF(float, scale);             // attr scale: y = x * scale
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulsCustom, MulsCustomTilingData)
}  // namespace optiling
#endif  // MULS_CUSTOM_TILING_H
