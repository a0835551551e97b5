// AscendOptimizer CPU twin: GlobalTensor / LocalTensor.
#ifndef ASCENDOPT_TWIN_TENSOR_H
#define ASCENDOPT_TWIN_TENSOR_H

#include "ascendopt_twin/rt.h"

namespace AscendC {

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

template <typename T, typename U> struct IsSameType { static constexpr bool value = false; };
template <typename T> struct IsSameType<T, T> { static constexpr bool value = true; };
// The type one of two (kernels pick a Matmul type with it): std::conditional's spelling in AscendC.
template <bool b, typename T, typename F> struct Conditional { using type = T; };
template <typename T, typename F> struct Conditional<false, T, F> { using type = F; };

template <typename T> class LocalTensor;
template <typename T> class GlobalTensor;

// A tensor's shape as the kernel describes it (docs: ShapeInfo, LocalTensor::SetShapeInfo): the advanced APIs that
// take no shape argument (SoftmaxFlashV2 without a SoftMaxShapeInfo) read it.
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };
constexpr uint8_t K_MAX_SHAPE_DIM = 8;
struct ShapeInfo {
    ShapeInfo() = default;
    ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], uint8_t inputOriginalShapeDim, const uint32_t inputOriginalShape[],
              DataFormat inputFormat)
        : shapeDim(Clip(inputShapeDim)), originalShapeDim(Clip(inputOriginalShapeDim)), dataFormat(inputFormat)
    {
        for (uint8_t i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (uint8_t i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
    }
    ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], DataFormat inputFormat = DataFormat::ND)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat)
    {
    }
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_SHAPE_DIM] = {};
    uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;

private:
    static uint8_t Clip(uint8_t d) { return d < K_MAX_SHAPE_DIM ? d : K_MAX_SHAPE_DIM; }
};

namespace twin_detail {
// Scalar element access through operator(): reads and writes are S-pipe accesses.
template <typename Tensor, typename T> class ElemRef {
public:
    ElemRef(const Tensor &t, uint64_t i, ascendopt_twin::Loc l) : t_(t), i_(i), l_(l) {}
    operator T() const { return t_.GetValue(i_, l_); }
    ElemRef &operator=(const T &v) { t_.SetValue(i_, v, l_); return *this; }
    ElemRef &operator=(const ElemRef &o) { t_.SetValue(i_, static_cast<T>(o), l_); return *this; }
private:
    const Tensor &t_;
    uint64_t i_;
    ascendopt_twin::Loc l_;
};

// The docs' whole-tensor form of the binary APIs, `dst = a + b;` (also - * / & |): the operator makes an
// expression, LocalTensor's operator= runs Fn (vec_binary.h: Add, Sub, …) over dst's size. The operand's
// converting constructor takes the location by default argument, so it is where the expression is written.
struct WholeAdd;
struct WholeSub;
struct WholeMul;
struct WholeDiv;
struct WholeAnd;
struct WholeOr;
template <typename T> struct WholeOperand {
    WholeOperand(const LocalTensor<T> &x, ascendopt_twin::Loc l = ascendopt_twin::Loc()) : t(x), loc(l) {}
    const LocalTensor<T> &t;
    ascendopt_twin::Loc loc;
};
template <typename Fn, typename T> struct WholeExpr {
    using TwinExpr = void;
    void Run(const LocalTensor<T> &dst) const { Fn::Run(dst, a, b, loc); }
    LocalTensor<T> a, b;
    ascendopt_twin::Loc loc;
};
}  // namespace twin_detail

