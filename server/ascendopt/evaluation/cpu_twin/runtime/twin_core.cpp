// AscendOptimizer CPU twin: sanitizer core (UB/GM shadow state, pipe vector clocks, findings, trace).
#include <algorithm>
#include <csignal>
#include <ucontext.h>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "ascendopt_twin/vec_vconv.h"
#include "twin_internal.h"

namespace ascendopt_twin {
namespace rt {

BlockPublic *g_blk = nullptr;
bool g_trace_on = false;
Global G;
BlockState *g_cur = nullptr;

static const char *kPipeName[] = {"S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX", "NUM", "ALL", "NONE"};
static const char *PipeName(uint8_t p) { return p <= P_NONE ? kPipeName[p] : "?"; }

// ------------------------------------------------------------------ files, locations
const std::string &RelFile(const char *file)
{
    if (file == nullptr) {
        static const std::string empty;
        return empty;
    }
    auto it = G.relFiles.find(file);
    if (it != G.relFiles.end()) return it->second;
    std::string f(file);
    const std::string &root = G.sourceRoot;
    if (!root.empty()) {
        std::string r = root;
        if (r.back() != '/') r += '/';
        if (f.compare(0, r.size(), r) == 0) f = f.substr(r.size());
    }
    while (f.compare(0, 2, "./") == 0) f = f.substr(2);
    return G.relFiles.emplace(file, f).first->second;
}

static uint32_t InternLoc(const char *op, const char *file, int line)
{
    struct Slot {
        const char *op, *file;
        int line;
        uint32_t id;
    };
    static Slot cache[1024];
    static std::unordered_map<std::string, uint32_t> *byKey = new std::unordered_map<std::string, uint32_t>();
    size_t h = (reinterpret_cast<uintptr_t>(op) * 31u + reinterpret_cast<uintptr_t>(file) * 17u + static_cast<size_t>(line)) & 1023u;
    Slot &s = cache[h];
    if (s.op == op && s.file == file && s.line == line && s.op != nullptr) return s.id;
    char key[64];
    std::snprintf(key, sizeof key, "%p|%p|%d", static_cast<const void *>(op), static_cast<const void *>(file), line);
    auto it = byKey->find(key);
    uint32_t id;
    if (it == byKey->end()) {
        id = static_cast<uint32_t>(G.locs.size());
        G.locs.push_back(LocInfo{op, file, line});
        byKey->emplace(key, id);
    } else {
        id = it->second;
    }
    s = Slot{op, file, line, id};
    return id;
}

// ------------------------------------------------------------------ findings
static void AddFinding(const char *kind, bool error, const char *file, int line, const char *fmt, va_list ap)
{
    const std::string &rel = RelFile(file);
    auto key = std::make_tuple(std::string(kind), rel, line);
    auto it = G.findingIndex.find(key);
    if (it != G.findingIndex.end()) {
        Finding &f = G.findings[it->second];
        f.count++;
        if (error && !f.error) {  // an error outranks earlier warnings of the same kind on that line: keep its text
            char buf[1024];
            std::vsnprintf(buf, sizeof buf, fmt, ap);
            f.error = true;
            f.message = buf;
            f.block = g_cur ? g_cur->pub.core : -1;
        }
        return;
    }
    char buf[1024];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    Finding f{kind, error, buf, rel, line, g_cur ? g_cur->pub.core : -1, 1};
    G.findingIndex.emplace(key, G.findings.size());
    G.findings.push_back(f);
}

void Report(const char *kind, bool error, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    AddFinding(kind, error, file, line, fmt, ap);
    va_end(ap);
}

void Fatal(const char *kind, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    AddFinding(kind, true, file, line, fmt, ap);
    va_end(ap);
    throw BlockAbort{kind};
}

// ------------------------------------------------------------------ trace
void JsonEscape(std::string &out, const std::string &s)
{
    for (char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += c; }
        else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
        } else out += c;
    }
}

static void AppendInt(std::string &o, int64_t v)
{
    char b[24];
    int n = 0;
    bool neg = v < 0;
    uint64_t u = neg ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
    do { b[n++] = static_cast<char>('0' + u % 10); u /= 10; } while (u);
    if (neg) o += '-';
    while (n) o += b[--n];
}

void Trace(const TraceRec &r)
{
    if (!G.traceOn) return;
    std::string &o = G.traceBuf;
    o += "{\"b\":";
    AppendInt(o, g_cur ? g_cur->pub.core : -1);
    if (r.pipe <= P_ALL && r.pipe != P_NUM) { o += ",\"pipe\":\""; o += PipeName(r.pipe); o += '"'; }
    o += ",\"op\":\"";
    o += r.op ? r.op : "?";
    o += '"';
    if (r.dtype) { o += ",\"dtype\":\""; o += r.dtype; o += '"'; }
    if (r.n >= 0) { o += ",\"n\":"; AppendInt(o, r.n); }
    if (r.bytes >= 0) { o += ",\"bytes\":"; AppendInt(o, r.bytes); }
    if (r.repeat >= 0) { o += ",\"repeat\":"; AppendInt(o, r.repeat); }
    if (r.mask >= 0) { o += ",\"mask\":"; AppendInt(o, r.mask); }
    else if (r.mask == -2) o += ",\"mask\":\"bits\"";
    else if (r.mask == -3) o += ",\"mask\":\"counter\"";
    if (r.queue >= 0) { o += ",\"queue\":"; AppendInt(o, r.queue); }
    if (r.buf >= 0) { o += ",\"buf\":"; AppendInt(o, r.buf); }
    if (r.event >= 0) { o += ",\"event\":"; AppendInt(o, r.event); }
    if (r.file) {
        // The file's JSON text, escaped once per call-site file (a string literal: its address is stable).
        auto it = G.traceFiles.find(r.file);
        if (it == G.traceFiles.end()) {
            std::string text;
            JsonEscape(text, RelFile(r.file));
            it = G.traceFiles.emplace(r.file, std::move(text)).first;
        }
        o += ",\"file\":\"";
        o += it->second;
        o += "\",\"line\":";
        AppendInt(o, r.line);
    }
    o += "}\n";
    if (o.size() > (1u << 20)) TraceFlush();
}

// ------------------------------------------------------------------ pipes and clocks
Op Begin(Pipe pipe, const char *name, const Loc &loc)
{
    if (!g_cur->deferredWar.empty()) FlushDeferredWar();
    Op op;
    op.name = name;
    op.file = loc.file;
    op.line = loc.line;
    op.pipe = pipe;
    op.epoch = pipe < P_NUM ? ++g_cur->issued[pipe] : 0;
    ++g_cur->pub.calls;
    op.loc = InternLoc(name, loc.file, loc.line);
    G.lastOp = LocInfo{name, loc.file, loc.line};
    return op;
}

Clock Release(Pipe p)
{
    Clock k{};
    if (p >= P_NUM) return k;
    for (int q = 0; q < P_NUM; ++q) k.c[q] = g_cur->known[p][q];
    k.c[p] = g_cur->issued[p];
    return k;
}

