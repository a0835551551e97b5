// AscendOptimizer CPU twin: TPipe, TQue/TQueBind, TBuf, HardEvent synchronisation, block info.
#ifndef ASCENDOPT_TWIN_TPIPE_H
#define ASCENDOPT_TWIN_TPIPE_H

#include "ascendopt_twin/sys_var.h"
#include "ascendopt_twin/tensor.h"

namespace AscendC {

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};
using TEventID = int8_t;
// A queue buffer named without its element type (the official TBufHandle is an opaque pointer too).
using TBufHandle = uint8_t *;

namespace twin_detail {
using ascendopt_twin::Pipe;
constexpr Pipe PipeOf(pipe_t p)
{
    return p == PIPE_S ? ascendopt_twin::P_S
         : p == PIPE_V ? ascendopt_twin::P_V
         : p == PIPE_MTE2 ? ascendopt_twin::P_MTE2
         : p == PIPE_MTE3 ? ascendopt_twin::P_MTE3
         : p == PIPE_MTE1 ? ascendopt_twin::P_MTE1
         : p == PIPE_M ? ascendopt_twin::P_M
         : p == PIPE_FIX ? ascendopt_twin::P_FIX
         : p == PIPE_ALL ? ascendopt_twin::P_ALL
                         : ascendopt_twin::P_NONE;
}
// A HardEvent's source and destination pipes, as its name says (`MTE2_MTE1`: MTE2 sets, MTE1 waits).
struct EventPipes {
    Pipe src, dst;
    const char *name;
};
constexpr EventPipes EventOf(HardEvent e)
{
    using namespace ascendopt_twin;
    switch (e) {
        case HardEvent::MTE2_MTE1: return {P_MTE2, P_MTE1, "MTE2_MTE1"};
        case HardEvent::MTE1_MTE2: return {P_MTE1, P_MTE2, "MTE1_MTE2"};
        case HardEvent::MTE1_M: return {P_MTE1, P_M, "MTE1_M"};
        case HardEvent::M_MTE1: return {P_M, P_MTE1, "M_MTE1"};
        case HardEvent::MTE2_V: return {P_MTE2, P_V, "MTE2_V"};
        case HardEvent::V_MTE2: return {P_V, P_MTE2, "V_MTE2"};
        case HardEvent::MTE3_V: return {P_MTE3, P_V, "MTE3_V"};
        case HardEvent::V_MTE3: return {P_V, P_MTE3, "V_MTE3"};
        case HardEvent::M_V: return {P_M, P_V, "M_V"};
        case HardEvent::V_M: return {P_V, P_M, "V_M"};
        case HardEvent::V_V: return {P_V, P_V, "V_V"};
        case HardEvent::MTE3_MTE1: return {P_MTE3, P_MTE1, "MTE3_MTE1"};
        case HardEvent::MTE1_MTE3: return {P_MTE1, P_MTE3, "MTE1_MTE3"};
        case HardEvent::MTE1_V: return {P_MTE1, P_V, "MTE1_V"};
        case HardEvent::MTE2_M: return {P_MTE2, P_M, "MTE2_M"};
        case HardEvent::M_MTE2: return {P_M, P_MTE2, "M_MTE2"};
        case HardEvent::V_MTE1: return {P_V, P_MTE1, "V_MTE1"};
        case HardEvent::M_FIX: return {P_M, P_FIX, "M_FIX"};
        case HardEvent::FIX_M: return {P_FIX, P_M, "FIX_M"};
        case HardEvent::MTE3_MTE2: return {P_MTE3, P_MTE2, "MTE3_MTE2"};
        case HardEvent::MTE2_MTE3: return {P_MTE2, P_MTE3, "MTE2_MTE3"};
        case HardEvent::S_V: return {P_S, P_V, "S_V"};
        case HardEvent::V_S: return {P_V, P_S, "V_S"};
        case HardEvent::S_MTE2: return {P_S, P_MTE2, "S_MTE2"};
        case HardEvent::MTE2_S: return {P_MTE2, P_S, "MTE2_S"};
        case HardEvent::S_MTE3: return {P_S, P_MTE3, "S_MTE3"};
        case HardEvent::MTE3_S: return {P_MTE3, P_S, "MTE3_S"};
        case HardEvent::MTE2_FIX: return {P_MTE2, P_FIX, "MTE2_FIX"};
        case HardEvent::FIX_MTE2: return {P_FIX, P_MTE2, "FIX_MTE2"};
        case HardEvent::FIX_S: return {P_FIX, P_S, "FIX_S"};
        case HardEvent::M_S: return {P_M, P_S, "M_S"};
        case HardEvent::FIX_MTE3: return {P_FIX, P_MTE3, "FIX_MTE3"};
        case HardEvent::MTE1_FIX: return {P_MTE1, P_FIX, "MTE1_FIX"};
        case HardEvent::FIX_MTE1: return {P_FIX, P_MTE1, "FIX_MTE1"};
        case HardEvent::FIX_FIX: return {P_FIX, P_FIX, "FIX_FIX"};
        default: return {P_NONE, P_NONE, "?"};
    }
}
constexpr Pipe EventSrc(HardEvent e) { return EventOf(e).src; }
constexpr Pipe EventDst(HardEvent e) { return EventOf(e).dst; }
constexpr const char *EventName(HardEvent e) { return EventOf(e).name; }
// Pipes that produce into / consume from a queue position: the vector core's UB (MTE2 in, V, MTE3 out) and the cube
// core's path GM -> L1 (MTE2) -> L0A/L0B and bias table (MTE1) -> L0C (M) -> GM (FIX).
constexpr Pipe ProducerOf(TPosition p)
{
    using namespace ascendopt_twin;
    return (p == TPosition::VECIN || p == TPosition::GM || p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1) ? P_MTE2
         : (p == TPosition::A2 || p == TPosition::B2 || p == TPosition::C2) ? P_MTE1
         : p == TPosition::CO1 ? P_M
                               : P_V;
}
constexpr Pipe ConsumerOf(TPosition p)
{
    using namespace ascendopt_twin;
    return (p == TPosition::VECOUT || p == TPosition::GM) ? P_MTE3
         : (p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1) ? P_MTE1
         : (p == TPosition::A2 || p == TPosition::B2 || p == TPosition::C2) ? P_M
         : p == TPosition::CO1 ? P_FIX
                               : P_V;
}
constexpr bool IsVectorPos(TPosition p)
{
    return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}
// The local memory a position names (the cube core's: L1 for A1/B1/C1, L0A for A2, L0B for B2, L0C for CO1, the
// bias table for C2); SP_NUM for positions the twin does not model.
constexpr ascendopt_twin::rt::Space SpaceOfPos(TPosition p)
{
    using namespace ascendopt_twin::rt;
    return IsVectorPos(p) ? SP_UB
         : (p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1) ? SP_L1
         : p == TPosition::A2 ? SP_L0A
         : p == TPosition::B2 ? SP_L0B
         : p == TPosition::CO1 ? SP_L0C
         : p == TPosition::C2 ? SP_BT
                              : SP_NUM;
}
int16_t NextQueueId();
}  // namespace twin_detail

