// AscendOptimizer CPU twin: the cube core's data path (910B, Atlas A2): GM -> L1 with ND -> NZ conversion (MTE2),
// L1 -> L0A/L0B fractal loads (MTE1), Mmad into L0C (M), L0C -> GM with NZ -> ND conversion and quantisation (FIX).
//
// Layouts, in elements of the operand type; C0 = 32 B / sizeof(T) (16 for half, 32 for int8, 8 for float), a
// fractal is 16 rows of C0 (512 B):
//   L1 (ND2NZ "zN"): element (r, c) of matrix i at i*dstNzMatrixStride + (c / C0)*dstNzC0Stride*C0 + r*dstNzNStride*C0
//                    + c % C0;
//   L0A ("zZ"):      fractal (fm, fk) at (fm*K1 + fk)*16*C0, inside row-major: (r, k) at r*C0 + k;
//   L0B ("nZ"):      fractal (fk, fn) at (fk*N1 + fn)*16*C0, inside by column: (k, n) at n*C0 + k;
//   L0C ("zN"):      fractal (fm, fn) at (fn*M1 + fm)*256, inside row-major 16 x 16 (float or int32);
// with M1, N1 = ceil(m / 16), ceil(n / 16) and K1 = ceil(k / C0) of the Mmad.
#ifndef ASCENDOPT_TWIN_CUBE_H
#define ASCENDOPT_TWIN_CUBE_H

#include <limits>
#include <vector>

#include "ascendopt_twin/datacopy.h"

// The Fixpipe's conversion on the way out of L0C (a global enum in CANN's headers, written `QuantMode_t::F322F16`).
enum QuantMode_t : uint8_t {
    NoQuant = 0,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

// The high-level Matmul API's namespace, which CANN's kernel_operator.h brings (Catlass kernels write
// `using namespace matmul;`); the twin has none of that API.
namespace matmul {
}  // namespace matmul

namespace AscendC {

// GlobalTensor::SetL2CacheHint's modes (Catlass turns L2 off for a matrix read once): a hint, no effect here.
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };

struct Nd2NzParams {
    uint16_t ndNum = 1;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

struct LoadData2DParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint8_t sid = 0;
    uint16_t dstGap = 0;
    bool ifTranspose = false;
    uint8_t addrMode = 0;
};

struct MmadParams {
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;   // L0C: rows between one 16-column fractal column and the next (units of 16 elements)
    uint32_t dstStride = 0;   // ROW_MAJOR: elements between GM rows
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;   // DEQF16 / QF322B8_PRE / REQ8: the scale, a float's bits in the low 32
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

namespace twin_detail {
namespace rt = ascendopt_twin::rt;

// An operand of a cube instruction must sit where that instruction reads or writes it.
template <typename T>
inline void CubeOperand(const rt::Op &op, const LocalTensor<T> &t, std::initializer_list<rt::Space> allowed, const char *what)
{
    const rt::Space sp = SpaceOfPos(t.GetPosition());
    for (rt::Space a : allowed)
        if (a == sp) return;
    rt::Report("cube_operand_position", true, op.file, op.line, "%s: %s is a tensor of %s, which this instruction cannot %s",
               op.name, what, sp == rt::SP_UB ? "the UB" : rt::SpaceOf(sp).name, std::strcmp(what, "dst") == 0 ? "write" : "read");
}

template <typename T> inline float CubeIn(T v) { return ascendopt_twin::ToF(v); }
}  // namespace twin_detail

// ---------------- GM -> L1, ND -> NZ (MTE2) ----------------
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const Nd2NzParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE2, "DataCopy", loc);
    twin_detail::CubeOperand(op, dst, {rt::SP_L1}, "dst");
    constexpr uint32_t c0 = 32u / sizeof(T);
    const uint32_t blocks = (p.dValue + c0 - 1) / c0;
    const T *gm = twin_detail::Access::Addr(src);
    const uint32_t base = twin_detail::Access::Off(dst);
    uint8_t row[32];
    for (uint32_t i = 0; i < p.ndNum; ++i)
        for (uint32_t r = 0; r < p.nValue; ++r)
            for (uint32_t j = 0; j < blocks; ++j) {
                const uint32_t valid = p.dValue - j * c0 < c0 ? p.dValue - j * c0 : c0;
                const T *from = gm + static_cast<uint64_t>(i) * p.srcNdMatrixStride + static_cast<uint64_t>(r) * p.srcDValue + j * c0;
                const uint32_t to = base + static_cast<uint32_t>(sizeof(T)) *
                                               (i * p.dstNzMatrixStride + j * p.dstNzC0Stride * c0 + r * p.dstNzNStride * c0);
                // The DMA writes whole 32 B blocks: the tail of a row's last block is written as zeros (the twin's
                // reading of the docs; a kernel that relies on it still reads defined bytes).
                std::memset(row, 0, sizeof row);
                const uint64_t span = rt::GmSpan(op, from, valid * sizeof(T), false, twin_detail::Access::DeclLo(src),
                                                 twin_detail::Access::DeclHi(src), "src");
                if (span) std::memcpy(row, from, span);
                if (rt::Ub(op, to, 32, true, twin_detail::Access::Buf(dst), "dst")) std::memcpy(rt::UbPtr(to), row, 32);
            }
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(p.ndNum) * p.nValue * p.dValue,
                static_cast<int64_t>(p.ndNum) * p.nValue * blocks * 32, static_cast<int64_t>(p.ndNum) * p.nValue, -1, base);
}

