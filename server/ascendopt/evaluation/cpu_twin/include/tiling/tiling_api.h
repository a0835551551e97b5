// AscendOptimizer CPU twin: host-side "tiling/tiling_api.h". Host tiling code includes it for the
// tiling-data macros, the platform and the advanced APIs' host tiling functions. Only the families
// the twin implements on the kernel side are here (BroadCast, Pad, UnPad, Sigmoid, SoftMax, SoftmaxGrad); a tiling
// program calling another (LayerNorm, Matmul, …) fails to compile naming it.
#ifndef ASCENDOPT_TWIN_TILING_TILING_API_H
#define ASCENDOPT_TWIN_TILING_TILING_API_H

#include <cstring>

#include "ascendopt_twin/broadcast_size.h"
#include "ascendopt_twin/cube_tiling.h"
#include "ascendopt_twin/host.h"
#include "ascendopt_twin/matmul_tiling_host.h"
#include "ascendopt_twin/pad_tiling.h"
#include "ascendopt_twin/softmax_tiling.h"
#include "ascendopt_twin/reduce_tiling.h"
#include "graph/tensor.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
// BroadCast: the temporary space range for broadcasting srcShape to dstShape (1-D {1} -> {k}, or 2-D with one
// axis of size 1). See ascendopt_twin/broadcast_size.h for how the twin estimates it.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC &ascendcPlatform, const ge::Shape &srcShape,
                                      const ge::Shape &dstShape, uint32_t typeSize, const bool isReuseSource,
                                      uint32_t &maxValue, uint32_t &minValue)
{
    (void)ascendcPlatform;
    (void)isReuseSource;  // the twin's estimate does not reuse the source
    const size_t dim = dstShape.GetDimNum();
    uint32_t axis = 0;
    uint64_t m = 1, k = static_cast<uint64_t>(dstShape.GetDim(0));
    if (dim == 2) {
        axis = srcShape.GetDim(1) == 1 && dstShape.GetDim(1) != 1 ? 1 : 0;
        m = static_cast<uint64_t>(dstShape.GetDim(0));
        k = static_cast<uint64_t>(dstShape.GetDim(1));
    }
    const ascendopt_host::BroadCastTmp t =
        ascendopt_host::BroadCastTmpSize(static_cast<uint32_t>(dim), axis, m, k, typeSize);
    minValue = t.minBytes;
    maxValue = t.maxBytes;
}

// Pad / UnPad: the temporary space of one 16-row block of the (32-byte aligned) rows at the least, of all rows
// at the most. The docs give no formula; the twin's kernels do not use the space (estimate, not modelled).
namespace twin_pad_detail {
inline uint32_t AlignedRowBytes(const ge::Shape &shape, uint32_t typeSize)
{
    const uint64_t w = shape.GetDimNum() >= 2 ? static_cast<uint64_t>(shape.GetDim(1)) : 0;
    return static_cast<uint32_t>((w * typeSize + 31) / 32 * 32);
}
inline void TmpRange(const ge::Shape &shape, uint32_t typeSize, uint32_t &maxValue, uint32_t &minValue)
{
    const uint64_t h = shape.GetDimNum() >= 1 ? static_cast<uint64_t>(shape.GetDim(0)) : 0;
    const uint32_t row = AlignedRowBytes(shape, typeSize);
    minValue = row * 16;
    maxValue = static_cast<uint32_t>(row * ((h + 15) / 16 * 16));
    if (maxValue < minValue) maxValue = minValue;
}
}  // namespace twin_pad_detail