class TPipe;

// A queue's configuration, given as TQue's third parameter (`TQue<pos, depth, &conf>`): accepted, and the twin's
// queues keep their default behaviour (the fields concern cube-side ND/NZ conversion and buffer hints).
class TQueConfig {
public:  // an aggregate, as the docs' brace initialisation needs
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind {
public:
    static_assert(twin_detail::SpaceOfPos(src) != ascendopt_twin::rt::SP_NUM || src == TPosition::GM,
                  "the CPU twin supports the queue positions VECIN/VECOUT/VECCALC, A1/B1/C1, A2, B2, C2 and CO1");
    static_assert(twin_detail::SpaceOfPos(dst) != ascendopt_twin::rt::SP_NUM || dst == TPosition::GM,
                  "the CPU twin supports the queue positions VECIN/VECOUT/VECCALC, A1/B1/C1, A2, B2, C2 and CO1");
    TQueBind() = default;

    template <typename T> LocalTensor<T> AllocTensor(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "AllocTensor", loc);
        if (num_ == 0) rt::Fatal("queue_not_initialized", loc.file, loc.line, "AllocTensor on a queue that was never given buffers with TPipe::InitBuffer");
        int found = -1;
        for (int k = 0; k < num_; ++k) {
            int s = (next_ + k) % num_;
            if (state_[s] == kFree) { found = s; break; }
        }
        if (found < 0)
            rt::Fatal("alloc_beyond_depth", loc.file, loc.line,
                      "AllocTensor on queue %d while all %d of its buffers are still allocated (no FreeTensor since); on the NPU this blocks forever",
                      qid_, num_);
        next_ = (found + 1) % num_;
        state_[found] = kAlloc;
        if (hasFree_[found]) rt::Acquire(twin_detail::ProducerOf(src), freeClock_[found]);
        LocalTensor<T> t = twin_detail::Access::Make<T>(off_[found], len_ / static_cast<uint32_t>(sizeof(T)),
                                                rt::UbBuf{off_[found], off_[found] + len_}, qid_, src);
        Trace(op, "AllocTensor", ProducerOf_(), off_[found]);
        return t;
    }
    template <typename T> bool EnQue(const LocalTensor<T> &tensor, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "EnQue", loc);
        int s = SlotOf(twin_detail::Access::Buf(tensor).lo);
        if (s < 0 || state_[s] == kFree) {
            rt::Report("enque_not_allocated", true, loc.file, loc.line,
                       "EnQue of a tensor (UB offset %u) that is not an allocated buffer of queue %d", twin_detail::Access::Off(tensor), qid_);
            return false;
        }
        if (count_ >= depth)
            rt::Fatal("enque_full", loc.file, loc.line, "EnQue on queue %d that already holds %d tensors (depth %d); on the NPU this blocks forever",
                      qid_, count_, static_cast<int>(depth));
        enqClock_[s] = rt::Release(twin_detail::ProducerOf(src));
        state_[s] = kQueued;
        fifo_[(head_ + count_) % kMaxSlots] = static_cast<int8_t>(s);
        ++count_;
        Trace(op, "EnQue", ProducerOf_(), off_[s]);
        return true;
    }
    template <typename T> LocalTensor<T> DeQue(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        int s = DeQueSlot(loc);
        return twin_detail::Access::Make<T>(off_[s], len_ / static_cast<uint32_t>(sizeof(T)),
                                    ascendopt_twin::rt::UbBuf{off_[s], off_[s] + len_}, qid_, dst);
    }
    // The forms naming the hand-over's positions (`EnQue<VECIN, VECOUT, T>(t)`, as a TQueBind's user may write):
    // the same hand-over, its positions being the queue's own.
    template <TPosition s, TPosition d, typename T> bool EnQue(const LocalTensor<T> &tensor, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        static_assert(s == src && d == dst, "EnQue<src, dst, T>: the CPU twin takes only the queue's own positions");
        return EnQue<T>(tensor, loc);
    }
    template <TPosition s, TPosition d, typename T> LocalTensor<T> DeQue(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        static_assert(s == src && d == dst, "DeQue<src, dst, T>: the CPU twin takes only the queue's own positions");
        return DeQue<T>(loc);
    }
    // The buffer-handle form (no element type): the same dequeue and wait, for code that only needs the
    // producer's data to have landed and keeps using the tensor it enqueued. The handle names the slot's
    // record in the queue (as CANN's names its TBufType), not the UB bytes.
    TBufHandle DeQue(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        return reinterpret_cast<TBufHandle>(&off_[DeQueSlot(loc)]);
    }
    template <typename T> void FreeTensor(const LocalTensor<T> &tensor, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "FreeTensor", loc);
        int s = SlotOf(twin_detail::Access::Buf(tensor).lo);
        if (s < 0) {
            rt::Report("free_foreign_tensor", true, loc.file, loc.line,
                       "FreeTensor on queue %d of a tensor (UB offset %u) that does not belong to it", qid_, twin_detail::Access::Off(tensor));
            return;
        }
        if (state_[s] == kFree) {
            rt::Report("double_free", true, loc.file, loc.line, "FreeTensor of a buffer of queue %d (UB offset %u) that is already free",
                       qid_, off_[s]);
            return;
        }
        if (state_[s] == kQueued) {
            rt::Report("free_queued_tensor", true, loc.file, loc.line,
                       "FreeTensor of a buffer of queue %d (UB offset %u) that is still enqueued (not DeQue'd)", qid_, off_[s]);
            for (int k = 0; k < count_; ++k) {
                if (fifo_[(head_ + k) % kMaxSlots] == s) {
                    for (int j = k; j + 1 < count_; ++j) fifo_[(head_ + j) % kMaxSlots] = fifo_[(head_ + j + 1) % kMaxSlots];
                    --count_;
                    break;
                }
            }
        }
        freeClock_[s] = rt::Release(twin_detail::ConsumerOf(dst));
        hasFree_[s] = true;
        state_[s] = kFree;
        Trace(op, "FreeTensor", ConsumerOf_(), off_[s]);
    }
    bool HasTensorInQue() const { return count_ > 0; }
    int32_t GetTensorCountInQue() const { return count_; }
    bool VacantInQue() const { return count_ < depth; }
    bool HasIdleBuffer() const
    {
        for (int k = 0; k < num_; ++k)
            if (state_[k] == kFree) return true;
        return false;
    }
    void FreeAllEvent() {}