// ---------------- L1 -> bias table (MTE1) ----------------
// blockLen counts 64 B of the source (the bias table's block); a half or bfloat16 source widens to float on the way.
namespace twin_detail {
template <typename D, typename S>
void CopyToBiasTable(const LocalTensor<D> &dst, const LocalTensor<S> &src, const DataCopyParams &p, ascendopt_twin::Loc loc)
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE1, "DataCopy", loc);
    CubeOperand(op, src, {rt::SP_L1}, "src");
    CubeOperand(op, dst, {rt::SP_BT}, "dst");
    const uint32_t srcBytes = static_cast<uint32_t>(p.blockLen) * 64u, n = srcBytes / static_cast<uint32_t>(sizeof(S));
    const uint32_t dstBytes = n * static_cast<uint32_t>(sizeof(D));
    rt::TraceOp(op, DTypeName<D>::value, static_cast<int64_t>(n) * p.blockCount, static_cast<int64_t>(srcBytes) * p.blockCount, p.blockCount);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint32_t s = Access::Off(src) + i * (srcBytes + p.srcStride * 64u);
        const uint32_t d = Access::Off(dst) + i * (dstBytes + p.dstStride * 64u);
        if (!rt::Ub(op, s, srcBytes, false, Access::Buf(src), "src")) return;
        const S *from = reinterpret_cast<const S *>(rt::UbPtr(s));
        std::vector<D> wide(n);
        for (uint32_t e = 0; e < n; ++e) wide[e] = FromF<D>(ToF(from[e]));
        if (Access::Buf(dst).lo <= d && d + dstBytes <= Access::Buf(dst).hi && rt::UbHolds(d, dstBytes, wide.data())) continue;
        if (!rt::Ub(op, d, dstBytes, true, Access::Buf(dst), "dst")) return;
        std::memcpy(rt::UbPtr(d), wide.data(), dstBytes);
    }
}
}  // namespace twin_detail
template <typename D, typename S, typename = typename std::enable_if<!std::is_same<D, S>::value>::type>
inline void DataCopy(const LocalTensor<D> &dst, const LocalTensor<S> &src, const DataCopyParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::CopyToBiasTable(dst, src, p, loc);
}