inline void GetPadMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, uint32_t &maxValue, uint32_t &minValue)
{
    twin_pad_detail::TmpRange(srcShape, typeSize, maxValue, minValue);
}
// srcShape: valid + redundant columns; oriSrcShape: the valid ones (both [height, width]).
inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, ::PadTiling &tiling)
{
    tiling.srcHeight = static_cast<uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<uint32_t>(srcShape.GetDim(1));
    tiling.srcOriWidth = static_cast<uint32_t>(oriSrcShape.GetDim(1));
    tiling.typeSize = typeSize;
    tiling.tmpBufferSize = stackBufferSize;
}
// Sigmoid: at least one 256-byte repeat, at most the whole source (the twin's Sigmoid uses none of it).
inline void GetSigmoidMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
                                    uint32_t &maxValue, uint32_t &minValue)
{
    (void)isReuseSource;
    const uint64_t bytes = static_cast<uint64_t>(srcShape.GetShapeSize()) * typeSize;
    minValue = 256;
    maxValue = static_cast<uint32_t>(bytes > minValue ? bytes : minValue);
}
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC &ascendcPlatform, const ge::Shape &srcShape,
                                  const uint32_t typeSize, uint32_t &maxValue, uint32_t &minValue)
{
    (void)ascendcPlatform;
    twin_pad_detail::TmpRange(srcShape, typeSize, maxValue, minValue);
}
inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            ::UnPadTiling &tiling)
{
    tiling.srcHeight = static_cast<uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<uint32_t>(srcShape.GetDim(1));
    tiling.typeSize = typeSize;
    tiling.tmpBufferSize = stackBufferSize;
}
// SoftMax / SoftmaxGrad: the temporary space is the twin's estimate (the docs give no formula; the twin's kernels
// do not use it): fp32 working rows of srcK plus one 32 B statistics block a row, for one row at the least and
// all rows at the most; SoftmaxGrad keeps a third row (grad * src). The tiling splits the rows into chunks of
// splitM that fit localWorkSpaceSize (informative: the kernels take their shape from SoftMaxShapeInfo).
namespace twin_softmax_detail {
struct Rows {
    uint32_t m, k;
};
inline Rows RowsOf(const ge::Shape &shape)
{
    const size_t dims = shape.GetDimNum();
    uint64_t m = 1;
    for (size_t i = 0; i + 1 < dims; ++i) m *= static_cast<uint64_t>(shape.GetDim(i));
    return {static_cast<uint32_t>(m), dims ? static_cast<uint32_t>(shape.GetDim(dims - 1)) : 0u};
}
inline uint32_t RowBytes(const Rows &r, uint32_t rowsOfK) { return (rowsOfK * r.k + 8) * 4; }
inline void Fill(const ge::Shape &shape, uint32_t dataTypeSize, uint32_t localWorkSpaceSize, uint32_t rowsOfK, ::SoftMaxTiling &t)
{
    const Rows r = RowsOf(shape);
    const uint32_t perRow = RowBytes(r, rowsOfK);
    uint32_t split = perRow ? localWorkSpaceSize / perRow : 0;
    if (split > r.m) split = r.m;
    if (split == 0) split = 1;
    t.srcM = r.m;
    t.srcK = r.k;
    t.srcSize = r.m * r.k;
    t.outMaxM = r.m;
    t.outMaxK = dataTypeSize ? 32 / dataTypeSize : 0;
    t.outMaxSize = t.outMaxM * t.outMaxK;
    t.splitM = split;
    t.splitK = r.k;
    t.splitSize = split * r.k;
    t.reduceM = split;
    t.reduceK = t.outMaxK;
    t.reduceSize = split * t.reduceK;
    t.rangeM = r.m / split;
    t.tailM = r.m % split;
    t.tailSplitSize = t.tailM * r.k;
    t.tailReduceSize = t.tailM * t.reduceK;
}
}  // namespace twin_softmax_detail

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isReuseSource)
{
    (void)dataTypeSize; (void)isReuseSource;
    const twin_softmax_detail::Rows r = twin_softmax_detail::RowsOf(srcShape);
    return r.m * twin_softmax_detail::RowBytes(r, 2);
}
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize, const bool isReuseSource)
{
    (void)dataTypeSize; (void)isReuseSource;
    return twin_softmax_detail::RowBytes(twin_softmax_detail::RowsOf(srcShape), 2);
}
inline void SoftMaxTilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize, ::SoftMaxTiling &softmaxTiling)
{
    twin_softmax_detail::Fill(srcShape, dataTypeSize, localWorkSpaceSize, 2, softmaxTiling);
}
inline uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isFront, const bool isReuseSource)
{
    (void)typeSize; (void)isFront; (void)isReuseSource;
    const twin_softmax_detail::Rows r = twin_softmax_detail::RowsOf(srcShape);
    return r.m * twin_softmax_detail::RowBytes(r, 3);
}
inline uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isFront, const bool isReuseSource)
{
    (void)typeSize; (void)isFront; (void)isReuseSource;
    return twin_softmax_detail::RowBytes(twin_softmax_detail::RowsOf(srcShape), 3);
}
inline void SoftMaxGradTilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                                  ::SoftMaxTiling &softmaxGradTiling, const bool isFront = false)
{
    (void)isFront;
    twin_softmax_detail::Fill(srcShape, dataTypeSize, localWorkSpaceSize, 3, softmaxGradTiling);
}
// SoftmaxFlashV2 (FlashAttention-2): SoftMax's working rows plus the expMax block (the twin's estimate, as above).
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                            const bool isUpdate, const bool isBasicBlock = false, const bool isFlashOutputBrc = false)
{
    (void)dataTypeSize1, (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    const twin_softmax_detail::Rows r = twin_softmax_detail::RowsOf(srcShape);
    return r.m * twin_softmax_detail::RowBytes(r, 2);
}
inline uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape &srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                            const bool isUpdate, const bool isBasicBlock = false, const bool isFlashOutputBrc = false)
{
    (void)dataTypeSize1, (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    return twin_softmax_detail::RowBytes(twin_softmax_detail::RowsOf(srcShape), 2);
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                     const uint32_t localWorkSpaceSize, ::SoftMaxTiling &softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false)
{
    (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    twin_softmax_detail::Fill(srcShape, dataTypeSize1, localWorkSpaceSize, 2, softmaxFlashTiling);
}
}  // namespace AscendC

// The host-side classes (as TILING_DATA_FIELD_DEF_STRUCT members or on their own): the kernel's struct with
// the tiling-data calls; SaveToBuffer writes exactly the bytes the kernel's PadTiling / UnPadTiling / SoftMaxTiling read.
// Host builds only: a kernel that includes its op_host tiling header (GET_TILING_DATA) would otherwise see
// optiling::PadTiling beside ::PadTiling, made visible together by tiling_global.h (ops-nn swi_glu).
#ifndef ASCENDOPT_TWIN_KERNEL
namespace optiling {
namespace twin_pad_detail {
template <typename S> class HostTiling : public S {
public:
    size_t GetDataSize() const { return sizeof(S); }
    void SaveToBuffer(void *buf, size_t capacity) const
    {
        std::memcpy(buf, static_cast<const S *>(this), capacity < sizeof(S) ? capacity : sizeof(S));
    }
};
}  // namespace twin_pad_detail
class PadTiling : public twin_pad_detail::HostTiling<::PadTiling> {};
class UnPadTiling : public twin_pad_detail::HostTiling<::UnPadTiling> {};
class SoftMaxTiling : public twin_pad_detail::HostTiling<::SoftMaxTiling> {};
#define ASCENDOPT_TWIN_TCUBE_ACCESSORS(f)                        \
    void set_##f(int32_t ascendopt_v) { this->f = ascendopt_v; } \
    int32_t get_##f() const { return this->f; }
class TCubeTiling : public twin_pad_detail::HostTiling<::TCubeTiling> {
public:
    ASCENDOPT_TWIN_TCUBE_FIELDS(ASCENDOPT_TWIN_TCUBE_ACCESSORS)
};
#undef ASCENDOPT_TWIN_TCUBE_ACCESSORS
}  // namespace optiling
#endif  // ASCENDOPT_TWIN_KERNEL
#endif