void Acquire(Pipe p, const Clock &k)
{
    if (p >= P_NUM) return;
    for (int q = 0; q < P_NUM; ++q)
        if (k.c[q] > g_cur->known[p][q]) g_cur->known[p][q] = k.c[q];
}

void Barrier(Pipe p)
{
    if (p == P_ALL) {
        for (int a = 0; a < P_NUM; ++a)
            for (int q = 0; q < P_NUM; ++q) g_cur->known[a][q] = g_cur->issued[q];
    } else if (p < P_NUM) {
        g_cur->known[p][p] = g_cur->issued[p];
    }
}

static void TraceSync(const char *name, uint8_t pipe, int event, const Loc &loc, const char *evName)
{
    if (!g_trace_on) return;
    TraceRec r;
    r.op = name;
    r.pipe = pipe;
    r.event = event;
    r.file = loc.file;
    r.line = loc.line;
    Trace(r);
    // Append the HardEvent name (e.g. "MTE2_V") as "hard_event".
    if (evName && G.traceOn && !G.traceBuf.empty()) {
        std::string &o = G.traceBuf;
        o.pop_back();  // '\n'
        o.pop_back();  // '}'
        o += ",\"hard_event\":\"";
        o += evName;
        o += "\"}\n";
    }
}

void SetFlagEv(int event, int id, Pipe src, const Loc &loc, const char *name)
{
    Begin(P_S, "SetFlag", loc);
    TraceSync("SetFlag", src, id, loc, name);
    if (id < 0 || id > 7)
        Report("bad_event_id", true, loc.file, loc.line, "SetFlag<%s>(%d): event id outside 0..7", name, id);
    EventState &e = g_cur->events[event * 64 + (id & 63)];
    e.count = 1;  // a hardware flag is binary
    e.clk = Release(src);
}

void WaitFlagEv(int event, int id, Pipe dst, const Loc &loc, const char *name)
{
    Begin(P_S, "WaitFlag", loc);
    TraceSync("WaitFlag", dst, id, loc, name);
    EventState &e = g_cur->events[event * 64 + (id & 63)];
    // A destructor's WaitFlag (Catlass's ~BlockMmad) while an earlier finding stops the block: nothing to wait for,
    // and a second throw would end the process.
    if (std::uncaught_exceptions() > 0) return;
    if (e.count == 0)
        Fatal("waitflag_without_setflag", loc.file, loc.line,
              "WaitFlag<%s>(%d) with no pending SetFlag<%s>(%d); on the NPU this blocks forever", name, id, name, id);
    e.count = 0;
    Acquire(dst, e.clk);
}

void SyncAllBlocks(const Loc &loc)
{
    Begin(P_S, "SyncAll", loc);
    if (g_trace_on) {
        TraceRec r;
        r.op = "SyncAll";
        r.pipe = P_ALL;
        r.file = loc.file;
        r.line = loc.line;
        Trace(r);
    }
    Barrier(P_ALL);
    if (G.syncAllHook) G.syncAllHook(loc);
}

// ------------------------------------------------------------------ TPipe
void PipeInit(void *pipe) { g_cur->pub.tpipe = pipe; }
void PipeGone(void *pipe)
{
    if (g_cur && g_cur->pub.tpipe == pipe) g_cur->pub.tpipe = nullptr;
}

// ------------------------------------------------------------------ cube local memories
static constexpr uint32_t kSpaceSize[SP_NUM] = {0, 512u * 1024u, 64u * 1024u, 64u * 1024u, 128u * 1024u, 1024u};
static constexpr const char *kSpaceName[SP_NUM] = {"UB", "L1", "L0A", "L0B", "L0C", "bias table"};

SpaceInfo SpaceOf(Space sp)
{
    BlockState &b = *g_cur;
    if (sp == SP_UB) return SpaceInfo{kSpaceName[SP_UB], 0, b.pub.ubSize};
    uint32_t base = b.pub.ubSize;
    for (int k = SP_L1; k < sp; ++k) base += kSpaceSize[k];
    if (b.ub.size() == b.pub.ubSize) {  // first use: the arena grows by every cube memory
        uint32_t total = b.pub.ubSize;
        for (int k = SP_L1; k < SP_NUM; ++k) total += kSpaceSize[k];
        b.ub.resize(total, 0xFF);
        b.init.resize(total, 0);
        b.gran.resize((total + 31) / 32, Gran());
        b.pub.ub = b.ub.data();
    }
    return SpaceInfo{kSpaceName[sp], base, kSpaceSize[sp]};
}

static Space SpaceAt(uint64_t off)
{
    uint64_t base = g_cur->pub.ubSize;
    if (off < base) return SP_UB;
    for (int k = SP_L1; k < SP_NUM; ++k) {
        if (off < base + kSpaceSize[k]) return static_cast<Space>(k);
        base += kSpaceSize[k];
    }
    return SP_NUM;
}

// A function's static, so that the kernel's static initialiser may set it before Global G is constructed.
static bool &CubeKernel()
{
    static bool cube = false;
    return cube;
}

bool SetCubeKernel()
{
    CubeKernel() = true;
    return true;
}

bool OnCubeCore() { return g_cur && g_cur->pub.kind != 0 ? g_cur->pub.kind == 1 : CubeKernel(); }

uint32_t TagEpoch() { return G.mix ? G.ep[g_cur->pub.core] : G.phase; }

// "block 3" or, in a mixed launch, "core 7 (block 2's AIV 0)".
static std::string CoreName(int64_t core)
{
    if (!G.mix) return "block " + std::to_string(core);
    const int64_t k = core % 3;
    return "core " + std::to_string(core) + " (block " + std::to_string(core / 3) + "'s " +
           (k == 0 ? std::string("AIC") : "AIV " + std::to_string(k - 1)) + ")";
}

bool Ordered(uint32_t tag)
{
    if (!G.mix) return (tag >> 17) != G.phase;
    return (tag >> 17) < G.seen[g_cur->pub.core][(tag & 0xFFFFu) - 1];
}

void UnitFlagMmad(uint8_t flag, const Loc &loc)
{
    (void)loc;
    if ((flag & 2u) == 0) return;
    BlockState &b = *g_cur;
    Acquire(P_M, b.unitFix);  // the previous result has left L0C before this accumulation starts over
    if (flag == 3u) {
        b.unitM = Release(P_M);
        b.unitMSet = true;
    }
}

void UnitFlagFixpipe(uint8_t flag, const Loc &loc)
{
    if ((flag & 2u) == 0) return;
    BlockState &b = *g_cur;
    if (!b.unitMSet)
        Fatal("waitflag_without_setflag", loc.file, loc.line,
              "Fixpipe with unitFlag %u waits for a Mmad with unitFlag 3 on L0C, and none was issued since the last "
              "Fixpipe; on the NPU this blocks forever", static_cast<unsigned>(flag));
    Acquire(P_FIX, b.unitM);
    b.unitMSet = false;
    b.unitFix = Release(P_FIX);
}