// ---------------- L1 -> L0A / L0B, whole fractals (MTE1) ----------------
template <typename T>
inline void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_MTE1, "LoadData", loc);
    twin_detail::CubeOperand(op, dst, {rt::SP_L0A, rt::SP_L0B}, "dst");
    twin_detail::CubeOperand(op, src, {rt::SP_L1}, "src");
    constexpr uint32_t kFrac = 512;
    if (p.ifTranspose && sizeof(T) != 2)
        rt::Report("unsupported_api", true, loc.file, loc.line,
                   "LoadData with ifTranspose on %s: the CPU twin transposes 16 x 16 fractals of 2-byte types only",
                   DTypeName<T>::value);
    const uint32_t s0 = twin_detail::Access::Off(src), d0 = twin_detail::Access::Off(dst);
    uint8_t frac[kFrac];
    for (uint32_t k = 0; k < p.repeatTimes; ++k) {
        const uint32_t from = s0 + (p.startIndex + k * p.srcStride) * kFrac;
        const uint32_t to = d0 + k * (p.dstGap + 1u) * kFrac;
        if (!rt::Ub(op, from, kFrac, false, twin_detail::Access::Buf(src), "src")) continue;
        std::memcpy(frac, rt::UbPtr(from), kFrac);
        if (!rt::Ub(op, to, kFrac, true, twin_detail::Access::Buf(dst), "dst")) continue;
        uint8_t *out = rt::UbPtr(to);
        if (p.ifTranspose && sizeof(T) == 2) {
            for (uint32_t r = 0; r < 16; ++r)
                for (uint32_t c = 0; c < 16; ++c) std::memcpy(out + (c * 16 + r) * 2, frac + (r * 16 + c) * 2, 2);
        } else {
            std::memcpy(out, frac, kFrac);
        }
    }
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(p.repeatTimes) * kFrac / sizeof(T),
                static_cast<int64_t>(p.repeatTimes) * kFrac, p.repeatTimes, -1, d0);
}

// LoadDataWithTranspose (L1 -> L0A/L0B), as CANN documents it: iteration k takes the square at (startIndex + k *
// srcStride) (units of one square) of L1, transposes it and writes its 512 B fractals, the first at k * (1 + dstGap)
// fractals of dst, the next (1 + dstFracGap) fractals after it.
//   1-byte types: two 16 x 32 fractals stacked, a 32 x 32 square, split back into its top and bottom halves;
//   2-byte types: one 16 x 16 fractal (dstFracGap unused);
//   4-byte types: two 16 x 8 fractals side by side, a 16 x 16 square (16 rows of 8 + 8), split back into its left and
//     right halves. Only side by side makes two 16 x 8 fractals a 16 x 16 square, and it is what Catlass's float Gemm
//     (validated on the NPU) needs: B in L1 as zZ (16 (k) x 8 (n) fractals, consecutive along n) becomes the
//     16 (n) x 8 (k) fractals L0B holds for float (dstGap 0, dstFracGap N1 - 1).
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint8_t addrMode = 0;
};
namespace twin_detail {
// Element (r, c) of a transposing load's square, in elements from the square's start.
template <typename T> constexpr uint32_t TransposeSquareAt(uint32_t r, uint32_t c)
{
    return sizeof(T) == 4 ? (c / 8u) * 128u + r * 8u + c % 8u : r * (sizeof(T) == 1 ? 32u : 16u) + c;
}
}  // namespace twin_detail
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2dTransposeParams &p,
                                  ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose: 1-, 2- or 4-byte types");
    rt::Op op = rt::Begin(P_MTE1, "LoadDataWithTranspose", loc);
    twin_detail::CubeOperand(op, dst, {rt::SP_L0A, rt::SP_L0B}, "dst");
    twin_detail::CubeOperand(op, src, {rt::SP_L1}, "src");
    constexpr uint32_t kFrac = 512;
    constexpr uint32_t side = sizeof(T) == 1 ? 32u : 16u;  // the square's side in elements
    constexpr uint32_t square = side * side * static_cast<uint32_t>(sizeof(T)), fracs = square / kFrac;
    const uint32_t s0 = twin_detail::Access::Off(src), d0 = twin_detail::Access::Off(dst);
    std::vector<uint8_t> in(square), out(square);
    for (uint32_t k = 0; k < p.repeatTimes; ++k) {
        const uint32_t from = s0 + (static_cast<uint32_t>(p.startIndex) + k * p.srcStride) * square;
        if (!rt::Ub(op, from, square, false, twin_detail::Access::Buf(src), "src")) continue;
        std::memcpy(in.data(), rt::UbPtr(from), square);
        for (uint32_t r = 0; r < side; ++r)
            for (uint32_t c = 0; c < side; ++c)
                std::memcpy(&out[twin_detail::TransposeSquareAt<T>(c, r) * sizeof(T)],
                            &in[twin_detail::TransposeSquareAt<T>(r, c) * sizeof(T)], sizeof(T));
        for (uint32_t f = 0; f < fracs; ++f) {
            const uint32_t to = d0 + (k * (p.dstGap + 1u) + f * (p.dstFracGap + 1u)) * kFrac;
            if (!rt::Ub(op, to, kFrac, true, twin_detail::Access::Buf(dst), "dst")) continue;
            std::memcpy(rt::UbPtr(to), &out[f * kFrac], kFrac);
        }
    }
    rt::TraceOp(op, DTypeName<T>::value, static_cast<int64_t>(p.repeatTimes) * square / sizeof(T),
                static_cast<int64_t>(p.repeatTimes) * square, p.repeatTimes, -1, d0);
}