private:
    friend struct twin_detail::Access;
    static constexpr int kMaxSlots = 32;
    void TwinInit(uint32_t base, uint8_t num, uint32_t len)
    {
        qid_ = twin_detail::NextQueueId();
        num_ = num > kMaxSlots ? kMaxSlots : num;
        len_ = (len + 31u) / 32u * 32u;  // InitBuffer rounds len up to 32 B: the slot (dataLen) is that long, as in CANN
        for (int k = 0; k < num_; ++k) {
            off_[k] = base + static_cast<uint32_t>(k) * len_;
            state_[k] = kFree;
            hasFree_[k] = false;
        }
        head_ = count_ = next_ = 0;
    }
    enum : uint8_t { kFree = 0, kAlloc, kQueued, kDequeued };
    int DeQueSlot(const ascendopt_twin::Loc &loc)
    {
        using namespace ascendopt_twin;
        rt::Op op = rt::Begin(P_S, "DeQue", loc);
        if (count_ == 0)
            rt::Fatal("deque_empty", loc.file, loc.line, "DeQue on empty queue %d (no matching EnQue); on the NPU this blocks forever", qid_);
        int s = fifo_[head_];
        head_ = (head_ + 1) % kMaxSlots;
        --count_;
        state_[s] = kDequeued;
        rt::Acquire(twin_detail::ConsumerOf(dst), enqClock_[s]);
        Trace(op, "DeQue", ConsumerOf_(), off_[s]);
        return s;
    }
    static constexpr ascendopt_twin::Pipe ProducerOf_() { return twin_detail::ProducerOf(src); }
    static constexpr ascendopt_twin::Pipe ConsumerOf_() { return twin_detail::ConsumerOf(dst); }
    int SlotOf(uint32_t lo) const
    {
        for (int k = 0; k < num_; ++k)
            if (off_[k] == lo) return k;
        return -1;
    }
    void Trace(const ascendopt_twin::rt::Op &op, const char *name, ascendopt_twin::Pipe pipe, uint32_t buf) const
    {
        if (!ascendopt_twin::rt::g_trace_on) return;
        ascendopt_twin::rt::TraceRec r;
        r.op = name; r.pipe = pipe; r.queue = qid_; r.buf = buf; r.bytes = len_; r.file = op.file; r.line = op.line;
        ascendopt_twin::rt::Trace(r);
    }
    int16_t qid_ = -1;
    int num_ = 0;
    uint32_t len_ = 0;
    uint32_t off_[kMaxSlots] = {};
    uint8_t state_[kMaxSlots] = {};
    bool hasFree_[kMaxSlots] = {};
    ascendopt_twin::rt::Clock freeClock_[kMaxSlots] = {};
    ascendopt_twin::rt::Clock enqClock_[kMaxSlots] = {};
    int8_t fifo_[kMaxSlots] = {};
    int head_ = 0, count_ = 0, next_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {
};

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    static_assert(twin_detail::SpaceOfPos(pos) != ascendopt_twin::rt::SP_NUM,
                  "the CPU twin supports the TBuf positions VECIN/VECOUT/VECCALC, A1/B1/C1, A2, B2, C2 and CO1");
    TBuf() = default;
    template <typename T> LocalTensor<T> Get(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        Check(loc);
        return twin_detail::Access::Make<T>(off_, len_ / static_cast<uint32_t>(sizeof(T)), ascendopt_twin::rt::UbBuf{off_, off_ + len_}, -1, pos);
    }
    template <typename T> LocalTensor<T> Get(uint32_t len, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        Check(loc);
        if (static_cast<uint64_t>(len) * sizeof(T) > len_)
            ascendopt_twin::rt::Report("local_out_of_bounds", true, loc.file, loc.line,
                                       "TBuf::Get<%s>(%u) asks for %llu B but the buffer has %u B",
                                       ascendopt_twin::DTypeName<T>::value, len,
                                       static_cast<unsigned long long>(len) * sizeof(T), len_);
        return twin_detail::Access::Make<T>(off_, len, ascendopt_twin::rt::UbBuf{off_, off_ + len_}, -1, pos);
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        Check(loc);
        if (bufOffset + static_cast<uint64_t>(size) * sizeof(T) > len_)
            ascendopt_twin::rt::Report("local_out_of_bounds", true, loc.file, loc.line,
                                       "TBuf::GetWithOffset(%u elements at byte %u) exceeds the buffer of %u B", size, bufOffset, len_);
        return twin_detail::Access::Make<T>(off_ + bufOffset, size, ascendopt_twin::rt::UbBuf{off_, off_ + len_}, -1, pos);
    }
    // The official TBuf's AllocTensor is its Get(): the whole buffer, nothing taken from a queue.
    template <typename T> LocalTensor<T> AllocTensor(ascendopt_twin::Loc loc = ascendopt_twin::Loc()) { return Get<T>(loc); }
    // A TBuf's memory stays its own until the TPipe goes (the official TBuf shares TQueBind's FreeTensor, which has
    // nothing to give back here): accepted, and checked to name a tensor of this buffer.
    template <typename T> void FreeTensor(LocalTensor<T> &tensor, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        Check(loc);
        const uint32_t at = twin_detail::Access::Off(tensor);
        if (at < off_ || at >= off_ + len_)
            ascendopt_twin::rt::Report("queue_misuse", true, loc.file, loc.line,
                                       "TBuf::FreeTensor of a tensor at UB offset %u that this buffer (%u..%u) did not give out",
                                       at, off_, off_ + len_);
    }