uint32_t PipeAllocIn(Space sp, uint32_t &cursor, uint32_t len, const Loc &loc, const char *what)
{
    if (sp == SP_UB) return PipeAlloc(cursor, len, loc, what);
    const SpaceInfo s = SpaceOf(sp);
    uint64_t end = static_cast<uint64_t>(cursor) + len;
    if (end > s.size)
        Fatal("local_overflow", loc.file, loc.line,
              "TPipe::InitBuffer(%s, %u B): buffers in %s now need %llu B (32 B aligned) but the %s has %u B", what, len,
              s.name, static_cast<unsigned long long>(end), s.name, s.size);
    uint32_t at = s.base + cursor;
    cursor = static_cast<uint32_t>(end);
    std::memset(g_cur->init.data() + at, 0, len);
    return at;
}

uint32_t PipeAlloc(uint32_t &cursor, uint32_t len, const Loc &loc, const char *what)
{
    uint64_t end = static_cast<uint64_t>(cursor) + len;
    if (end > g_cur->pub.ubSize) {
        // CANN's InitBuffer checks the UB's size only in its CPU-debug build (ASCENDC_CPU_DEBUG); on the NPU it hands
        // out addresses, so a buffer placed past the UB's end harms only when an access reaches past it: that access
        // stops the block (Ub). A cube kernel's arena holds L1 after the UB, where such a buffer would alias.
        if (CubeKernel() || end > UINT32_MAX)
            Fatal("ub_overflow", loc.file, loc.line,
                  "TPipe::InitBuffer(%s, %u B): buffers now need %llu B (32 B aligned) but the UB has %u B", what, len,
                  static_cast<unsigned long long>(end), g_cur->pub.ubSize);
        if (g_cur->ubOverAt.file == nullptr) g_cur->ubOverAt = loc;
        Report("ub_overflow", false, loc.file, loc.line,
               "TPipe::InitBuffer(%s, %u B): buffers now need %llu B (32 B aligned) but the UB has %u B; the NPU's "
               "InitBuffer does not check this (CANN's CPU-debug build asserts), so it is harmless only while no access "
               "reaches past the UB's end (one that does stops the block)",
               what, len, static_cast<unsigned long long>(end), g_cur->pub.ubSize);
    }
    uint32_t base = cursor;
    cursor = static_cast<uint32_t>(end);
    if (base < g_cur->init.size()) std::memset(g_cur->init.data() + base, 0, std::min<uint64_t>(len, g_cur->init.size() - base));
    PipeNoteHighWater(cursor);
    return base;
}

void PipeNoteHighWater(uint32_t bytes)
{
    if (bytes > g_cur->ubHigh) g_cur->ubHigh = bytes;
    if (bytes > G.ubHighMax) G.ubHighMax = bytes;
}

// ------------------------------------------------------------------ hazards
static inline bool Ordered(uint8_t q, uint32_t e, uint8_t p)
{
    if (q == P_S && p == P_S) return true;  // scalar unit is in order
    if (q == p && q == P_V && G.autoSync) return true;  // bisheng --cce-auto-sync inserts PIPE_V barriers
    // The cube core's pipes run their own instructions one after another (Catlass orders MTE1 -> MTE1, M -> M and
    // FIX -> FIX on L1/L0 with no barrier); what the twin checks there is the hand-over between pipes.
    if (q == p && (q == P_MTE1 || q == P_M || q == P_FIX)) return true;
    return g_cur->known[p][q] >= e;
}

static const char *SyncHint(uint8_t from, uint8_t to)
{
    static char buf[96];
    if (from == to) {
        std::snprintf(buf, sizeof buf, "PipeBarrier<PIPE_%s>()", PipeName(from));
    } else {
        std::snprintf(buf, sizeof buf, "SetFlag/WaitFlag<HardEvent::%s_%s>%s", PipeName(from), PipeName(to),
                      ((from == P_MTE2 && to == P_V) || (from == P_V && to == P_MTE3) || (from == P_V && to == P_MTE2) ||
                       (from == P_MTE3 && to == P_V))
                          ? " or a TQue EnQue/DeQue, AllocTensor/FreeTensor hand-off"
                          : "");
    }
    return buf;
}

static void ReportHazard(const Op &op, const char *kindOfDep, uint8_t prevPipe, uint32_t prevLoc, const char *space, uint64_t off,
                         uint64_t len, const char *what)
{
    const LocInfo &pl = G.locs[prevLoc];
    bool coveredByAutoSync = G.autoSync && ((prevPipe == P_S) != (op.pipe == P_S));
    const std::string &pf = RelFile(pl.file);
    Report("pipe_hazard", !coveredByAutoSync, op.file, op.line,
           "%s (%s) %s %s bytes [%llu, %llu) (%s) %s by %s (%s) at %s:%d with no synchronisation between the pipes "
           "(%s hazard; needs %s)%s",
           op.name, PipeName(op.pipe), kindOfDep[0] == 'W' && kindOfDep[1] == 'A' ? "overwrites" : "reads", space,
           static_cast<unsigned long long>(off), static_cast<unsigned long long>(off + len), what,
           kindOfDep[0] == 'W' && kindOfDep[2] == 'R' ? "last read" : "last written", pl.op ? pl.op : "?", PipeName(prevPipe),
           pf.c_str(), pl.line, kindOfDep, SyncHint(prevPipe, op.pipe),
           coveredByAutoSync ? "; correct only because the bisheng compiler's --cce-auto-sync (on by default) inserts this sync" : "");
}

// Returns true if a hazard was reported.
// atomic: a DMA-atomic (SetAtomicAdd/Max/Min) write; two of them on the same pipe commute, so their order is no hazard.
// bytes: which bytes of the granule this access touches (bit i = byte i; UB passes all).
// ubGran: the UB (arena) granule's index; a WAR there waits for the write's bytes (FlushDeferredWar).
static inline bool Touch(const Op &op, Gran &g, bool write, bool &reported, const char *space, uint64_t off, uint64_t len, const char *what,
                         bool atomic = false, uint32_t bytes = ~0u, int64_t ubGran = -1)
{
    uint8_t p = op.pipe;
    if (p >= P_NUM) return false;
    bool commute = atomic && g.wAtomic && g.wPipe == p;
    if (g.wPipe < P_NUM && !commute && (g.wMask & bytes) && !(g.wPipe == p && g.wEpoch == op.epoch) && !Ordered(g.wPipe, g.wEpoch, p)) {
        if (!reported) ReportHazard(op, write ? "WAW" : "RAW", g.wPipe, g.wLoc, space, off, len, what);
        reported = true;
    }
    if (write) {
        uint32_t kept = 0;  // readers whose WAR waits: their read stays outstanding for the writes that follow
        for (uint8_t r = 0; r < P_NUM; ++r) {
            if (g.rEpoch[r] == 0 || (r == p && g.rEpoch[r] == op.epoch) || !(g.rMask[r] & bytes)) continue;
            if (!Ordered(r, g.rEpoch[r], p)) {
                if (ubGran >= 0 && !reported) {
                    DeferredWar d{op, r, g.rLoc[r], g.rMask[r], space, off, len, what, static_cast<uint64_t>(ubGran), {}};
                    std::memcpy(d.old, g_cur->ub.data() + ubGran * 32, 32);
                    g_cur->deferredWar.push_back(d);
                    kept |= 1u << r;
                    continue;
                }
                if (!reported) ReportHazard(op, "WAR", r, g.rLoc[r], space, off, len, what);
                reported = true;
            }
        }
        g.wMask = g.wPipe == p ? (g.wMask | bytes) : bytes;
        g.wPipe = p;
        g.wEpoch = op.epoch;
        g.wLoc = op.loc;
        g.wAtomic = atomic;
        for (uint8_t r = 0; r < P_NUM; ++r)
            if (!(kept >> r & 1u)) g.rEpoch[r] = 0, g.rMask[r] = 0;
    } else {
        g.rMask[p] = g.rEpoch[p] ? (g.rMask[p] | bytes) : bytes;
        g.rEpoch[p] = op.epoch;
        g.rLoc[p] = op.loc;
    }
    return reported;
}

