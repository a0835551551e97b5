// AscendOptimizer CPU twin, host side: the Matmul tiling classes (docs: Matmul Tiling类) that fill a TCubeTiling,
// matmul_tiling::MatmulApiTiling (one core) and MultiCoreMatmulTiling (SetDim: split over cores), and the host class
// optiling::TCubeTiling (a TILING_DATA_FIELD_DEF_STRUCT member: the kernel's struct with set_/get_ accessors).
//
// GetTiling's split is the twin's own, not CANN's search: it is self-consistent (base blocks fractal-aligned and
// within L0A/L0B/L0C with double buffering, the L1 depth within the buffer space) and the twin's Matmul reads only
// the shapes from it. It fails (-1) as the docs say it can: a type or shape not set, a shape <= 0, a fixed split
// that does not fit L0C.
#ifndef ASCENDOPT_TWIN_MATMUL_TILING_HOST_H
#define ASCENDOPT_TWIN_MATMUL_TILING_HOST_H

#include <cstdint>
#include <cstring>
#include <limits>  // as CANN's tiling headers: tiling code writes std::numeric_limits unincluded (FlashAttention's)

#include "ascendopt_twin/cube_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {
enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
// The values of ge::DataType (tiling code casts one into the other).
enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_BF16 = 27,
    DT_INT4 = 29,
};

class MatmulApiTiling {
public:
    MatmulApiTiling() = default;
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC &platform)
    {
        uint64_t v = 0;
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
        if (v) l1_ = static_cast<int64_t>(v);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
        if (v) l0a_ = static_cast<int64_t>(v);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
        if (v) l0c_ = static_cast<int64_t>(v);
        coreNum_ = static_cast<int32_t>(platform.GetCoreNumAic());
    }
    virtual ~MatmulApiTiling() = default;

    int32_t SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false)
    {
        (void)pos, (void)format, (void)isTrans;
        aBytes_ = Bytes(type);
        return aBytes_ ? 0 : -1;
    }
    int32_t SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false)
    {
        (void)pos, (void)format, (void)isTrans;
        bBytes_ = Bytes(type);
        return bBytes_ ? 0 : -1;
    }
    int32_t SetCType(TPosition pos, CubeFormat format, DataType type)
    {
        (void)pos, (void)format;
        cSet_ = Bytes(type) != 0;
        return cSet_ ? 0 : -1;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat format, DataType type)
    {
        (void)pos, (void)format;
        return Bytes(type) ? 0 : -1;
    }
    int32_t SetShape(int32_t m, int32_t n, int32_t k)
    {
        m_ = m, n_ = n, k_ = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK) { return SetOrgShape(orgM, orgN, orgK, orgK); }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb)
    {
        orgM_ = orgM, orgN_ = orgN, orgKa_ = orgKa, orgKb_ = orgKb;
        return orgM > 0 && orgN > 0 && orgKa > 0 && orgKb > 0 ? 0 : -1;
    }
    int32_t SetBias(bool isBias = false)
    {
        bias_ = isBias;
        return 0;
    }
    int32_t EnableBias(bool isBias = false) { return SetBias(isBias); }
    // -1 keeps the platform's size.
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1)
    {
        (void)ubSize, (void)btSize;
        if (l1Size >= 0) l1_ = l1Size;
        if (l0CSize >= 0) l0c_ = l0CSize;
        return 0;
    }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1)
    {
        fixM_ = baseMIn, fixN_ = baseNIn, fixK_ = baseKIn;
        return 0;
    }
    int32_t SetTraverse(int32_t order)
    {
        order_ = order;
        return 0;
    }

    int64_t GetTiling(::TCubeTiling &t)
    {
        if (!aBytes_ || !bBytes_ || !cSet_ || m_ <= 0 || n_ <= 0 || k_ <= 0) return -1;
        const int32_t orgM = orgM_ > 0 ? orgM_ : m_, orgN = orgN_ > 0 ? orgN_ : n_;
        const int32_t orgKa = orgKa_ > 0 ? orgKa_ : k_, orgKb = orgKb_ > 0 ? orgKb_ : k_;
        int32_t singleM = singleM_ > 0 ? singleM_ : m_, singleN = singleN_ > 0 ? singleN_ : n_;
        const int32_t singleK = singleK_ > 0 ? singleK_ : k_;
        int32_t used = 1;
        if (dim_ > 1 && singleM_ <= 0) {  // MultiCoreMatmulTiling without a single shape: rows split over the cores
            singleM = Ceil(m_, dim_);
            used = Ceil(m_, singleM);
        } else if (dim_ > 1) {
            used = Ceil(m_, singleM) * Ceil(n_, singleN);
        }
        const int32_t inBytes = aBytes_ > bBytes_ ? aBytes_ : bBytes_;
        const int32_t c0 = 32 / inBytes;
        // Base blocks: whole fractals; L0A/L0B double-buffered, L0C holds one baseM x baseN float block twice.
        int32_t baseM = fixM_ > 0 ? fixM_ : Min(128, Align(singleM, 16));
        int32_t baseN = fixN_ > 0 ? fixN_ : Min(128, Align(singleN, 16));
        const int64_t l0Half = l0a_ / 2;
        const int32_t maxK = static_cast<int32_t>(l0Half / (static_cast<int64_t>(baseM > baseN ? baseM : baseN) * inBytes)) / c0 * c0;
        int32_t baseK = fixK_ > 0 ? fixK_ : Min(Align(singleK, c0), maxK > c0 ? maxK : c0);
        if (static_cast<int64_t>(baseM) * baseN * 4 > l0c_) return -1;
        // L1: stepKa / stepKb base blocks of K per load, double-buffered, within the buffer space.
        int32_t stepK = Ceil(singleK, baseK);
        while (stepK > 1 && 2 * static_cast<int64_t>(stepK) * baseK * (baseM + baseN) * inBytes > l1_) --stepK;
        std::memset(&t, 0, sizeof t);
        t.usedCoreNum = used;
        t.M = orgM, t.N = orgN, t.Ka = orgKa, t.Kb = orgKb;
        t.singleCoreM = singleM, t.singleCoreN = singleN, t.singleCoreK = singleK;
        t.baseM = baseM, t.baseN = baseN, t.baseK = baseK;
        t.stepM = 1, t.stepN = 1, t.stepKa = stepK, t.stepKb = stepK;
        t.depthA1 = 2 * stepK, t.depthB1 = 2 * stepK;
        t.isBias = bias_ ? 1 : 0;
        t.iterateOrder = order_;
        t.shareL1Size = static_cast<int32_t>(2 * static_cast<int64_t>(stepK) * baseK * (baseM + baseN) * inBytes);
        t.shareL0CSize = baseM * baseN * 4;
        t.batchM = 1, t.batchN = 1, t.singleBatchM = 1, t.singleBatchN = 1, t.BatchNum = 1;
        t.dbL0A = 2, t.dbL0B = 2, t.dbL0C = 1;
        return 0;
    }