private:
    friend struct twin_detail::Access;
    void TwinInit(uint32_t base, uint32_t len) { off_ = base; len_ = (len + 31u) / 32u * 32u; init_ = true; }  // as TQue's
    void Check(const ascendopt_twin::Loc &loc) const
    {
        if (!init_) ascendopt_twin::rt::Fatal("queue_not_initialized", loc.file, loc.line, "TBuf::Get on a buffer that was never given memory with TPipe::InitBuffer");
    }
    uint32_t off_ = 0, len_ = 0;
    bool init_ = false;
};

class TPipe {
public:
    TPipe() { ascendopt_twin::rt::PipeInit(this); }
    ~TPipe() { ascendopt_twin::rt::PipeGone(this); }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;

    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask> &que, uint8_t num, uint32_t len, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        uint32_t aligned = (len + 31u) / 32u * 32u;
        constexpr auto sp = twin_detail::SpaceOfPos(src == TPosition::GM ? dst : src);
        uint32_t base = ascendopt_twin::rt::PipeAllocIn(sp, cursor_[sp], aligned * num, loc, "TQue");
        twin_detail::Access::InitQue(que, base, num, len);
        TraceInit(loc, twin_detail::Access::QueId(que), base, aligned * num);
        return true;
    }
    template <TPosition pos> bool InitBuffer(TBuf<pos> &buf, uint32_t len, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        uint32_t aligned = (len + 31u) / 32u * 32u;
        constexpr auto sp = twin_detail::SpaceOfPos(pos);
        uint32_t base = ascendopt_twin::rt::PipeAllocIn(sp, cursor_[sp], aligned, loc, "TBuf");
        twin_detail::Access::InitBuf(buf, base, len);
        TraceInit(loc, -1, base, aligned);
        return true;
    }
    void Reset() { Clear(); }
    void Destroy() { Clear(); }
    void Init() { Clear(); }
    TEventID FetchEventID(HardEvent evt) { return static_cast<TEventID>(nextEvent_[static_cast<int>(evt)]++ % 8); }
    template <HardEvent evt> TEventID FetchEventID() { return FetchEventID(evt); }
    template <HardEvent evt> TEventID AllocEventID() { return FetchEventID(evt); }
    template <HardEvent evt> void ReleaseEventID(TEventID) {}