// Bytes [off, off + len) that fall in 32 B granule k, as a bit mask.
static inline uint32_t GranuleBytes(uint64_t k, uint64_t off, uint64_t len)
{
    uint64_t lo = off > k * 32 ? off - k * 32 : 0;
    uint64_t hi = off + len < (k + 1) * 32 ? off + len - k * 32 : 32;
    return (hi - lo >= 32 ? ~0u : ((1u << (hi - lo)) - 1u)) << lo;
}

// ------------------------------------------------------------------ UB
bool Ub(const Op &op, uint32_t off, uint64_t len, bool write, const UbBuf &buf, const char *what)
{
    if (len == 0) return true;
    BlockState &b = *g_cur;
    uint64_t end = static_cast<uint64_t>(off) + len;
    // A vector kernel's buffer that InitBuffer placed past the UB's end (allowed, as on the NPU): touching it is the fault.
    // Said at that InitBuffer, whose sizing is the fault; the message names the access.
    if (!CubeKernel() && end > b.pub.ubSize && b.ubOverAt.file != nullptr && off < b.ubHigh)
        Fatal("ub_overflow", b.ubOverAt.file, b.ubOverAt.line,
              "TPipe::InitBuffer: buffers need %u B (32 B aligned) but the UB has %u B, and %s at %s:%d %s %llu B at UB "
              "offset %u (%s), past the UB's end",
              b.ubHigh, b.pub.ubSize, op.name, RelFile(op.file).c_str(), op.line, write ? "writes" : "reads",
              static_cast<unsigned long long>(len), off, what);
    // A cube tensor's access that runs past its own memory's end: the memories lie end to end in the arena, so
    // without this an L1 read past L1 would be named as one in L0A.
    const Space own = buf.hi > buf.lo ? SpaceAt(buf.lo) : SP_UB;
    if (own != SP_UB && own != SP_NUM) {
        const SpaceInfo oi = SpaceOf(own);
        if (end > oi.base + oi.size)
            Fatal("local_out_of_bounds", op.file, op.line, "%s %s %llu B at %s offset %lld (%s), past the end of the %u B %s",
                  op.name, write ? "writes" : "reads", static_cast<unsigned long long>(len), oi.name,
                  static_cast<long long>(off) - oi.base, what, oi.size, oi.name);
    }
    const Space sp = SpaceAt(off);
    if (sp == SP_NUM || (sp != SP_UB && b.ub.size() == b.pub.ubSize))
        Fatal("local_out_of_bounds", op.file, op.line, "%s %s %llu B at UB offset %u (%s), past the end of the %u B Unified Buffer",
              op.name, write ? "writes" : "reads", static_cast<unsigned long long>(len), off, what, b.pub.ubSize);
    const SpaceInfo si = SpaceOf(sp);
    if (end > si.base + si.size) {
        if (sp == SP_UB)
            Fatal("local_out_of_bounds", op.file, op.line, "%s %s %llu B at UB offset %u (%s), past the end of the %u B Unified Buffer",
                  op.name, write ? "writes" : "reads", static_cast<unsigned long long>(len), off, what, b.pub.ubSize);
        Fatal("local_out_of_bounds", op.file, op.line, "%s %s %llu B at %s offset %u (%s), past the end of the %u B %s",
              op.name, write ? "writes" : "reads", static_cast<unsigned long long>(len), si.name, off - si.base, what, si.size, si.name);
    }
    // The cube core has no UB and the vector core no L1/L0 (AIC and AIV are separate cores on A2).
    if (OnCubeCore() && sp == SP_UB)
        Fatal("ub_on_cube_core", op.file, op.line, "%s %s the UB (%s) in a kernel built for the cube core (AIC), which has no Unified Buffer",
              op.name, write ? "writes" : "reads", what);
    if (!OnCubeCore() && sp != SP_UB)
        Fatal("cube_memory_on_vector_core", op.file, op.line,
              "%s %s the %s (%s) in a kernel built for the vector core (AIV), which has no %s: that memory belongs to the cube core",
              op.name, write ? "writes" : "reads", si.name, what, si.name);
    if (buf.hi > buf.lo && (off < buf.lo || end > buf.hi))
        Report("local_out_of_bounds", true, op.file, op.line,
               "%s %s %llu B at %s offset %u (%s) but the tensor's buffer is [%u, %u): %llu B outside it", op.name,
               write ? "writes" : "reads", static_cast<unsigned long long>(len), si.name, off - si.base, what, buf.lo - si.base, buf.hi - si.base,
               static_cast<unsigned long long>((off < buf.lo ? buf.lo - off : 0) + (end > buf.hi ? end - buf.hi : 0)));
    if (!write) {
        const void *z = std::memchr(b.init.data() + off, 0, len);
        if (z) {
            uint64_t at = static_cast<const uint8_t *>(z) - b.init.data();
            // A warning: vector ops run whole 256 B repeats, and lanes past the data are routine while
            // their results never reach GM. Unwritten UB holds NaN bytes here, so if they do, the
            // output comparison fails; a candidate that adds such a read is still refused for it.
            Report("uninitialized_ub_read", false, op.file, op.line,
                   "%s (%s) reads %llu B at %s offset %u (%s); byte %llu was never written since InitBuffer (or holds padding the hardware leaves undefined): harmless only while those lanes never reach an output; otherwise write those bytes first, or move only the bytes computed",
                   op.name, PipeName(op.pipe), static_cast<unsigned long long>(len), si.name, off - si.base, what, static_cast<unsigned long long>(at - si.base));
        }
    } else {
        std::memset(b.init.data() + off, 1, len);
    }
    bool reported = false;
    // Reads keep their exact bytes, so that a deferred WAR knows which bytes its reader depends on.
    for (uint64_t g = off / 32; g <= (end - 1) / 32; ++g)
        Touch(op, b.gran[g], write, reported, si.name, off - si.base, len, what, false, write ? ~0u : GranuleBytes(g, off, len),
              static_cast<int64_t>(g));
    return true;
}

