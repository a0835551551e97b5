#ifndef CLIP_BY_VALUE_CUSTOM_TILING_H
#define CLIP_BY_VALUE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ClipByValueCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);    // elements in x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);    // elements per core (32 B aligned), last core takes the rest
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)
  TILING_DATA_FIELD_DEF(float, clipMin);           // attr clip_min
  TILING_DATA_FIELD_DEF(float, clipMax);           // attr clip_max: y = min(max(x, clipMin), clipMax)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ClipByValueCustom, ClipByValueCustomTilingData)
}  // namespace optiling
#endif  // CLIP_BY_VALUE_CUSTOM_TILING_H