// ---------------- Mmad: L0C (+)= L0A x L0B (M) ----------------
namespace twin_detail {
template <typename Acc, typename A, typename B>
inline void MmadRun(const LocalTensor<Acc> &c, const LocalTensor<A> &a, const LocalTensor<B> &b, const LocalTensor<Acc> *bias,
                    const MmadParams &p, const ascendopt_twin::Loc &loc)
{
    using namespace ascendopt_twin;
    static_assert(sizeof(A) == sizeof(B), "Mmad: the L0A and L0B element types differ in size");
    static_assert(sizeof(Acc) == 4, "Mmad: L0C holds float or int32");
    rt::Op op = rt::Begin(P_M, "Mmad", loc);
    CubeOperand(op, c, {rt::SP_L0C}, "dst");
    CubeOperand(op, a, {rt::SP_L0A}, "fm (L0A)");
    CubeOperand(op, b, {rt::SP_L0B}, "filter (L0B)");
    if (bias) CubeOperand(op, *bias, {rt::SP_BT}, "bias");
    rt::UnitFlagMmad(p.unitFlag, loc);
    constexpr uint32_t c0 = 32u / sizeof(A);
    const uint32_t m1 = (p.m + 15u) / 16u, n1 = (p.n + 15u) / 16u, k1 = (p.k + c0 - 1u) / c0;
    const uint32_t rows = m1 * 16u, cols = n1 * 16u;
    const uint32_t aOff = Access::Off(a), bOff = Access::Off(b), cOff = Access::Off(c);
    const bool okA = rt::Ub(op, aOff, static_cast<uint64_t>(m1) * k1 * 512u, false, Access::Buf(a), "fm (L0A)");
    const bool okB = rt::Ub(op, bOff, static_cast<uint64_t>(k1) * n1 * 512u, false, Access::Buf(b), "filter (L0B)");
    const bool okBias = bias == nullptr || rt::Ub(op, Access::Off(*bias), cols * 4u, false, Access::Buf(*bias), "bias");
    const bool accumulate = bias == nullptr && !p.cmatrixInitVal;
    const bool okC = (!accumulate || rt::Ub(op, cOff, static_cast<uint64_t>(rows) * cols * 4u, false, Access::Buf(c), "dst")) &&
                     rt::Ub(op, cOff, static_cast<uint64_t>(rows) * cols * 4u, true, Access::Buf(c), "dst");
    // n: multiply-adds over whole fractals, as the cube unit does them (the timing model's unit)
    rt::TraceOp(op, DTypeName<A>::value, static_cast<int64_t>(rows) * cols * k1 * c0, static_cast<int64_t>(rows) * cols * 4, k1);
    if (!(okA && okB && okC && okBias)) return;
    using Num = typename std::conditional<std::is_integral<A>::value, int64_t, float>::type;
    // Operands in row-major order first (A: rows x k, B: k x cols), then one pass of sums.
    std::vector<Num> fa(static_cast<size_t>(rows) * p.k), fb(static_cast<size_t>(p.k) * cols);
    const A *pa = Access::Ptr(a);
    const B *pb = Access::Ptr(b);
    for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t k = 0; k < p.k; ++k)
            fa[static_cast<size_t>(i) * p.k + k] = static_cast<Num>(CubeIn(pa[((i / 16u) * k1 + k / c0) * 16u * c0 + (i % 16u) * c0 + k % c0]));
    for (uint32_t k = 0; k < p.k; ++k)
        for (uint32_t j = 0; j < cols; ++j)
            fb[static_cast<size_t>(k) * cols + j] = static_cast<Num>(CubeIn(pb[((k / c0) * n1 + j / 16u) * 16u * c0 + (j % 16u) * c0 + k % c0]));
    Acc *pc = Access::Ptr(c);
    const Acc *pbias = bias ? Access::Ptr(*bias) : nullptr;
    std::vector<Num> sum(cols);
    for (uint32_t i = 0; i < rows; ++i) {
        for (uint32_t j = 0; j < cols; ++j) {
            Acc *at = pc + ((j / 16u) * m1 + i / 16u) * 256u + (i % 16u) * 16u + j % 16u;
            sum[j] = pbias ? static_cast<Num>(pbias[j]) : accumulate ? static_cast<Num>(*at) : Num(0);
        }
        const Num *ra = fa.data() + static_cast<size_t>(i) * p.k;
        for (uint32_t k = 0; k < p.k; ++k) {
            const Num x = ra[k];
            const Num *rb = fb.data() + static_cast<size_t>(k) * cols;
            for (uint32_t j = 0; j < cols; ++j) sum[j] += x * rb[j];
        }
        for (uint32_t j = 0; j < cols; ++j)
            pc[((j / 16u) * m1 + i / 16u) * 256u + (i % 16u) * 16u + j % 16u] = static_cast<Acc>(sum[j]);
    }
}
}  // namespace twin_detail