// A write that leaves every byte its unsynchronised reader read as it was changes nothing that reader can see, on
// whichever side of the write the read lands: no hazard (a Duplicate of zeros over the zeros an MTE3 copy may still
// read; an in-place Gather whose first element per block is itself, where MTE3 reads that element only). The
// write's bytes are known once the op ran: every API checks its operands, then writes, before the next one begins.
void FlushDeferredWar()
{
    BlockState &b = *g_cur;
    for (const DeferredWar &d : b.deferredWar) {
        bool same = (d.gran + 1) * 32 <= b.ub.size();
        for (int i = 0; same && i < 32; ++i)
            if ((d.mask >> i & 1u) && b.ub[d.gran * 32 + i] != d.old[i]) same = false;
        if (!same) {
            ReportHazard(d.op, "WAR", d.reader, d.readerLoc, d.space, d.off, d.len, d.what);
            break;
        }
    }
    b.deferredWar.clear();
}

bool UbHolds(uint32_t off, uint64_t len, const void *data)
{
    const BlockState &b = *g_cur;
    if (static_cast<uint64_t>(off) + len > b.ub.size()) return false;
    return std::memchr(b.init.data() + off, 0, len) == nullptr && std::memcmp(b.ub.data() + off, data, len) == 0;
}

void UbUndefined(uint32_t off, uint64_t len)
{
    if (off + len <= g_cur->init.size()) std::memset(g_cur->init.data() + off, 0, len);
}

bool CheckCount(const Op &op, uint32_t off, uint64_t bytes, bool write, const UbBuf &buf, const char *what, uint32_t align)
{
    if (align && off % align != 0)
        Report("misaligned_operand", true, op.file, op.line, "%s: %s at UB offset %u is not %u B aligned", op.name, what, off, align);
    return Ub(op, off, bytes, write, buf, what);
}

bool CheckRepeat(const Op &op, const Opnd *ops, int nops, uint32_t lanes, uint32_t repeat, Mask &mask)
{
    if (repeat == 0) return false;
    if (mask.counter == 0 && !mask.bits && (mask.cnt == 0 || mask.cnt > lanes)) {
        Report("bad_mask", true, op.file, op.line, "%s: mask %llu is outside [1, %u] for this data type", op.name,
               static_cast<unsigned long long>(mask.cnt), lanes);
        if (mask.cnt > lanes) mask.cnt = lanes;
    }
    if (mask.counter == 0 && mask.bits) {
        bool beyond = lanes < 128 && (lanes <= 64 ? (lanes < 64 && (mask.m[0] >> lanes) != 0) || mask.m[1] != 0
                                                  : (mask.m[1] >> (lanes - 64)) != 0);
        if (beyond && !mask.reg)
            Report("bad_mask", true, op.file, op.line, "%s: mask bits set beyond lane %u (only %u lanes of this type per repeat)", op.name,
                   lanes - 1, lanes);
        if (lanes <= 64) mask.m[1] = 0;
    }
    bool any = false;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < nops; ++i) {
            const Opnd &o = ops[i];
            if (o.write != (pass == 1)) continue;
            if (o.off % 32 != 0)
                Report("misaligned_operand", true, op.file, op.line, "%s: %s at UB offset %u is not 32 B aligned", op.name, o.what, o.off);
            uint32_t perBlk = 32 / o.esz;
            for (uint32_t r = 0; r < repeat; ++r)
                for (uint32_t l0 = 0; l0 < lanes; l0 += perBlk) {
                    uint32_t a = lanes, z = 0;
                    for (uint32_t l = l0; l < l0 + perBlk && l < lanes; ++l)
                        if (mask.At(r, l, lanes)) {
                            if (a == lanes) a = l;
                            z = l;
                        }
                    if (a == lanes) continue;
                    any = true;
                    if (!Ub(op, LaneOff(o, r, a), (z - a + 1) * o.esz, o.write, o.buf, o.what)) return false;
                }
        }
    return any;
}

// ------------------------------------------------------------------ GM
GmBuf *FindGm(const void *p)
{
    const uint8_t *q = static_cast<const uint8_t *>(p);
    for (GmBuf &g : G.gm)
        if (q >= g.base && q < g.base + g.alloc) return &g;
    return nullptr;
}

static GmBuf *FindGmNear(const void *p)
{
    const uint8_t *q = static_cast<const uint8_t *>(p);
    GmBuf *best = nullptr;
    uint64_t bestDist = ~0ull;
    for (GmBuf &g : G.gm) {
        uint64_t d = q < g.base ? static_cast<uint64_t>(g.base - q) : q >= g.base + g.size ? static_cast<uint64_t>(q - (g.base + g.size)) : 0;
        if (d < bestDist) { bestDist = d; best = &g; }
    }
    return best;
}

static const char *GmKind(const GmBuf &g)
{
    return g.kind == 0 ? "input" : g.kind == 1 ? "output" : g.kind == 2 ? "workspace" : g.kind == 3 ? "tiling buffer" : "GmAlloc buffer";
}

void GmWriterName(uint32_t tag, char *out, size_t n)
{
    if ((tag & 0xFFFFu) == kGmSharedWriter) std::snprintf(out, n, "several blocks");
    else std::snprintf(out, n, "%s", CoreName((tag & 0xFFFFu) - 1).c_str());
}

uint64_t GmPadded(uint64_t size) { return (size + 31) / 32 * 32 + kGmPadding; }

