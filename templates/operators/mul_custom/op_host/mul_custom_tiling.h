#ifndef MUL_CUSTOM_TILING_H
#define MUL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);    // elements in x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);    // elements per core (32 B aligned), last core takes the rest
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulCustom, MulCustomTilingData)
}  // namespace optiling
#endif  // MUL_CUSTOM_TILING_H