private:
    friend struct twin_detail::Access;
    void TraceInit(const ascendopt_twin::Loc &loc, int qid, uint32_t base, uint32_t bytes)
    {
        if (!ascendopt_twin::rt::g_trace_on) return;
        ascendopt_twin::rt::TraceRec r;
        r.op = "InitBuffer"; r.pipe = ascendopt_twin::P_S; r.queue = qid; r.buf = base; r.bytes = bytes; r.file = loc.file; r.line = loc.line;
        ascendopt_twin::rt::Trace(r);
    }
    void Clear()
    {
        for (uint32_t &c : cursor_) c = 0;
    }
    uint32_t cursor_[ascendopt_twin::rt::SP_NUM] = {};  // bytes handed out in each local memory (UB first)
    uint8_t nextEvent_[static_cast<int>(HardEvent::MAX)] = {};
};

inline TPipe *GetTPipePtr() { return static_cast<TPipe *>(ascendopt_twin::rt::g_blk->tpipe); }

// PopStackBuffer (docs): the whole of the UB the current TPipe has not handed out, as one tensor at `pos`;
// false when there is no TPipe. The UB's last 64 B are not in it: on A2 they are kept for the kernel's
// message area (GetEndAddress on dav-c220). Nothing records the space as taken, as on the NPU: a later
// InitBuffer may overlap it (the docs forbid mixing it with the APIs that use it).
template <typename T, TPosition pos> inline bool PopStackBuffer(LocalTensor<T> &popLocal)
{
    static_assert(twin_detail::IsVectorPos(pos), "PopStackBuffer: the CPU twin has only the vector core's UB positions (VECIN/VECOUT/VECCALC/LCM)");
    TPipe *pipe = GetTPipePtr();
    if (pipe == nullptr) return false;
    constexpr uint32_t kReserved = 64;
    const uint32_t ub = ascendopt_twin::rt::g_blk->ubSize, end = ub > kReserved ? ub - kReserved : 0;
    const uint32_t used = (twin_detail::Access::UsedBytes(*pipe) + 31u) / 32u * 32u;
    if (used >= end) return false;
    popLocal = twin_detail::Access::Make<T>(used, (end - used) / static_cast<uint32_t>(sizeof(T)), ascendopt_twin::rt::UbBuf{used, end}, -1, pos);
    ascendopt_twin::rt::PipeNoteHighWater(end);
    return true;
}