uint64_t GmSpan(const Op &op, const void *p, uint64_t len, bool write, const void *declLo, const void *declHi, const char *what,
                const void *data)
{
    if (len == 0) return 0;
    const uint64_t req = len;
    const uint8_t *q = static_cast<const uint8_t *>(p);
    GmBuf *g = FindGm(p);
    if (g == nullptr) {
        GmBuf *n = FindGmNear(p);
        if (n) {
            long long rel = static_cast<long long>(q - n->base);
            Report("gm_out_of_bounds", true, op.file, op.line,
                   "%s %s %llu B at byte offset %lld of %s '%s' (%llu B): %s; the twin skipped the access", op.name,
                   write ? "writes" : "reads", static_cast<unsigned long long>(len), rel, GmKind(*n), n->name.c_str(),
                   static_cast<unsigned long long>(n->size), rel < 0 ? "it starts before the tensor" : "it lies past the end of the allocation");
        } else {
            Report("gm_out_of_bounds", true, op.file, op.line, "%s %s %llu B at GM address %p, which is not inside any kernel argument",
                   op.name, write ? "writes" : "reads", static_cast<unsigned long long>(len), p);
        }
        return 0;
    }
    uint64_t off = static_cast<uint64_t>(q - g->base);
    uint64_t span = len;
    if (off + len > g->size) {
        // Past the end of the tensor. Device allocations are padded (aclrtMalloc: size rounded up to 32 B plus 32 B),
        // so the NPU moves the bytes that fall inside the padding; beyond it the memory belongs to someone else.
        uint64_t padded = GmPadded(g->size);
        uint64_t over = off + len - g->size;
        bool inPad = off + len <= padded;
        // An output's bytes up to its 32 B-rounded end belong to its own allocation on every NPU allocator
        // (aclrtMalloc and torch_npu's caching allocator align to 32 B, 512 B): a write there is harmless on the
        // NPU, so a warning; the bytes are never delivered, so they cannot reach a comparison.
        bool inAlign = write && g->kind == 1 && off + len <= (g->size + 31) / 32 * 32;
        if (!inPad) span = off < padded ? padded - off : 0;
        char tail[224];
        if (inAlign)
            std::snprintf(tail, sizeof tail,
                          "inside its 32 B alignment padding: harmless on the NPU, whose allocations are 32-byte aligned; would "
                          "corrupt a neighbour in a packed buffer");
        else if (inPad)
            std::snprintf(tail, sizeof tail, "inside the allocation padding (%llu B after the tensor), so the NPU %s",
                          static_cast<unsigned long long>(padded - g->size),
                          write ? "writes them (a bug, though nothing else lives there)" : "reads them (whatever they hold)");
        else
            std::snprintf(tail, sizeof tail, "beyond the allocation padding (%llu B after the tensor); the twin moved only %llu B",
                          static_cast<unsigned long long>(padded - g->size), static_cast<unsigned long long>(span));
        // What to change: move only the bytes the tensor has left.
        char fix[160] = "";
        if (write && off < g->size)
            std::snprintf(fix, sizeof fix, "; write only the %llu B left (DataCopyPad with a byte length, or a shorter last copy)",
                          static_cast<unsigned long long>(g->size - off));
        Report("gm_out_of_bounds", (write && !inAlign) || !inPad, op.file, op.line,
               "%s %s %llu B at byte offset %llu of %s '%s' (%llu B): %llu B past the end of the tensor, %s%s", op.name,
               write ? "writes" : "reads", static_cast<unsigned long long>(len), static_cast<unsigned long long>(off), GmKind(*g),
               g->name.c_str(), static_cast<unsigned long long>(g->size), static_cast<unsigned long long>(over), tail, fix);
        if (span == 0) return 0;
        if (write && !g->wtag.empty()) {
            uint32_t tag = (TagEpoch() << 17) | static_cast<uint32_t>(g_cur->pub.core + 1);
            for (uint64_t k = off > g->size ? off : g->size; k < off + span && k < g->wtag.size(); ++k) g->wtag[k] = tag;
        }
    }
    // Shadow state (races, hazards) covers the tensor's own bytes only.
    uint64_t tracked = off >= g->size ? 0 : (off + span > g->size ? g->size - off : span);
    if (tracked == 0) return span;
    len = tracked;
    // The NPU does not check the size given to SetGlobalBuffer; inside the tensor the access is done (races with
    // other blocks are reported on their own), so leaving the declared range is a warning.
    if (declLo && (p < declLo || q + req > static_cast<const uint8_t *>(declHi)))
        Report("gm_out_of_bounds", false, op.file, op.line,
               "%s %s %llu B at byte offset %llu of '%s', outside the range declared with SetGlobalBuffer (bytes [%lld, %lld) of it)",
               op.name, write ? "writes" : "reads", static_cast<unsigned long long>(req), static_cast<unsigned long long>(off),
               g->name.c_str(), static_cast<long long>(static_cast<const uint8_t *>(declLo) - g->base),
               static_cast<long long>(static_cast<const uint8_t *>(declHi) - g->base));
    int64_t blk = g_cur->pub.core;
    if (write && g->kind == 0 && !g->inputWriteReported) {
        g->inputWriteReported = true;
        Report("input_written", false, op.file, op.line, "%s writes into input '%s' (byte offset %llu)", op.name, g->name.c_str(),
               static_cast<unsigned long long>(off));
    }
    if (!g->wtag.empty()) {
        uint32_t mine = static_cast<uint32_t>(blk + 1);
        uint32_t atomic = (write && g_cur->pub.atomicMode) ? 1u : 0u;
        uint32_t tag = (TagEpoch() << 17) | (atomic << 16) | mine;
        uint32_t *t = g->wtag.data() + off;
        const uint8_t *bytes = atomic ? nullptr : static_cast<const uint8_t *>(data);
        bool raced = false;
        for (uint64_t i = 0; i < len; ++i) {
            uint32_t o = t[i];
            if (o != 0 && (o & 0xFFFFu) != mine && !Ordered(o) && !(atomic && (o & 0x10000u))) {
                // Every writer so far stored this very byte: the order of the writes cannot change memory. The byte
                // is then owned by "several blocks", so any later write of another value (the first writer's
                // included) and any read of it by any block is still a race. (Not in a mixed launch, whose
                // ordering follows each writer core's flags: there every such write stays a race.)
                if (write && bytes && !G.mix && !(o & 0x10000u) && g->base[off + i] == bytes[i]) {
                    t[i] = (G.phase << 17) | kGmSharedWriter;
                    continue;
                }
                if (!raced) {
                    raced = true;
                    if (G.mix)
                        Report("cross_block_write_race", true, op.file, op.line,
                               "%s %s byte %llu of '%s' that %s wrote with no cross-core flag or SyncAll ordering the two; on the NPU "
                               "the cores run concurrently", CoreName(blk).c_str(), write ? "writes" : "reads",
                               static_cast<unsigned long long>(off + i), g->name.c_str(), CoreName((o & 0xFFFFu) - 1).c_str());
                    else {
                        char who[48];
                        GmWriterName(o, who, sizeof who);
                        Report("cross_block_write_race", true, op.file, op.line,
                               "block %lld %s byte %llu of '%s' that %s wrote %s (no atomic, no SyncAll in between); on the NPU blocks run concurrently",
                               static_cast<long long>(blk), write ? "writes" : "reads", static_cast<unsigned long long>(off + i), g->name.c_str(),
                               who, write ? (bytes ? "with other bytes" : "too") : "in the same phase");
                    }
                }
                if (!write) break;
            }
            if (write) t[i] = tag;
        }
    }
    if (g->kind == 1 || g->kind == 2 || g->kind == 4) {
        if (g->gran.empty()) g->gran.resize((g->size + 31) / 32);
        bool reported = false;
        for (uint64_t k = off / 32; k <= (off + len - 1) / 32; ++k) {
            GmGran &gg = g->gran[k];
            if (gg.block != blk) { gg.block = static_cast<int32_t>(blk); gg.g = Gran(); }
            Touch(op, gg.g, write, reported, "GM", off, len, what, write && g_cur->pub.atomicMode != 0, GranuleBytes(k, off, len));
        }
    }
    return span;
}

bool Gm(const Op &op, const void *p, uint64_t len, bool write, const void *declLo, const void *declHi, const char *what, const void *data)
{
    return GmSpan(op, p, len, write, declLo, declHi, what, data) == len;
}

uint8_t *GmAllocate(const std::string &name, uint64_t size, int kind, uint8_t fill)
{
    uint64_t alloc = (GmPadded(size) + 511) / 512 * 512;
    void *p = nullptr;
    if (posix_memalign(&p, 512, alloc) != 0) return nullptr;
    std::memset(p, fill, alloc);
    GmBuf g;
    g.name = name;
    g.base = static_cast<uint8_t *>(p);
    g.size = size;
    g.alloc = alloc;
    g.kind = kind;
    g.fill = fill;
    // Written-byte tags cover the padding too, so that an API write inside it is not taken for a raw store.
    if (kind == 1 || kind == 2 || kind == 4) g.wtag.assign(GmPadded(size), 0);
    G.gm.push_back(std::move(g));
    return static_cast<uint8_t *>(p);
}

