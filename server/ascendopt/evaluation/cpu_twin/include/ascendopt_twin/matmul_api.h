// AscendOptimizer CPU twin: the high-level Matmul API (lib/matmul_intf.h: matmul::Matmul, MatmulType, MatmulConfig,
// REGIST_MATMUL_OBJ), a functional model. C = A * B (+ bias) over the single-core shape, A and B in GM (ND; either
// transposed), C to GM (ND), half / bfloat16 / float inputs accumulated in float, int8 in int32; the result is rounded
// to C's type once.
//
// Where it runs. In CANN's mixed launch (1 AIC + 2 AIV per block) the vector core's Matmul object sends each request
// to the cube core, which REGIST_MATMUL_OBJ turned into a server and which never runs the rest of the kernel. The
// twin computes the request on the calling core instead, at the point where the vector core would see it done: an
// IterateAll returns with C written; IterateAll<false> (asynchronous) writes C at WaitIterateAll (or End), so a kernel
// that reads C before waiting reads what was there. On the cube core of a mixed build REGIST_MATMUL_OBJ leaves the
// kernel, as CANN's does.
//
// Checks, as any copy's: every GM row read or written goes through the twin's bounds check, race and write accounting
// (rt::GmSpan), under the calling core. The reads are ordered like an MTE2 copy of the calling core (a kernel must
// have waited for its own MTE3 writes of A or B), C's write like a copy after them; once the call is done every pipe
// of the calling core sees both (the core waited for the cube core's answer).
//
// Shapes (docs: SetOrgShape, SetTensorA/B, SetSingleShape, SetTail): A is [M, Ka] (row stride Ka) or, transposed,
// [Ka, M] (stride M); B is [Kb, N] (stride N) or, transposed, [N, Kb] (stride Kb); C is [M, N] with row stride Kc when
// SetOrgShape gave one, else N. The original shapes start from the tiling (M, N, Ka, Kb), the computed one from its
// singleCoreM/N/K. Iterate/GetTensorC walk baseM x baseN blocks of C (iterateOrder 0: along M first).
//
// Timing (labelled guesses, as cube.h's): the request is traced on the calling core as the cube core's work, the
// operands' bytes on MTE1, the multiply-adds over whole fractals on M, C's bytes on FIX, then a barrier of every pipe
// (the vector core waits for the answer).
#ifndef ASCENDOPT_TWIN_MATMUL_API_H
#define ASCENDOPT_TWIN_MATMUL_API_H

#include <type_traits>
#include <vector>

#include "ascendopt_twin/cube_tiling.h"
#include "ascendopt_twin/datacopy.h"

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