// ---- synchronisation ----
template <HardEvent event> inline void SetFlag(int32_t eventID, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::EventSrc(event) != ascendopt_twin::P_NONE, "SetFlag: not a HardEvent");
    ascendopt_twin::rt::SetFlagEv(static_cast<int>(event), eventID, twin_detail::EventSrc(event), loc, twin_detail::EventName(event));
}
template <HardEvent event> inline void WaitFlag(int32_t eventID, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::EventDst(event) != ascendopt_twin::P_NONE, "WaitFlag: not a HardEvent");
    ascendopt_twin::rt::WaitFlagEv(static_cast<int>(event), eventID, twin_detail::EventDst(event), loc, twin_detail::EventName(event));
}
template <pipe_t pipe> inline void PipeBarrier(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    static_assert(twin_detail::PipeOf(pipe) != ascendopt_twin::P_NONE,
                  "PipeBarrier: only PIPE_V, PIPE_MTE1/2/3, PIPE_M, PIPE_FIX and PIPE_ALL are supported by the CPU twin");
    static_assert(pipe != PIPE_S, "PipeBarrier does not support PIPE_S (scalar ordering is guaranteed by hardware)");
    using namespace ascendopt_twin;
    rt::Op op = rt::Begin(P_S, "PipeBarrier", loc);
    if (rt::g_trace_on) {
        rt::TraceRec r;
        r.op = "PipeBarrier"; r.pipe = twin_detail::PipeOf(pipe); r.file = loc.file; r.line = loc.line;
        rt::Trace(r);
    }
    (void)op;
    rt::Barrier(twin_detail::PipeOf(pipe));
}

