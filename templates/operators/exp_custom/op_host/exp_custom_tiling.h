#ifndef EXP_CUSTOM_TILING_H
#define EXP_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ExpCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);    // elements in x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);    // elements per core (32 B aligned), last core takes the rest
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ExpCustom, ExpCustomTilingData)
}  // namespace optiling
#endif  // EXP_CUSTOM_TILING_H