void RawGmSnapshot()
{
    if (!G.digester) G.digester = std::make_unique<GmDigester>();
    for (GmBuf &g : G.gm) {
        if (g.kind == 3) continue;
        g.seen.assign(g.base, g.base + g.alloc);
        g.digest.resize((g.alloc + kGmChunk - 1) / kGmChunk);
        for (uint64_t c = 0; c < g.alloc; c += kGmChunk)
            g.digest[c / kGmChunk] = (*G.digester)(g.base + c, std::min(kGmChunk, g.alloc - c));
    }
}

void RawGmEnd()
{
    for (GmBuf &g : G.gm) {
        g.seen.clear(); g.seen.shrink_to_fit();
        g.digest.clear(); g.digest.shrink_to_fit();
    }
}

void RawGmSweep()
{
    if (g_cur == nullptr) return;
    const int64_t blk = g_cur->pub.core;
    const uint32_t mine = static_cast<uint32_t>(blk + 1);
    const uint32_t slice = (TagEpoch() << 17) | mine;
    const uint32_t from = G.mix ? g_cur->sliceEpoch : G.phase;
    g_cur->sliceEpoch = TagEpoch();
    for (GmBuf &g : G.gm) {
        if (g.seen.size() != g.alloc) continue;
        const uint64_t padded = GmPadded(g.size);
        uint64_t stored = 0, past = 0, firstPast = 0, beyond = 0, firstBeyond = 0, raced = 0, firstRace = 0, firstIn = ~0ull;
        uint32_t raceWith = 0;
        for (uint64_t c = 0; c < g.alloc; c += kGmChunk) {
            uint64_t e = c + kGmChunk < g.alloc ? c + kGmChunk : g.alloc;
            // A chunk whose digest kept still kept its bytes (gm_digest.cpp); one that moved is compared.
            GmDigest now = (*G.digester)(g.base + c, e - c);
            if (now == g.digest[c / kGmChunk]) continue;
            g.digest[c / kGmChunk] = now;
            for (uint64_t k = c; k < e; ++k) {
                if (g.base[k] == g.seen[k]) continue;
                g.seen[k] = g.base[k];
                if (k < g.wtag.size()) {
                    uint32_t t = g.wtag[k];
                    // an API of this slice wrote it (a mixed launch's core may have moved its epoch since the slice began)
                    if ((t & 0xFFFFu) == mine && (t >> 17) >= from && (t >> 17) <= (slice >> 17)) continue;
                    if (t != 0 && !Ordered(t) && (t & 0xFFFFu) != mine && raced++ == 0) { firstRace = k; raceWith = t; }
                    g.wtag[k] = slice;
                }
                if (k < g.size) { if (firstIn == ~0ull) firstIn = k; ++stored; }
                else if (k < padded) { if (past++ == 0) firstPast = k; }
                else if (beyond++ == 0) firstBeyond = k;
                // A store writes a whole element: its bytes that kept their value (a float's 0xFF byte under the
                // 0xFF fill) were written too. (A changed byte of the element is handled on its own turn.)
                if (g.esize > 1 && k < g.size && !g.wtag.empty())
                    for (uint64_t j = k - k % g.esize; j < k - k % g.esize + g.esize && j < g.size; ++j)
                        if (j != k && g.base[j] == g.seen[j] && g.wtag[j] == 0) { g.wtag[j] = slice; ++stored; }
            }
        }
        if (stored + past + beyond == 0) continue;
        g.rawBytes += stored + past;
        const char *kind = g.kind == 0 ? "input" : g.kind == 1 ? "output" : g.kind == 2 ? "workspace" : "GmAlloc buffer";
        if (g.kind == 0 && stored && !g.inputWriteReported) {
            g.inputWriteReported = true;
            Report("input_written", false, nullptr, 0, "block %lld stores through a raw GM pointer into input '%s' (element %llu)",
                   static_cast<long long>(blk), g.name.c_str(), static_cast<unsigned long long>(firstIn / g.esize));
        }
        if (raced) {
            char who[48];
            GmWriterName(raceWith, who, sizeof who);
            Report("cross_block_write_race", true, nullptr, 0,
                   "block %lld stores through a raw GM pointer into %llu B of %s '%s' that %s wrote in the same phase (first: byte %llu); on the NPU blocks run concurrently",
                   static_cast<long long>(blk), static_cast<unsigned long long>(raced), kind, g.name.c_str(), who,
                   static_cast<unsigned long long>(firstRace));
        }
        if (past)
            Report("gm_out_of_bounds", true, nullptr, 0,
                   "block %lld stores through a raw GM pointer %llu B past the end of %s '%s' (%llu B; first: byte offset %llu), inside the allocation padding",
                   static_cast<long long>(blk), static_cast<unsigned long long>(past), kind, g.name.c_str(),
                   static_cast<unsigned long long>(g.size), static_cast<unsigned long long>(firstPast));
        if (beyond)
            Report("gm_out_of_bounds", true, nullptr, 0,
                   "block %lld stores through a raw GM pointer %llu B beyond the allocation padding of %s '%s' (%llu B; first: byte offset %llu): on the NPU that memory belongs to someone else",
                   static_cast<long long>(blk), static_cast<unsigned long long>(beyond), kind, g.name.c_str(),
                   static_cast<unsigned long long>(g.size), static_cast<unsigned long long>(firstBeyond));
        if (G.traceOn) {
            // Timed as scalar work: one S-pipe store per element (the timing model reads `n` and `bytes`).
            TraceRec r;
            r.op = "RawGm::WriteScalar";
            r.pipe = P_S;
            r.n = static_cast<int64_t>((stored + past + beyond + g.esize - 1) / g.esize);
            r.bytes = static_cast<int64_t>(stored + past + beyond);
            Trace(r);
        }
    }
}

bool GmRelease(void *p)
{
    for (size_t i = 0; i < G.gm.size(); ++i)
        if (G.gm[i].base == p) {
            std::free(G.gm[i].base);
            G.gm.erase(G.gm.begin() + static_cast<long>(i));
            return true;
        }
    return false;
}

void WriteFindings(const std::string &path)
{
    std::string o;
    for (const Finding &x : G.findings) {
        o += "{\"kind\":\"";
        JsonEscape(o, x.kind);
        o += "\",\"severity\":\"";
        o += x.error ? "error" : "warning";
        o += "\",\"message\":\"";
        JsonEscape(o, x.message);
        o += "\",\"file\":\"";
        JsonEscape(o, x.file);
        o += "\",\"line\":" + std::to_string(x.line) + ",\"block\":" + std::to_string(x.block) + ",\"count\":" + std::to_string(x.count) + "}\n";
    }
    Deliver("findings.jsonl", path, o.data(), o.size());
}