template <pipe_t src, pipe_t dst> class TQueSync {
public:
    void SetFlag(TEventID id, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        ascendopt_twin::rt::SetFlagEv(Code(), id, twin_detail::PipeOf(src), loc, "TQueSync");
    }
    void WaitFlag(TEventID id, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
    {
        ascendopt_twin::rt::WaitFlagEv(Code(), id, twin_detail::PipeOf(dst), loc, "TQueSync");
    }

private:
    static int Code() { return 1000 + static_cast<int>(src) * 16 + static_cast<int>(dst); }
};

template <bool isAIVOnly = true> inline void SyncAll(ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::SyncAllBlocks(loc);
}
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t> &, const LocalTensor<int32_t> &, const int32_t = 0,
                    ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::SyncAllBlocks(loc);
}


// ---- DMA atomics (apply to UB->GM copies of this block) ----
namespace twin_detail {
template <typename T> inline void SetAtomic(int mode)
{
    ascendopt_twin::rt::g_blk->atomicMode = mode;
    ascendopt_twin::rt::g_blk->atomicType = ascendopt_twin::DTypeName<T>::value;
}
}  // namespace twin_detail
template <typename T> inline void SetAtomicAdd()
{
    static_assert(IsSameType<T, float>::value || IsSameType<T, half>::value || IsSameType<T, int16_t>::value ||
                      IsSameType<T, int32_t>::value || IsSameType<T, int8_t>::value || IsSameType<T, bfloat16_t>::value,
                  "SetAtomicAdd: unsupported type");
    twin_detail::SetAtomic<T>(1);
}
template <typename T> inline void SetAtomicMax() { twin_detail::SetAtomic<T>(2); }
template <typename T> inline void SetAtomicMin() { twin_detail::SetAtomic<T>(3); }
inline void SetAtomicNone() { ascendopt_twin::rt::g_blk->atomicMode = 0; }
inline void DisableDmaAtomic() { ascendopt_twin::rt::g_blk->atomicMode = 0; }

}  // namespace AscendC

// Bisheng intrinsics some kernels still call directly.
inline void pipe_barrier(pipe_t pipe, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    using namespace ascendopt_twin;
    if (pipe == PIPE_ALL) rt::Barrier(P_ALL);
    else if (AscendC::twin_detail::PipeOf(pipe) != P_NONE && pipe != PIPE_S) rt::Barrier(AscendC::twin_detail::PipeOf(pipe));
    (void)loc;
}

namespace AscendC {
namespace twin_detail {
// The HardEvent a (source pipe, destination pipe) pair names, so set_flag and WaitFlag<HardEvent>
// meet; a pair no HardEvent names gets a code of its own (as TQueSync's).
inline int EventCode(pipe_t src, pipe_t dst)
{
    for (int e = 0; e < static_cast<int>(HardEvent::MAX); ++e) {
        const HardEvent h = static_cast<HardEvent>(e);
        if (EventSrc(h) == PipeOf(src) && EventDst(h) == PipeOf(dst) && EventSrc(h) != ascendopt_twin::P_NONE) {
            return e;
        }
    }
    return 1000 + static_cast<int>(src) * 16 + static_cast<int>(dst);
}
}  // namespace twin_detail
}  // namespace AscendC

inline void set_flag(pipe_t src, pipe_t dst, int32_t eventID, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::SetFlagEv(AscendC::twin_detail::EventCode(src, dst), eventID,
                                  AscendC::twin_detail::PipeOf(src), loc, "set_flag");
}
inline void wait_flag(pipe_t src, pipe_t dst, int32_t eventID, ascendopt_twin::Loc loc = ascendopt_twin::Loc())
{
    ascendopt_twin::rt::WaitFlagEv(AscendC::twin_detail::EventCode(src, dst), eventID,
                                   AscendC::twin_detail::PipeOf(dst), loc, "wait_flag");
}
// Kernels outside namespace AscendC call GetTPipePtr() unqualified (DeepNormGrad's safe_data_copy.h), as CANN allows.
using AscendC::GetTPipePtr;
inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
// block_idx / block_num: the CCE globals older kernels read (`if (block_idx < n)`); objects that give the
// running block's index and the launch's block count wherever they are converted to a number.
namespace ascendopt_twin {
struct BlockIdxVar { operator int64_t() const { return AscendC::GetBlockIdx(); } };
struct BlockNumVar { operator int64_t() const { return AscendC::GetBlockNum(); } };
}  // namespace ascendopt_twin
inline constexpr ascendopt_twin::BlockIdxVar block_idx{};
inline constexpr ascendopt_twin::BlockNumVar block_num{};

#endif