template <typename Acc, typename A, typename B>
inline void Mmad(const LocalTensor<Acc> &c, const LocalTensor<A> &a, const LocalTensor<B> &b, const MmadParams &p,
                 ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    twin_detail::MmadRun<Acc, A, B>(c, a, b, nullptr, p, loc);
}
// The bias form: L0C starts from the bias table's row (one value per output column) instead of zero.
template <typename Acc, typename A, typename B, typename Bias>
inline void Mmad(const LocalTensor<Acc> &c, const LocalTensor<A> &a, const LocalTensor<B> &b, const LocalTensor<Bias> &bias,
                 const MmadParams &p, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(std::is_same<Acc, Bias>::value, "Mmad: the bias table holds the L0C type");
    twin_detail::MmadRun<Acc, A, B>(c, a, b, &bias, p, loc);
}

// ---------------- L0C -> GM (FIX) ----------------
namespace twin_detail {
inline float DeqScale(uint64_t bits)
{
    const uint32_t low = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &low, 4);
    return f;
}
template <typename D, typename S> inline D FixConvert(S v, const FixpipeParamsV220 &p)
{
    using namespace ascendopt_twin;
    if constexpr (std::is_integral<S>::value) {
        double x = static_cast<double>(v);
        if (p.quantPre == QuantMode_t::DEQF16 || p.quantPre == QuantMode_t::REQ8) x *= DeqScale(p.deqScalar);
        if (p.reluEn && x < 0) x = 0;
        if constexpr (std::is_integral<D>::value) {
            double lo = static_cast<double>(std::numeric_limits<D>::min()), hi = static_cast<double>(std::numeric_limits<D>::max());
            double r = std::nearbyint(x);
            return static_cast<D>(r < lo ? lo : r > hi ? hi : r);
        } else {
            return FromF<D>(static_cast<float>(x));
        }
    } else {
        float x = static_cast<float>(v);
        if (p.quantPre == QuantMode_t::QF322B8_PRE) x *= DeqScale(p.deqScalar);
        if (p.reluEn && x < 0) x = 0;
        if constexpr (std::is_integral<D>::value) {
            float lo = static_cast<float>(std::numeric_limits<D>::min()), hi = static_cast<float>(std::numeric_limits<D>::max());
            float r = std::nearbyint(x);
            return static_cast<D>(r < lo ? lo : r > hi ? hi : r);
        } else {
            return FromF<D>(x);
        }
    }
}
}  // namespace twin_detail

