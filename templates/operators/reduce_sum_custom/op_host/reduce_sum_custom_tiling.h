#ifndef REDUCE_SUM_CUSTOM_TILING_H
#define REDUCE_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, cols);           // length of the reduced (last) axis
  TILING_DATA_FIELD_DEF(uint32_t, colsAligned);    // cols rounded up to 32 B: the row stride inside a UB tile
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);    // rows (= outputs) every core takes ...
  TILING_DATA_FIELD_DEF(uint32_t, remainderRows);  // ... and the first remainderRows cores take one more
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);    // whole-row mode: rows moved per UB tile
  TILING_DATA_FIELD_DEF(uint32_t, splitRow);       // 1: a row does not fit in UB and is streamed in chunks
  TILING_DATA_FIELD_DEF(uint32_t, colTile);        // split mode: elements per chunk (32 B aligned)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSumCustom, ReduceSumCustomTilingData)
}  // namespace optiling
#endif  // REDUCE_SUM_CUSTOM_TILING_H