namespace twin_detail {
// The twin's one way into the state of the API classes (LocalTensor, GlobalTensor, TQueBind, TBuf, TPipe): each
// befriends this struct, and keeps its data private, so that a kernel reaches GM and UB only through what AscendC
// documents. Kernel builds cannot name `twin_detail` at all (the seal at the end of kernel_operator.h).
struct Access {
    // LocalTensor: UB byte offset, its buffer's bounds, and the host address of element i (for the API templates).
    template <typename T> static uint32_t Off(const LocalTensor<T> &t) { return t.off_; }
    template <typename T> static const ascendopt_twin::rt::UbBuf &Buf(const LocalTensor<T> &t) { return t.buf_; }
    template <typename T> static T *Ptr(const LocalTensor<T> &t, uint64_t i = 0)
    {
        return reinterpret_cast<T *>(ascendopt_twin::rt::UbPtr(t.off_) + i * sizeof(T));
    }
    template <typename T>
    static LocalTensor<T> Make(uint32_t off, uint32_t sizeElems, ascendopt_twin::rt::UbBuf buf, int16_t que, TPosition pos)
    {
        LocalTensor<T> t;
        t.off_ = off; t.size_ = sizeElems; t.buf_ = buf; t.que_ = que; t.pos_ = pos; t.valid_ = true;
        return t;
    }
    // GlobalTensor: the GM address and the range SetGlobalBuffer declared (nullptr when unknown).
    template <typename T> static T *Addr(const GlobalTensor<T> &g) { return g.addr_; }
    template <typename T> static const T *DeclLo(const GlobalTensor<T> &g) { return g.declLo_; }
    template <typename T> static const T *DeclHi(const GlobalTensor<T> &g) { return g.declHi_; }
    // TQueBind / TBuf: the buffers TPipe::InitBuffer gives them; TPipe: the UB it has handed out.
    template <class Q> static void InitQue(Q &q, uint32_t base, uint8_t num, uint32_t len) { q.TwinInit(base, num, len); }
    template <class Q> static int16_t QueId(const Q &q) { return q.qid_; }
    template <class B> static void InitBuf(B &b, uint32_t base, uint32_t len) { b.TwinInit(base, len); }
    template <class P> static uint32_t UsedBytes(const P &p) { return p.cursor_[0]; }
};
}  // namespace twin_detail

template <typename T> class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;

    LocalTensor operator[](uint32_t offset) const
    {
        LocalTensor t = *this;
        t.off_ = off_ + static_cast<uint32_t>(offset * sizeof(T));
        t.size_ = offset < size_ ? size_ - offset : 0;
        return t;
    }
    T GetValue(uint32_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "LocalTensor::GetValue", loc);
        rt::TraceOp(op, DTypeName<T>::value, 1, sizeof(T));
        T v{};
        uint32_t o = off_ + index * static_cast<uint32_t>(sizeof(T));
        if (rt::Ub(op, o, sizeof(T), false, buf_, "GetValue")) std::memcpy(&v, rt::UbPtr(o), sizeof(T));
        return v;
    }
    void SetValue(uint32_t index, const T &value, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "LocalTensor::SetValue", loc);
        rt::TraceOp(op, DTypeName<T>::value, 1, sizeof(T));
        uint32_t o = off_ + index * static_cast<uint32_t>(sizeof(T));
        if (rt::Ub(op, o, sizeof(T), true, buf_, "SetValue")) std::memcpy(rt::UbPtr(o), &value, sizeof(T));
    }
    twin_detail::ElemRef<LocalTensor, T> operator()(uint32_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        return twin_detail::ElemRef<LocalTensor, T>(*this, index, loc);
    }
    uint32_t GetSize() const { return size_; }
    void SetSize(uint32_t size) { size_ = size; }
    uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    // The tensor's UB address, as the NPU hands it out (a number the kernel casts to `__ubuf__ T *`); here the host
    // address of that UB byte. Only the CCE intrinsics the twin models are checked through it, so it is
    // reported (a warning: the episode refuses a candidate that adds it to its baseline).
    uint64_t GetPhyAddr(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const { return GetPhyAddr(0, loc); }
    uint64_t GetPhyAddr(uint32_t offset, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        ascendopt_twin::rt::Report("raw_ub_pointer", false, loc.file, loc.line,
                                   "LocalTensor::GetPhyAddr() hands out a raw UB address: the CCE intrinsics the twin models check it against the UB and are timed; other work through it is neither checked nor timed");
        return reinterpret_cast<uintptr_t>(ascendopt_twin::rt::UbPtr(off_)) + static_cast<uint64_t>(offset) * sizeof(T);
    }
    TPosition GetPosition() const { return pos_; }
    void SetShapeInfo(const ShapeInfo &shapeInfo) { shape_ = shapeInfo; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    void SetUserTag(uint32_t tag) { tag_ = tag; }
    uint32_t GetUserTag() const { return tag_; }
    template <typename U> LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> t;
        t.off_ = off_; t.size_ = static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)); t.buf_ = buf_;
        t.que_ = que_; t.pos_ = pos_; t.tag_ = tag_; t.valid_ = valid_; t.shape_ = shape_;
        return t;
    }
    template <typename E, typename = typename E::TwinExpr> LocalTensor &operator=(const E &expr)
    {
        expr.Run(*this);
        return *this;
    }