// The docs' MatmulConfig (the fields kernels set through GetNormalConfig / GetMDLConfig); the functional model reads
// none of them.
struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t stepM = 0;
    uint32_t stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = 0;
};
constexpr MatmulConfig GetNormalConfig(bool intrinsicsLimit = false, bool batchLoop = false, bool isVecND2NZ = false, int bmmMode = 0,
                                       bool isMsgReuse = true, int iterateOrder = 0, int scheduleType = 0, bool enUnitFlag = true,
                                       bool enableMixDualMaster = false)
{
    (void)bmmMode, (void)isMsgReuse, (void)iterateOrder, (void)scheduleType, (void)enableMixDualMaster;
    MatmulConfig c{};
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig GetMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false, uint32_t doMTE2Preload = 0, bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false, bool enUnitFlag = false, bool isMsgReuse = true,
                                    bool enableUBReuse = true, bool enableL1CacheUB = false, bool enableMixDualMaster = false)
{
    (void)isMsgReuse, (void)enableUBReuse, (void)enableL1CacheUB, (void)enableMixDualMaster;
    MatmulConfig c{};
    c.doNorm = false;
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();

namespace matmul {
using ::CubeFormat;
using ::LayoutMode;
using ::MatmulConfig;

template <AscendC::TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false>
struct MatmulType {
    constexpr static AscendC::TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const MatmulConfig &MM_CFG = CFG_NORM>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using Loc = ascendopt_twin::Loc;
    // int8 multiplies into int32, the rest into float (the L0C types)
    using Num = typename std::conditional<std::is_integral<SrcAT>::value, int64_t, float>::type;
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND,
                  "Matmul: the CPU twin models A and B in the ND format only");
    static_assert(A_TYPE::pos == AscendC::TPosition::GM && B_TYPE::pos == AscendC::TPosition::GM,
                  "Matmul: the CPU twin models A and B in GM only");

public:
    void Init(const TCubeTiling *tiling, AscendC::TPipe *tpipe = nullptr, Loc loc = Loc())
    {
        (void)tpipe;
        if (tiling == nullptr) {
            ascendopt_twin::rt::Report("bad_argument", true, loc.file, loc.line, "Matmul::Init: the TCubeTiling pointer is null");
            return;
        }
        t_ = *tiling;
        inited_ = true;
        orgM_ = t_.M, orgN_ = t_.N, orgKa_ = t_.Ka, orgKb_ = t_.Kb, orgKc_ = 0;
        singleM_ = t_.singleCoreM, singleN_ = t_.singleCoreN, singleK_ = t_.singleCoreK;
    }
    void SetOrgShape(int orgM, int orgN, int orgK, Loc loc = Loc()) { SetOrgShape(orgM, orgN, orgK, orgK, 0, loc); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0, Loc loc = Loc())
    {
        (void)loc;
        orgM_ = orgM, orgN_ = orgN, orgKa_ = orgKa, orgKb_ = orgKb, orgKc_ = orgKc;
    }
    void SetSingleShape(int singleM, int singleN, int singleK, Loc loc = Loc())
    {
        (void)loc;
        singleM_ = singleM, singleN_ = singleN, singleK_ = singleK;
    }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, Loc loc = Loc())
    {
        (void)loc;
        if (tailM > 0) singleM_ = tailM;
        if (tailN > 0) singleN_ = tailN;
        if (tailK > 0) singleK_ = tailK;
    }
    void SetTensorA(const AscendC::GlobalTensor<SrcAT> &gm, bool isTransposeA = false, Loc loc = Loc())
    {
        (void)loc;
        a_ = gm, transA_ = isTransposeA, aSet_ = true;
        iter_ = -1;
    }
    void SetTensorB(const AscendC::GlobalTensor<SrcBT> &gm, bool isTransposeB = false, Loc loc = Loc())
    {
        (void)loc;
        b_ = gm, transB_ = isTransposeB, bSet_ = true;
        iter_ = -1;
    }
    void SetBias(const AscendC::GlobalTensor<BiasT> &gm, Loc loc = Loc())
    {
        (void)loc;
        bias_ = gm, biasOn_ = true;
    }
    void DisableBias() { biasOn_ = false; }
    void ClearBias() { biasOn_ = false; }
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0) { (void)enableHF32, (void)transMode; }

    // C = A * B (+ bias) into gm (row stride Kc or N). sync = false: C is written at WaitIterateAll (or End, or the
    // object's next request).
    template <bool sync = true>
    void IterateAll(const AscendC::GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, Loc loc = Loc())
    {
        (void)enSequentialWrite, (void)fakeMsg;
        Finish(loc);  // a request still in flight is answered first (the cube core serves them in order)
        std::vector<Num> c;
        if (!Multiply(c, loc)) return;
        pending_ = std::move(c);
        pendingC_ = gm, pendingAtomic_ = enAtomic, pendingM_ = singleM_, pendingN_ = singleN_, pendingLd_ = orgKc_ > 0 ? orgKc_ : orgN_;
        pendingLoc_ = loc, hasPending_ = true;
        if (sync) Finish(loc);  // waitIterateAll only says the kernel will call WaitIterateAll (docs: IterateAll)
    }
    void WaitIterateAll(Loc loc = Loc())
    {
        if (!hasPending_)
            ascendopt_twin::rt::Report("bad_argument", false, loc.file, loc.line,
                                       "Matmul::WaitIterateAll with no IterateAll<false> in flight");
        Finish(loc);
    }
    // One baseM x baseN block of C per call, false when none is left.
    template <bool sync = true> bool Iterate(bool enPartialSum = false, Loc loc = Loc())
    {
        (void)enPartialSum;
        if (iter_ < 0) {
            block_.clear();
            if (!Multiply(block_, loc)) return false;
            iter_ = 0;
        } else {
            ++iter_;
        }
        const int bm = Blocks(singleM_, t_.baseM), bn = Blocks(singleN_, t_.baseN);
        if (iter_ >= bm * bn) {
            iter_ = -1;
            return false;
        }
        return true;
    }
    // The current block into gm: at its place in C (row stride Kc or N), or packed (row stride baseN) with enSequentialWrite.
    template <bool sync = true>
    void GetTensorC(const AscendC::GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, Loc loc = Loc())
    {
        int m0, n0, mm, nn;
        if (!Current(m0, n0, mm, nn, loc)) return;
        const int ld = orgKc_ > 0 ? orgKc_ : orgN_;
        AscendC::GlobalTensor<DstT> at = enSequentialWrite ? gm : gm[static_cast<uint64_t>(m0) * ld + n0];
        StoreGm(at, block_, m0, n0, singleN_, mm, nn, enSequentialWrite ? t_.baseN : ld, enAtomic, loc);
        Done(loc);
    }
    // The current block into a local tensor, ND, row stride baseN.
    template <bool sync = true>
    void GetTensorC(const AscendC::LocalTensor<DstT> &c, uint8_t enAtomic = 0, bool enSequentialWrite = false, Loc loc = Loc())
    {
        (void)enAtomic, (void)enSequentialWrite;
        namespace rt = ascendopt_twin::rt;
        int m0, n0, mm, nn;
        if (!Current(m0, n0, mm, nn, loc)) return;
        rt::Op op = rt::Begin(ascendopt_twin::P_FIX, "Matmul::GetTensorC", loc);
        const uint32_t esz = static_cast<uint32_t>(sizeof(DstT));
        const uint32_t base = AscendC::twin_detail::Access::Off(c);
        for (int r = 0; r < mm; ++r) {
            const uint32_t off = base + static_cast<uint32_t>(r) * static_cast<uint32_t>(t_.baseN) * esz;
            if (!rt::Ub(op, off, static_cast<uint64_t>(nn) * esz, true, AscendC::twin_detail::Access::Buf(c), "dst")) break;
            for (int j = 0; j < nn; ++j) {
                const DstT v = Out(block_[static_cast<size_t>(m0 + r) * singleN_ + n0 + j]);
                std::memcpy(rt::UbPtr(off + static_cast<uint32_t>(j) * esz), &v, esz);
            }
        }
        rt::TraceOp(op, ascendopt_twin::DTypeName<DstT>::value, static_cast<int64_t>(mm) * nn, static_cast<int64_t>(mm) * nn * esz, mm);
        Done(loc);
    }
    void End(Loc loc = Loc())
    {
        Finish(loc);
        aSet_ = bSet_ = biasOn_ = false;
        iter_ = -1;
    }

