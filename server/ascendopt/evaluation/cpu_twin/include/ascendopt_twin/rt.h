// AscendOptimizer CPU twin: interface between the kernel-side headers and the runtime (runtime/*.cpp).
#ifndef ASCENDOPT_TWIN_RT_H
#define ASCENDOPT_TWIN_RT_H

#include "ascendopt_twin/base.h"

namespace ascendopt_twin {
namespace rt {

// State of the block that currently runs (only one block runs at a time).
struct BlockPublic {
    uint8_t *ub = nullptr;   // this block's Unified Buffer
    uint32_t ubSize = 0;
    int64_t idx = 0;
    int64_t num = 1;
    void *tpipe = nullptr;   // most recently constructed TPipe (GetTPipePtr)
    uint64_t tilingKey = 0;
    uint32_t tilingSize = 0; // bytes of raw tiling data
    int atomicMode = 0;      // 0 none, 1 add, 2 max, 3 min
    const char *atomicType = nullptr;
    // Vector mask register (SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask), read by isSetMask=false ops.
    bool maskCounter = false;
    uint64_t maskLo = ~0ull;
    uint64_t maskHi = ~0ull;
    uint64_t calls = 0;      // API calls issued by this block (GetSystemCycle)
    // DEQSCALE register (SetDeqScale(half)): the scale of the int32 -> half Cast. Unset at block start.
    float deqScale = 0.0f;
    bool deqScaleSet = false;
    // SetSysWorkspace's pointer (the launch's workspace, whose first RESERVED_WORKSPACE bytes are the
    // system's), read back by GetSysWorkSpacePtr; unset at block start, as on the NPU before the call.
    uint8_t *sysWorkspace = nullptr;
    // Reduction result registers, raw bits of the instruction's type in the low bytes: ACC_VAL (count-form
    // ReduceSum, vcadd's accumulate mode; read by GetAccVal) and the value and index of the last
    // WholeReduceMax/Min or ReduceMax/Min (read by GetReduceMaxMinCount). Zero at block start.
    uint64_t accVal = 0;
    uint64_t maxMinVal = 0;
    uint64_t maxMinIdx = 0;
    // The VA address registers VA0..VA7 (set_va_reg_sb), eight UB addresses each, read by scatter_vnchwconv;
    // vaSet: bit r set once VAr was written in this block.
    uint64_t va[8][8] = {};
    uint8_t vaSet = 0;
    // The core this is (findings, races, hazards, trace): the block index in a vector- or cube-only launch; in a
    // mixed launch (KERNEL_TYPE_MIX_AIC_1_2: each block one cube core and two vector cores) 3 * block + k, k 0 for
    // the AIC, 1 and 2 for the AIVs. `kind`: 0 a core of a one-kind launch, 1 the AIC and 2 an AIV of a mixed one;
    // `sub`: the AIV's index in its block (GetSubBlockIdx).
    int64_t core = 0;
    int kind = 0;
    int64_t sub = 0;
};
extern BlockPublic *g_blk;
extern bool g_trace_on;

// One API call ("instruction") on a pipe. Begin() advances the pipe's epoch.
struct Op {
    const char *name;
    const char *file;
    int line;
    uint8_t pipe;
    uint32_t epoch;
    uint32_t loc;  // interned (name, file, line)
};
Op Begin(Pipe pipe, const char *name, const Loc &loc);

// Buffer identity for bounds checks: [lo, hi) in UB bytes of the TQue slot / TBuf the tensor came from.
struct UbBuf {
    uint32_t lo;
    uint32_t hi;
};

// UB access by op: checks bounds, pipe hazards, uninitialized reads, then records it.
// Returns false when the range leaves the UB entirely (the caller must skip the access).
bool Ub(const Op &op, uint32_t off, uint64_t len, bool write, const UbBuf &buf, const char *what);
// The bytes [off, off + len) lie in the arena, were written before and already equal `data`: a copy that stores them
// again changes nothing any pipe can see, so it is no hazard (Catlass reloads the same bias into the bias table
// while the previous Mmad may still read it).
bool UbHolds(uint32_t off, uint64_t len, const void *data);
// Marks UB bytes as holding undefined values (written by hardware with unspecified content).
void UbUndefined(uint32_t off, uint64_t len);
// GM access by op. declaredLo/Hi: range given to SetGlobalBuffer (nullptr when unknown).
// data: the bytes a plain (non-atomic) write is about to store, when the caller knows them: another block's write
// of exactly these bytes in the same phase is no race (whichever lands last, memory ends the same).
// Returns false when the range is outside every GM allocation (the caller must skip the access).
bool Gm(const Op &op, const void *p, uint64_t len, bool write, const void *declLo, const void *declHi,
        const char *what, const void *data = nullptr);
// The same check; returns how many bytes from p the access may move (the NPU moves bytes that fall inside the
// allocation's padding past the end of a tensor; 0 = skip it).
uint64_t GmSpan(const Op &op, const void *p, uint64_t len, bool write, const void *declLo, const void *declHi, const char *what,
                const void *data = nullptr);

// Findings (deduplicated by kind, file, line).
void Report(const char *kind, bool error, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
[[noreturn]] void Fatal(const char *kind, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
inline void Report(const char *kind, bool error, const Loc &l, const char *msg) { Report(kind, error, l.file, l.line, "%s", msg); }

// Trace record; pass -1 (or nullptr) for fields that do not apply.
struct TraceRec {
    const char *op = nullptr;
    uint8_t pipe = P_NONE;
    const char *dtype = nullptr;
    int64_t n = -1;
    int64_t bytes = -1;
    int64_t repeat = -1;
    int64_t mask = -1;
    int64_t queue = -1;
    int64_t buf = -1;
    int64_t event = -1;
    const char *file = nullptr;
    int line = 0;
};
void Trace(const TraceRec &r);
inline void TraceOp(const Op &op, const char *dtype, int64_t n, int64_t bytes, int64_t repeat = -1,
                    int64_t mask = -1, int64_t buf = -1)
{
    if (!g_trace_on) return;
    TraceRec r;
    r.op = op.name; r.pipe = op.pipe; r.dtype = dtype; r.n = n; r.bytes = bytes; r.repeat = repeat;
    r.mask = mask; r.buf = buf; r.file = op.file; r.line = op.line;
    Trace(r);
}

// Synchronisation model (vector clocks per pipe).
struct Clock {
    uint32_t c[P_NUM];
};
Clock Release(Pipe p);                 // clock of pipe p including all its issued ops (SetFlag/EnQue/FreeTensor)
void Acquire(Pipe p, const Clock &k);  // pipe p now knows k (WaitFlag/DeQue/AllocTensor)
void Barrier(Pipe p);                  // PipeBarrier<p>; P_ALL for PIPE_ALL
void SetFlagEv(int event, int id, Pipe src, const Loc &loc, const char *name);
void WaitFlagEv(int event, int id, Pipe dst, const Loc &loc, const char *name);
void SyncAllBlocks(const Loc &loc);
void PipeInit(void *pipe);
void PipeGone(void *pipe);
// TPipe buffer accounting: returns UB offset of a new buffer of len bytes (32 B aligned).
uint32_t PipeAlloc(uint32_t &cursor, uint32_t len, const Loc &loc, const char *what);
void PipeNoteHighWater(uint32_t bytes);

// The cube core's local memories (910B, Atlas A2: L1 512 KB, L0A/L0B 64 KB, L0C 128 KB, bias table 1 KB) sit after
// the UB in the block's one byte arena, so a LocalTensor is an offset into it wherever it lives and bounds, hazards
// and unwritten-byte reads are checked alike. The arena grows to hold them on first use (a vector kernel never pays).
enum Space : uint8_t { SP_UB = 0, SP_L1, SP_L0A, SP_L0B, SP_L0C, SP_BT, SP_NUM };
struct SpaceInfo {
    const char *name;  // "UB", "L1", ...
    uint32_t base;     // arena offset of its byte 0
    uint32_t size;
};
SpaceInfo SpaceOf(Space sp);
// Buffer accounting for TPipe::InitBuffer in `sp` (cursor relative to the space); returns the arena offset.
uint32_t PipeAllocIn(Space sp, uint32_t &cursor, uint32_t len, const Loc &loc, const char *what);
// Mmad / Fixpipe unit flags (docs: unitFlag 0b10 "more to come", 0b11 "last"): the hardware's fine-grained
// M -> FIX hand-over of L0C in place of SetFlag/WaitFlag<M_FIX> (and FIX -> M for the next accumulation).
void UnitFlagMmad(uint8_t flag, const Loc &loc);
void UnitFlagFixpipe(uint8_t flag, const Loc &loc);
// The kernel was compiled for the cube core (AIC): set once by its translation unit (kernel_misc.h).
bool SetCubeKernel();
// The current core is a cube core (AIC): a cube-only build, or the AIC of a mixed launch.
bool OnCubeCore();

// Tiling data for GET_TILING_DATA.
void LoadTiling(void *dst, size_t size, const uint8_t *tiling, const char *type, const char *file, int line);
// Pipe of a UB->UB DataCopy.
constexpr Pipe kUbToUbPipe = P_V;

inline uint8_t *UbPtr(uint32_t off) { return g_blk->ub + off; }

// Repeat-form (mask/repeatTime/strides) vector instruction description.
struct Mask {
    bool bits = false;   // true: bit mask m[2]; false: continuous mode (first cnt lanes)
    uint64_t cnt = 0;
    uint64_t m[2] = {0, 0};
    bool reg = false;      // read from the mask register (isSetMask=false): lanes beyond the type's count are ignored
    uint64_t counter = 0;  // > 0: counter mode (SetMaskCount): `counter` elements in all, repeatTime ignored
    bool On(uint32_t lane) const
    {
        if (!bits) return lane < cnt;
        return lane < 64 ? ((m[0] >> lane) & 1u) != 0 : lane < 128 ? ((m[1] >> (lane - 64)) & 1u) != 0 : false;
    }
    // Lane `lane` of repeat `r` (of `lanes` lanes) takes part.
    bool At(uint32_t r, uint32_t lane, uint32_t lanes) const
    {
        if (counter) return static_cast<uint64_t>(r) * lanes + lane < counter;
        return On(lane);
    }
    // Repeats the instruction runs: in counter mode derived from the element count (the docs: repeatTime is ignored).
    uint32_t Repeats(uint32_t repeat, uint32_t lanes) const
    {
        return counter ? static_cast<uint32_t>((counter + lanes - 1) / lanes) : repeat;
    }
};
struct Opnd {
    uint32_t off;      // UB byte offset of the operand
    UbBuf buf;
    uint32_t esz;      // element size in bytes
    uint32_t blk;      // block stride (32 B units)
    uint32_t rep;      // repeat stride (32 B units)
    bool write;
    const char *what;
};
inline uint32_t LaneOff(const Opnd &o, uint32_t r, uint32_t lane)
{
    uint32_t b = lane * o.esz;
    return o.off + (r * o.rep + (b / 32u) * o.blk) * 32u + b % 32u;
}
// Validates the mask for `lanes` lanes (reports bad_mask) and records every operand's accesses.
// Returns false when an access leaves the UB (the instruction must then be skipped).
bool CheckRepeat(const Op &op, const Opnd *ops, int nops, uint32_t lanes, uint32_t repeat, Mask &mask);
// Counter-mode (count form) operand check: contiguous bytes, 32 B alignment of the start.
bool CheckCount(const Op &op, uint32_t off, uint64_t bytes, bool write, const UbBuf &buf, const char *what, uint32_t align = 32);

}  // namespace rt
}  // namespace ascendopt_twin
#endif
