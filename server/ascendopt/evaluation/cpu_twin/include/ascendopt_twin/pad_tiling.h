// AscendOptimizer CPU twin: the tiling structures of the advanced Pad / UnPad APIs, as the kernel reads them
// (CANN's kernel_tiling/kernel_tiling.h declares PadTiling / UnPadTiling in the global namespace; main.cpp and
// kernels size buffers with sizeof and copy them as uint32 words). The documentation leaves their fields
// opaque: this layout is the twin's own, filled by PadTilingFunc / UnPadTilingFunc (tiling/tiling_api.h).
#ifndef ASCENDOPT_TWIN_PAD_TILING_H
#define ASCENDOPT_TWIN_PAD_TILING_H

#include <cstdint>

struct PadTiling {
    uint32_t srcHeight = 0;    // srcShape[0]
    uint32_t srcWidth = 0;     // srcShape[1]: valid + redundant columns (the row stride of the source)
    uint32_t srcOriWidth = 0;  // oriSrcShape[1]: the valid columns
    uint32_t typeSize = 0;
    uint32_t tmpBufferSize = 0;  // stackBufferSize given to PadTilingFunc (not modelled further)
};

struct UnPadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;  // 32-byte aligned row width of the source
    uint32_t typeSize = 0;
    uint32_t tmpBufferSize = 0;
};

namespace AscendC {
namespace tiling {
using PadTiling = ::PadTiling;
using UnPadTiling = ::UnPadTiling;
}  // namespace tiling
}  // namespace AscendC

#endif