template <typename D, typename S, const FixpipeConfig &config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<D> &dst, const LocalTensor<S> &src, const FixpipeParamsV220 &p,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    static_assert(config.format == CO2Layout::ROW_MAJOR, "Fixpipe: the CPU twin writes GM in row-major (CFG_ROW_MAJOR) only");
    static_assert(sizeof(S) == 4, "Fixpipe: L0C holds float or int32");
    rt::Op op = rt::Begin(P_FIX, "Fixpipe", loc);
    twin_detail::CubeOperand(op, src, {rt::SP_L0C}, "src");
    if (p.ndNum > 1 || p.quantPre == QuantMode_t::VDEQF16 || p.quantPre == QuantMode_t::VQF322B8_PRE || p.quantPre == QuantMode_t::VREQ8)
        rt::Report("unsupported_api", true, loc.file, loc.line,
                   "Fixpipe with ndNum %u or a per-channel quantisation mode: not modelled by the CPU twin", p.ndNum);
    rt::UnitFlagFixpipe(p.unitFlag, loc);
    const uint32_t s0 = twin_detail::Access::Off(src);
    const uint32_t cols16 = (p.nSize + 15u) / 16u;
    bool ok = true;
    for (uint32_t f = 0; f < cols16; ++f)
        ok = rt::Ub(op, s0 + f * p.srcStride * 16u * 4u, static_cast<uint64_t>(p.mSize) * 16u * 4u, false,
                    twin_detail::Access::Buf(src), "src") && ok;
    rt::TraceOp(op, DTypeName<D>::value, static_cast<int64_t>(p.mSize) * p.nSize, static_cast<int64_t>(p.mSize) * p.nSize * sizeof(D), p.mSize);
    if (!ok) return;
    const S *ps = twin_detail::Access::Ptr(src);
    D *gm = twin_detail::Access::Addr(dst);
    std::vector<D> row(p.nSize);
    for (uint32_t r = 0; r < p.mSize; ++r) {
        for (uint32_t c = 0; c < p.nSize; ++c)
            row[c] = twin_detail::FixConvert<D, S>(ps[(c / 16u) * p.srcStride * 16u + r * 16u + c % 16u], p);
        uint8_t *to = reinterpret_cast<uint8_t *>(gm + static_cast<uint64_t>(r) * p.dstStride);
        const uint64_t span = rt::GmSpan(op, to, p.nSize * sizeof(D), true, twin_detail::Access::DeclLo(dst),
                                         twin_detail::Access::DeclHi(dst), "dst");
        if (span) twin_detail::AtomicStore<D>(to, reinterpret_cast<const uint8_t *>(row.data()), span);
    }
}

}  // namespace AscendC
#endif
