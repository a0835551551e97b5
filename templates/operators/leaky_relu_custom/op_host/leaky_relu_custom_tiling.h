#ifndef LEAKY_RELU_CUSTOM_TILING_H
#define LEAKY_RELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LeakyReluCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);    // elements in x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);    // elements per core (32 B aligned), last core takes the rest
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)
  TILING_DATA_FIELD_DEF(float, negativeSlope);     // attr negative_slope: y = x < 0 ? slope * x : x
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LeakyReluCustom, LeakyReluCustomTilingData)
}  // namespace optiling
#endif  // LEAKY_RELU_CUSTOM_TILING_H