private:
    static int Blocks(int n, int base) { return base > 0 ? (n + base - 1) / base : 1; }
    static DstT Out(Num v)
    {
        if constexpr (std::is_integral<DstT>::value) return static_cast<DstT>(v);
        else return ascendopt_twin::FromF<DstT>(static_cast<float>(v));
    }

    // The product over the single-core shape, row-major singleM x singleN; false (reported) when it cannot run.
    bool Multiply(std::vector<Num> &c, const Loc &loc)
    {
        namespace rt = ascendopt_twin::rt;
        using ascendopt_twin::P_MTE1;
        using ascendopt_twin::P_MTE2;
        using AscendC::twin_detail::Access;
        if (!inited_ || !aSet_ || !bSet_) {
            rt::Report("bad_argument", true, loc.file, loc.line, "Matmul: %s before the computation",
                       !inited_ ? "no Init / REGIST_MATMUL_OBJ with a tiling" : !aSet_ ? "no SetTensorA" : "no SetTensorB");
            return false;
        }
        const int m = singleM_, n = singleN_, k = singleK_;
        if (m <= 0 || n <= 0 || k <= 0) {
            rt::Report("bad_argument", true, loc.file, loc.line, "Matmul: single-core shape [%d, %d, %d] is empty", m, n, k);
            return false;
        }
        // The reads are ordered as an MTE2 copy of this core would be.
        rt::Acquire(P_MTE1, rt::Release(P_MTE2));
        rt::Op rd = rt::Begin(P_MTE1, "Matmul", loc);
        std::vector<Num> fa(static_cast<size_t>(m) * k), fb(static_cast<size_t>(k) * n);
        bool ok = ReadMatrix(rd, a_, transA_, m, k, transA_ ? orgM_ : orgKa_, fa, "A");
        ok = ReadMatrix(rd, b_, transB_, k, n, transB_ ? orgKb_ : orgN_, fb, "B") && ok;
        std::vector<Num> bias(static_cast<size_t>(n), Num(0));
        if (biasOn_) ok = ReadBias(rd, bias, n) && ok;
        const uint64_t inBytes = (static_cast<uint64_t>(m) + n) * k * sizeof(SrcAT);
        rt::TraceOp(rd, ascendopt_twin::DTypeName<SrcAT>::value, (static_cast<int64_t>(m) + n) * k, static_cast<int64_t>(inBytes));
        rt::Op mul = rt::Begin(ascendopt_twin::P_M, "Matmul", loc);
        constexpr int c0 = static_cast<int>(32 / sizeof(SrcAT));
        const int64_t macs = static_cast<int64_t>((m + 15) / 16 * 16) * ((n + 15) / 16 * 16) * ((k + c0 - 1) / c0 * c0);
        rt::TraceOp(mul, ascendopt_twin::DTypeName<SrcAT>::value, macs, static_cast<int64_t>(m) * n * 4);
        if (!ok) return false;
        c.assign(static_cast<size_t>(m) * n, Num(0));
        for (int i = 0; i < m; ++i) {
            Num *row = c.data() + static_cast<size_t>(i) * n;
            for (int j = 0; j < n; ++j) row[j] = bias[j];
            const Num *ra = fa.data() + static_cast<size_t>(i) * k;
            for (int p = 0; p < k; ++p) {
                const Num x = ra[p];
                const Num *rb = fb.data() + static_cast<size_t>(p) * n;
                for (int j = 0; j < n; ++j) row[j] += x * rb[j];
            }
        }
        return true;
    }
    // rows x cols, row-major, from GM: stored as is (row stride ld) or, `trans`, as its transpose (cols x rows, stride ld).
    template <typename S>
    static bool ReadMatrix(const ascendopt_twin::rt::Op &op, const AscendC::GlobalTensor<S> &g, bool trans, int rows, int cols, int ld,
                           std::vector<Num> &out, const char *what)
    {
        namespace rt = ascendopt_twin::rt;
        using AscendC::twin_detail::Access;
        const int lines = trans ? cols : rows, len = trans ? rows : cols;
        std::vector<S> line(static_cast<size_t>(len));
        for (int r = 0; r < lines; ++r) {
            const S *from = Access::Addr(g) + static_cast<int64_t>(r) * ld;
            const uint64_t bytes = static_cast<uint64_t>(len) * sizeof(S);
            const uint64_t span = rt::GmSpan(op, from, bytes, false, Access::DeclLo(g), Access::DeclHi(g), what);
            if (span != bytes) return false;
            std::memcpy(line.data(), from, bytes);
            for (int e = 0; e < len; ++e) {
                const Num v = static_cast<Num>(ascendopt_twin::ToF(line[e]));
                if (trans) out[static_cast<size_t>(e) * cols + r] = v;
                else out[static_cast<size_t>(r) * cols + e] = v;
            }
        }
        return true;
    }
    bool ReadBias(const ascendopt_twin::rt::Op &op, std::vector<Num> &bias, int n)
    {
        namespace rt = ascendopt_twin::rt;
        using AscendC::twin_detail::Access;
        std::vector<BiasT> v(static_cast<size_t>(n));
        const uint64_t bytes = static_cast<uint64_t>(n) * sizeof(BiasT);
        if (rt::GmSpan(op, Access::Addr(bias_), bytes, false, Access::DeclLo(bias_), Access::DeclHi(bias_), "bias") != bytes) return false;
        std::memcpy(v.data(), Access::Addr(bias_), bytes);
        for (int j = 0; j < n; ++j) bias[j] = static_cast<Num>(ascendopt_twin::ToF(v[j]));
        return true;
    }
    // Rows [m0, m0 + mm) x columns [n0, n0 + nn) of c (row stride cn) into gm (row stride ld); atomic: added to what is there.
    void StoreGm(const AscendC::GlobalTensor<DstT> &gm, const std::vector<Num> &c, int m0, int n0, int cn, int mm, int nn, int ld, uint8_t atomic,
                 const Loc &loc)
    {
        namespace rt = ascendopt_twin::rt;
        using AscendC::twin_detail::Access;
        rt::Acquire(ascendopt_twin::P_FIX, rt::Release(ascendopt_twin::P_MTE2));
        rt::Op op = rt::Begin(ascendopt_twin::P_FIX, "Matmul", loc);
        const int saved = rt::g_blk->atomicMode;
        if (atomic) rt::g_blk->atomicMode = 1;
        std::vector<DstT> row(static_cast<size_t>(nn));
        for (int r = 0; r < mm; ++r) {
            for (int j = 0; j < nn; ++j) row[j] = Out(c[static_cast<size_t>(m0 + r) * cn + n0 + j]);
            uint8_t *to = reinterpret_cast<uint8_t *>(Access::Addr(gm) + static_cast<int64_t>(r) * ld);
            const uint64_t bytes = static_cast<uint64_t>(nn) * sizeof(DstT);
            const uint64_t span = rt::GmSpan(op, to, bytes, true, Access::DeclLo(gm), Access::DeclHi(gm), "C",
                                             atomic ? nullptr : row.data());
            if (span) AscendC::twin_detail::AtomicStore<DstT>(to, reinterpret_cast<const uint8_t *>(row.data()), span);
        }
        rt::g_blk->atomicMode = saved;
        rt::TraceOp(op, ascendopt_twin::DTypeName<DstT>::value, static_cast<int64_t>(mm) * nn, static_cast<int64_t>(mm) * nn * sizeof(DstT), mm);
    }
    // The request is answered: every pipe of this core now sees the reads and the write, and the core waited for it.
    static void Done(const Loc &loc)
    {
        namespace rt = ascendopt_twin::rt;
        rt::Clock k{};
        k.c[ascendopt_twin::P_MTE1] = rt::Release(ascendopt_twin::P_MTE1).c[ascendopt_twin::P_MTE1];
        k.c[ascendopt_twin::P_FIX] = rt::Release(ascendopt_twin::P_FIX).c[ascendopt_twin::P_FIX];
        for (int p = 0; p < ascendopt_twin::P_NUM; ++p) rt::Acquire(static_cast<ascendopt_twin::Pipe>(p), k);
        if (rt::g_trace_on) {
            rt::TraceRec r;
            r.op = "PipeBarrier";
            r.pipe = ascendopt_twin::P_ALL;
            r.file = loc.file;
            r.line = loc.line;
            rt::Trace(r);
        }
    }
    void Finish(const Loc &loc)
    {
        (void)loc;
        if (!hasPending_) return;
        hasPending_ = false;
        StoreGm(pendingC_, pending_, 0, 0, pendingN_, pendingM_, pendingN_, pendingLd_, pendingAtomic_, pendingLoc_);
        Done(pendingLoc_);
        pending_.clear();
    }
    bool Current(int &m0, int &n0, int &mm, int &nn, const Loc &loc)
    {
        if (iter_ < 0) {
            ascendopt_twin::rt::Report("bad_argument", true, loc.file, loc.line, "Matmul::GetTensorC with no block from Iterate");
            return false;
        }
        const int bm = Blocks(singleM_, t_.baseM), bn = Blocks(singleN_, t_.baseN);
        const int im = t_.iterateOrder == 0 ? iter_ % bm : iter_ / bn, in = t_.iterateOrder == 0 ? iter_ / bm : iter_ % bn;
        const int baseM = t_.baseM > 0 ? t_.baseM : singleM_, baseN = t_.baseN > 0 ? t_.baseN : singleN_;
        m0 = im * baseM, n0 = in * baseN;
        mm = singleM_ - m0 < baseM ? singleM_ - m0 : baseM;
        nn = singleN_ - n0 < baseN ? singleN_ - n0 : baseN;
        return true;
    }

    TCubeTiling t_{};
    bool inited_ = false;
    int orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    int singleM_ = 0, singleN_ = 0, singleK_ = 0;
    AscendC::GlobalTensor<SrcAT> a_;
    AscendC::GlobalTensor<SrcBT> b_;
    AscendC::GlobalTensor<BiasT> bias_;
    bool transA_ = false, transB_ = false, aSet_ = false, bSet_ = false, biasOn_ = false;
    // IterateAll<false>'s answer, written at WaitIterateAll / End
    std::vector<Num> pending_;
    AscendC::GlobalTensor<DstT> pendingC_;
    uint8_t pendingAtomic_ = 0;
    int pendingM_ = 0, pendingN_ = 0, pendingLd_ = 0;
    Loc pendingLoc_;
    bool hasPending_ = false;
    // Iterate's product and the block it is at (-1: none)
    std::vector<Num> block_;
    int iter_ = -1;
};
}  // namespace matmul

namespace AscendC {
using ::CubeFormat;
using ::LayoutMode;
using ::MatmulConfig;
using matmul::Matmul;
using matmul::MatmulType;
namespace twin_detail {
// REGIST_MATMUL_OBJ's pairs (object, tiling) on a vector core, or a cube-only kernel's core.
inline void RegistMatmul() {}
template <class MM, class... Rest> inline void RegistMatmul(MM &mm, const TCubeTiling *tiling, Rest &&...rest)
{
    mm.Init(tiling);
    RegistMatmul(rest...);
}
}  // namespace twin_detail
}  // namespace AscendC

#if defined(ASCENDOPT_TWIN_CUBE) && defined(ASCENDOPT_TWIN_MIX)
// The cube core of a mixed launch: in CANN it serves the vector cores' Matmul requests and leaves the kernel; the
// twin computes them on the vector cores, so it only leaves.
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    do {                                        \
        (void)(tpipe);                          \
        (void)(workspace);                      \
        return;                                 \
    } while (0)
#else
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    do {                                        \
        (void)(tpipe);                          \
        (void)(workspace);                      \
        ::AscendC::twin_detail::RegistMatmul(__VA_ARGS__); \
    } while (0)
#endif

#endif