protected:
    static int32_t Ceil(int32_t a, int32_t b) { return b > 0 ? (a + b - 1) / b : 0; }
    static int32_t Align(int32_t a, int32_t b) { return Ceil(a, b) * b; }
    static int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }
    static int32_t Bytes(DataType t)
    {
        switch (t) {
            case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
            case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_INT16: case DataType::DT_UINT16: return 2;
            case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_INT4: return 1;
            default: return 0;
        }
    }

    int32_t aBytes_ = 0, bBytes_ = 0;
    bool cSet_ = false, bias_ = false;
    int32_t m_ = 0, n_ = 0, k_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int32_t singleM_ = 0, singleN_ = 0, singleK_ = 0, dim_ = 1;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1, order_ = 0;
    int32_t coreNum_ = 24;
    int64_t l1_ = 512 * 1024, l0a_ = 64 * 1024, l0c_ = 128 * 1024;  // 910B (Atlas A2) without a platform
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
public:
    using MatmulApiTiling::MatmulApiTiling;
    int32_t SetDim(int32_t dim)
    {
        dim_ = dim > 0 ? dim : 1;
        return dim > 0 ? 0 : -1;
    }
    int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1)
    {
        singleM_ = singleMIn, singleN_ = singleNIn, singleK_ = singleKIn;
        return 0;
    }
};
class BatchMatmulTiling : public MultiCoreMatmulTiling {
public:
    using MultiCoreMatmulTiling::MultiCoreMatmulTiling;
};
}  // namespace matmul_tiling

#endif
