// AscendOptimizer CPU twin: runtime-internal state shared by the runtime .cpp files.
#ifndef ASCENDOPT_TWIN_INTERNAL_H
#define ASCENDOPT_TWIN_INTERNAL_H

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ascendopt_twin/rt.h"

namespace ascendopt_twin {
namespace rt {

// Shadow state of one 32 B granule (UB or GM): last writer and last reader per pipe.
struct Gran {
    uint32_t wEpoch = 0;
    uint32_t wLoc = 0;
    uint32_t rEpoch[P_NUM] = {};
    uint32_t rLoc[P_NUM] = {};
    uint8_t wPipe = P_NONE;
    bool wAtomic = false;  // last write was a DMA-atomic UB->GM copy
    // Bytes of the granule the last writer's pipe and each reader touched (GM: DMA moves exact bytes, so accesses
    // that only share a 32 B granule do not depend on each other; UB writes keep whole granules, UB reads their
    // bytes, which a deferred WAR compares).
    uint32_t wMask = ~0u;
    uint32_t rMask[P_NUM] = {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u};
};
struct GmGran {
    int32_t block = -1;
    Gran g;
};

struct EventState {
    int count = 0;
    Clock clk{};
};

// A WAR hazard in the UB waiting for its writer's bytes (rt::Touch, FlushDeferredWar): the reader's bytes of
// granule `gran` as they were before the write.
struct DeferredWar {
    Op op;
    uint8_t reader;
    uint32_t readerLoc;
    uint32_t mask;
    const char *space;
    uint64_t off, len;
    const char *what;
    uint64_t gran;
    uint8_t old[32];
};

struct BlockState {
    BlockPublic pub;
    std::vector<uint8_t> ub;
    std::vector<uint8_t> init;   // 1 = byte written since InitBuffer
    std::vector<Gran> gran;      // UB hazard shadow, one per 32 B
    uint32_t issued[P_NUM] = {};
    uint32_t known[P_NUM][P_NUM] = {};  // known[p][q]: epochs of pipe q known complete by pipe p
    std::unordered_map<int, EventState> events;
    uint32_t ubHigh = 0;
    // The first InitBuffer that placed a buffer past the UB's end (allowed until an access reaches past it).
    Loc ubOverAt{nullptr, 0};
    std::vector<DeferredWar> deferredWar;  // of the op that ran last
    // Unit-flag hand-overs (rt::UnitFlagMmad/UnitFlagFixpipe): the M pipe's clock at its last 0b11 Mmad, the FIX
    // pipe's at the Fixpipe that consumed it.
    Clock unitM{}, unitFix{};
    bool unitMSet = false;
    int16_t nextQueue = 0;
    bool aborted = false;
    uint32_t sliceEpoch = 1;  // a mixed launch's core: its epoch when its current slice began (RawGmSweep)
};

// The owner field of a written-byte tag when several blocks stored identical bytes there in one phase.
constexpr uint32_t kGmSharedWriter = 0xFFFFu;
// "block N" or "several blocks" for a written-byte tag.
void GmWriterName(uint32_t tag, char *out, size_t n);

// The raw-store sweep's unit: a chunk of a GM buffer, and its keyed digest (runtime/gm_digest.cpp), which
// tells whether any byte of the chunk changed since the last hand-over without keeping two streams in step.
constexpr uint64_t kGmChunk = 4096;
struct GmDigest {
    uint64_t s[2] = {0, 0};
    bool operator==(const GmDigest &o) const { return s[0] == o.s[0] && s[1] == o.s[1]; }
};
class GmDigester {
public:
    GmDigester();  // draws the run's keys
    GmDigest operator()(const uint8_t *p, size_t n) const;

private:
    std::vector<uint32_t> keys_;
    bool avx2_ = false;
};

struct GmBuf {
    std::string name;
    uint8_t *base = nullptr;
    uint64_t size = 0;      // bytes the kernel may use
    uint64_t alloc = 0;     // bytes allocated
    int kind = 0;           // 0 input, 1 output, 2 workspace, 3 tiling, 4 AscendC::GmAlloc (CPU-debug host program)
    std::vector<uint32_t> wtag;   // per byte: (phase << 17) | (atomic << 16) | (block + 1); outputs & workspace
    std::vector<GmGran> gran;     // hazard shadow, lazily sized
    bool inputWriteReported = false;
    uint8_t fill = 0;             // what the allocation was filled with (outputs: the 0xFF poison)
    uint32_t esize = 1;           // element size when known (the runner's tensors), for raw-store counts
    std::vector<uint8_t> seen;    // the bytes as the last hand-over left them (raw-store sweep)
    std::vector<GmDigest> digest; // per kGmChunk of `seen`
    uint64_t rawBytes = 0;        // bytes found written through a raw pointer over the run
};

struct LocInfo {
    const char *op;
    const char *file;
    int line;
};

struct Finding {
    std::string kind;
    bool error;
    std::string message;
    std::string file;
    int line;
    int64_t block;
    int64_t count;
};

struct Global {
    std::vector<GmBuf> gm;
    std::vector<LocInfo> locs;
    std::map<std::tuple<std::string, std::string, int>, size_t> findingIndex;
    std::vector<Finding> findings;
    std::unordered_map<const char *, std::string> relFiles;
    std::unordered_map<const char *, std::string> traceFiles;  // call-site file -> its trace JSON text
    std::string sourceRoot;
    bool autoSync = true;
    uint32_t phase = 0;
    uint32_t ubSize = 196608;
    bool traceOn = false;  // tracing this run (to the evidence, or to `trace` by hand)
    FILE *trace = nullptr;
    std::string tracePath;
    std::string traceBuf;
    LocInfo lastOp{nullptr, nullptr, 0};
    int64_t lastBlock = -1;
    uint32_t ubHighMax = 0;
    uint64_t divideValue = 0;  // what an integer division by zero gives (manifest `divide_value`)
    void (*syncAllHook)(const Loc &) = nullptr;
    // A mixed launch (runtime/scheduler.cpp): its cores order their GM accesses by vector clocks, not by the
    // launch-wide phase alone. ep[c]: core c's epoch (bumped by each of its cross-core sets; its GM writes are
    // tagged with it); seen[c][d]: the writes of core d with an epoch below it happen before core c's next access.
    bool mix = false;
    std::vector<uint32_t> ep;
    std::vector<std::vector<uint32_t>> seen;
    std::unique_ptr<GmDigester> digester;  // made by the first RawGmSnapshot
};
extern Global G;
extern BlockState *g_cur;

const std::string &RelFile(const char *file);
// Evidence (runtime/evidence.cpp): outputs, findings, trace and result, to the parent's descriptor or to files.
bool EvidenceToFd();
void Deliver(const std::string &name, const std::string &path, const void *data, size_t n);
void TraceOpen(const std::string &path);
void TraceFlush();
// Traps the system calls no kernel or tiling program makes (runtime/syscall_guard.cpp); one
// trapped ends the run with kForbiddenExit after naming the call on stderr.
constexpr int kForbiddenExit = 159;
void GuardSyscalls();
// Ends the evidence and the process (_exit): nothing the candidate registered runs after it.
[[noreturn]] void Seal(int code);
void InitBlockState(BlockState &b, int64_t idx, int64_t num, uint32_t ubSize, uint64_t tilingKey, uint32_t tilingSize);
// Reports the deferred WAR hazards of the op that ran last whose writes changed bytes their reader read.
void FlushDeferredWar();
GmBuf *FindGm(const void *p);
// Stores through a raw `__gm__ T *` (a cast GM_ADDR, GetPhyAddr()) bypass every API the twin checks. Blocks run
// one at a time, so the bytes a block's slice (its run up to a hand-over: SyncAll or its end) changed that no API
// of that slice recorded were stored through a raw pointer: RawGmSnapshot copies every buffer when a launch
// starts, RawGmSweep (at each hand-over, for g_cur) compares, marks those bytes written by the block (races, the
// padding and beyond it, inputs checked as for an API write) and traces them as S-pipe scalar stores.
void RawGmSnapshot();
void RawGmSweep();
void RawGmEnd();
// Device allocations are padded like aclrtMalloc's: size rounded up to 32 B, plus 32 B.
constexpr uint64_t kGmPadding = 32;
uint64_t GmPadded(uint64_t size);
// A registered GM buffer of `size` usable bytes (plus padding), filled with `fill`; nullptr when out of memory.
uint8_t *GmAllocate(const std::string &name, uint64_t size, int kind, uint8_t fill);
bool GmRelease(void *p);
void WriteFindings(const std::string &path);  // delivers findings.jsonl
// "SIGSEGV in block 3 after DataCopy at op_kernel/x.cpp:40 (…)" for a signal caught while a kernel ran.
void CrashMessage(int sig, char *buf, size_t size);
// SIGFPE: an integer division by zero in a kernel is carried on with G.divideValue as its result (a warning naming
// the last twin call); any other SIGFPE goes to `crash`.
void CatchArithmetic(void (*crash)(int));
// Runs `body` once per block 0..n-1 (SyncAll-aware); returns the number of blocks stopped by a fatal finding.
// With `aic` (a mixed kernel), each block is one cube core running `aic` and two vector cores running `body`.
int RunBlocks(int n, const std::function<void()> &body, uint32_t ubSize, uint64_t key, uint32_t tilingSize,
              const std::function<void()> &aic = nullptr);
// GM write tags (GmBuf::wtag): the epoch a write by the current core is tagged with, and whether another core's
// write tagged `tag` happens before the current core's accesses (not a race).
uint32_t TagEpoch();
bool Ordered(uint32_t tag);
void JsonEscape(std::string &out, const std::string &s);

}  // namespace rt

namespace cpu {
// The CPU-debug session (runtime/cpu_debug.cpp): configured from the environment once; concluded
// (outputs, findings, result delivered, then _exit) when main.cpp's main returns or calls exit().
void Init();
[[noreturn]] void Conclude(int code);
}  // namespace cpu
}  // namespace ascendopt_twin
#endif