private:
    using Operand = twin_detail::WholeOperand<T>;
    template <typename Fn> using Expr = twin_detail::WholeExpr<Fn, T>;
    friend Expr<twin_detail::WholeAdd> operator+(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend Expr<twin_detail::WholeSub> operator-(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend Expr<twin_detail::WholeMul> operator*(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend Expr<twin_detail::WholeDiv> operator/(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend Expr<twin_detail::WholeAnd> operator&(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend Expr<twin_detail::WholeOr> operator|(Operand a, Operand b) { return {a.t, b.t, a.loc}; }
    friend struct twin_detail::Access;
    template <typename U> friend class LocalTensor;
    uint32_t off_ = 0;    // byte offset in the UB
    uint32_t size_ = 0;   // elements
    ascendopt_twin::rt::UbBuf buf_{0, 0};
    int16_t que_ = -1;
    TPosition pos_ = TPosition::VECCALC;
    uint32_t tag_ = 0;
    bool valid_ = false;
    ShapeInfo shape_;
};

template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize)
    {
        addr_ = buffer; size_ = bufferSize; declLo_ = buffer; declHi_ = buffer + bufferSize;
    }
    void SetGlobalBuffer(__gm__ T *buffer)
    {
        addr_ = buffer; size_ = 0; declLo_ = nullptr; declHi_ = nullptr;
    }
    GlobalTensor operator[](uint64_t offset) const
    {
        GlobalTensor t = *this;
        t.addr_ = addr_ + offset;
        t.size_ = size_ > offset ? size_ - offset : 0;
        return t;
    }
    T GetValue(uint64_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "GlobalTensor::GetValue", loc);
        rt::TraceOp(op, DTypeName<T>::value, 1, sizeof(T));
        T v{};
        if (rt::Gm(op, addr_ + index, sizeof(T), false, declLo_, declHi_, "GetValue")) std::memcpy(&v, addr_ + index, sizeof(T));
        return v;
    }
    void SetValue(uint64_t index, const T &value, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "GlobalTensor::SetValue", loc);
        rt::TraceOp(op, DTypeName<T>::value, 1, sizeof(T));
        if (rt::Gm(op, addr_ + index, sizeof(T), true, declLo_, declHi_, "SetValue", &value)) std::memcpy(addr_ + index, &value, sizeof(T));
    }
    twin_detail::ElemRef<GlobalTensor, T> operator()(uint64_t index, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        return twin_detail::ElemRef<GlobalTensor, T>(*this, index, loc);
    }
    // A raw GM pointer: stores through it are found after the block (runtime), reads are not seen, so
    // it is reported (a warning: the episode refuses a candidate that adds it to its baseline).
    T *GetPhyAddr(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const
    {
        ascendopt_twin::rt::Report("raw_gm_pointer", false, loc.file, loc.line,
                                   "GetPhyAddr() hands out a raw GM pointer: stores through it are counted, bounds-checked and timed as scalar stores; reads and the work around them are neither checked nor timed by the twin");
        return addr_;
    }
    T *GetPhyAddr(uint64_t offset, ascendopt_twin::Loc loc = ascendopt_twin::Loc()) const { return GetPhyAddr(loc) + offset; }
    uint64_t GetSize() const { return size_; }
    template <typename Mode> void SetL2CacheHint(Mode) {}

private:
    friend struct twin_detail::Access;
    T *addr_ = nullptr;
    uint64_t size_ = 0;
    const T *declLo_ = nullptr;
    const T *declHi_ = nullptr;
};

}  // namespace AscendC
#endif