void CrashMessage(int sig, char *buf, size_t size)
{
    // SIGFPE from integer code is a division (or modulo) by zero in the kernel's scalar code after that call.
    std::snprintf(buf, size, "%s in block %lld after %s at %s:%d (the kernel crashed the CPU twin; %s)",
                  sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "signal",
                  static_cast<long long>(G.lastBlock), G.lastOp.op ? G.lastOp.op : "?", RelFile(G.lastOp.file).c_str(), G.lastOp.line,
                  sig == SIGFPE ? "an integer division or modulo by zero in the scalar code that follows; on the NPU its result is undefined"
                                : "likely an access far outside a tensor");
}

namespace {
void (*g_crash)(int) = nullptr;

// The length of the x86-64 `div`/`idiv` at `p` (legacy prefixes, REX, F6/F7 /6 or /7, ModRM, SIB,
// displacement) and its operand width in bytes; 0 when `p` is not one.
size_t DivideLength(const uint8_t *p, int &width)
{
    size_t i = 0;
    bool narrow16 = false;
    while (i < 4 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0x2E || p[i] == 0x3E || p[i] == 0x26 || p[i] == 0x36 ||
                     p[i] == 0x64 || p[i] == 0x65)) {
        narrow16 = narrow16 || p[i] == 0x66;
        ++i;
    }
    uint8_t rex = (p[i] & 0xF0) == 0x40 ? p[i++] : 0;
    uint8_t op = p[i++];
    if (op != 0xF6 && op != 0xF7) return 0;
    uint8_t modrm = p[i++];
    int reg = (modrm >> 3) & 7, mod = modrm >> 6, rm = modrm & 7;
    if (reg != 6 && reg != 7) return 0;
    if (mod != 3 && rm == 4) {
        uint8_t sib = p[i++];
        if (mod == 0 && (sib & 7) == 5) i += 4;
    }
    if (mod == 0 && rm == 5) i += 4;
    else if (mod == 1) i += 1;
    else if (mod == 2) i += 4;
    width = op == 0xF6 ? 1 : (rex & 8) ? 8 : narrow16 ? 2 : 4;
    return i;
}

void OnFpe(int sig, siginfo_t *info, void *uctx)
{
    auto *uc = static_cast<ucontext_t *>(uctx);
    int width = 0;
    const auto *pc = reinterpret_cast<const uint8_t *>(uc->uc_mcontext.gregs[REG_RIP]);
    size_t n = (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) ? DivideLength(pc, width) : 0;
    if (n == 0 || g_cur == nullptr) {
        g_crash(sig);
        return;
    }
    // The NPU's scalar unit does not stop on it (answers validated on the NPU do it in code whose result
    // is unused); its result is undefined: quotient and remainder are G.divideValue, so a result the
    // outputs depend on shows in them (the harness runs such a case again with another value).
    uint64_t v = G.divideValue;
    greg_t &ax = uc->uc_mcontext.gregs[REG_RAX], &dx = uc->uc_mcontext.gregs[REG_RDX];
    if (width == 1) ax = (ax & ~0xFFFFll) | static_cast<greg_t>((v & 0xFF) | ((v & 0xFF) << 8));
    else if (width == 2) {
        ax = (ax & ~0xFFFFll) | static_cast<greg_t>(v & 0xFFFF);
        dx = (dx & ~0xFFFFll) | static_cast<greg_t>(v & 0xFFFF);
    } else if (width == 4) ax = dx = static_cast<greg_t>(v & 0xFFFFFFFFu);
    else ax = dx = static_cast<greg_t>(v);
    uc->uc_mcontext.gregs[REG_RIP] += static_cast<greg_t>(n);
    Report("divide_by_zero", false, G.lastOp.file, G.lastOp.line,
           "an integer %s by zero in the scalar code after %s (x86 traps; on the NPU the result is undefined): the twin went on "
           "with %llu as its result",
           info->si_code == FPE_INTDIV ? "division or modulo" : "division overflow (minimum by -1) or", G.lastOp.op ? G.lastOp.op : "the kernel's start",
           static_cast<unsigned long long>(v));
}
}  // namespace

void CatchArithmetic(void (*crash)(int))
{
    g_crash = crash;
    struct sigaction sa {};
    sa.sa_sigaction = OnFpe;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGFPE, &sa, nullptr);
}

// ------------------------------------------------------------------ tiling, misc
void LoadTiling(void *dst, size_t size, const uint8_t *tiling, const char *type, const char *file, int line)
{
    size_t avail = g_cur->pub.tilingSize;
    std::memset(dst, 0, size);
    if (tiling == nullptr) {
        Report("tiling_size_mismatch", true, file, line, "GET_TILING_DATA: the tiling pointer is null");
        return;
    }
    if (size > avail)
        Report("tiling_size_mismatch", true, file, line,
               "GET_TILING_DATA reads %zu B of %s but the tiling program produced only %zu B (SetDataSize / SaveToBuffer); the rest reads as 0",
               size, type, avail);
    std::memcpy(dst, tiling, size < avail ? size : avail);
}

void InitBlockState(BlockState &b, int64_t idx, int64_t num, uint32_t ubSize, uint64_t tilingKey, uint32_t tilingSize)
{
    b.ub.assign(ubSize, 0xFF);  // uninitialised UB reads as NaN for floating types
    b.init.assign(ubSize, 0);
    b.gran.assign((ubSize + 31) / 32, Gran());
    b.pub.ub = b.ub.data();
    b.pub.ubSize = ubSize;
    b.pub.idx = idx;
    b.pub.num = num;
    b.pub.core = idx;
    b.pub.kind = 0;
    b.pub.sub = 0;
    b.pub.tpipe = nullptr;
    b.pub.tilingKey = tilingKey;
    b.pub.tilingSize = tilingSize;
    b.pub.atomicMode = 0;
    b.pub.atomicType = "none";
    b.pub.maskCounter = false;
    b.pub.maskLo = b.pub.maskHi = ~0ull;
    b.pub.calls = 0;
    b.pub.deqScale = 0.0f;
    b.pub.deqScaleSet = false;
}

}  // namespace rt
}  // namespace ascendopt_twin

namespace AscendC {
namespace twin_detail {
int16_t NextQueueId()
{
    using ascendopt_twin::rt::g_cur;
    return g_cur ? g_cur->nextQueue++ : 0;
}
const char *RoundModeName(RoundMode m)
{
    switch (m) {
        case RoundMode::CAST_NONE: return "CAST_NONE";
        case RoundMode::CAST_RINT: return "CAST_RINT";
        case RoundMode::CAST_FLOOR: return "CAST_FLOOR";
        case RoundMode::CAST_CEIL: return "CAST_CEIL";
        case RoundMode::CAST_ROUND: return "CAST_ROUND";
        case RoundMode::CAST_TRUNC: return "CAST_TRUNC";
        case RoundMode::CAST_ODD: return "CAST_ODD";
        default: return "CAST_HYBRID";
    }
}
}  // namespace twin_detail
}  // namespace AscendC
