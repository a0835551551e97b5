// AscendOptimizer CPU twin: block scheduler. Blocks run one at a time, each on its own thread; SyncAll hands over
// to the next block, and when every live block waits in SyncAll all are released into the next phase.
// CrossCoreWaitFlag on a zero counter hands over too (ascendopt_twin/cross_core.h has the model); when no block
// can run and some wait on a flag, those blocks are ended as deadlocked.
// A mixed launch (KERNEL_TYPE_MIX_AIC_1_2) runs 3 cores per block, AIC then AIV 0 and AIV 1 (core 3b + k), on the
// same baton: the order is deterministic, a core hands over only at a wait, a SyncAll or its end. Its cores order
// their GM accesses by vector clocks (Global::ep/seen): a set releases the setter's writes, the wait that consumes
// it acquires them; a GM access by one core racing another's unordered write is `cross_block_write_race`.
#include <array>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "twin_internal.h"

namespace ascendopt_twin {
namespace rt {
namespace {

struct Sched {
    std::mutex m;
    std::condition_variable cv;
    int n = 0;
    int turn = -1;
    bool allDone = false;
    std::vector<int> st;  // 0 not started, 1 runnable, 2 at SyncAll, 3 done, 4 in CrossCoreWaitFlag
    // Cross-core flags, per block and flagId: the counter, the mode-0 sets made, and whether the block's wait
    // was ended as a deadlock; per flagId the mode-0 rounds completed (every block set it once more).
    static constexpr uint32_t kFlags = 16;
    std::vector<std::array<uint32_t, kFlags>> flagCnt, sets0;
    // Mixed launch: the releases (vector clocks) behind each core's counter, oldest first, which its waits
    // acquire; per AIV the mode-1 and mode-2 sets made, per block the mode-1/mode-2 rounds the pair completed.
    bool mix = false;
    std::vector<std::array<std::vector<std::vector<uint32_t>>, kFlags>> pending;
    std::vector<std::array<uint32_t, kFlags>> sets1, sets2, rounds1, rounds2;
    std::array<std::array<uint32_t, kFlags>, 3> roundsKind{};
    std::function<void()> aic;
    std::vector<int> waitFlag;
    std::vector<bool> deadlocked;
    std::array<uint32_t, kFlags> rounds0{};
    std::vector<BlockState *> bs;
    std::vector<std::thread> th;
    std::function<void()> body;
    uint32_t ubSize = 0;
    uint64_t tilingKey = 0;
    uint32_t tilingSize = 0;
    int aborted = 0;
    bool mismatchReported = false;
};
Sched S;

void StartBlock(int b);

void Activate(int b)
{
    g_cur = S.bs[b];
    g_blk = &g_cur->pub;
    G.lastBlock = b;
}

// Mixed launch: core c's release (its writes so far), bumping its epoch so that its later writes are not covered.
std::vector<uint32_t> Release(int c)
{
    std::vector<uint32_t> rel = G.seen[c];
    rel[c] = ++G.ep[c];
    if (G.ep[c] >= 0x7FFFu)
        Fatal("crosscore_epochs_exhausted", nullptr, 0, "core %d made over 32766 cross-core sets: the twin's GM race tags cannot "
              "order more", c);
    return rel;
}

void Join(std::vector<uint32_t> &into, const std::vector<uint32_t> &v)
{
    for (size_t k = 0; k < into.size(); ++k) into[k] = v[k] > into[k] ? v[k] : into[k];
}

// What `cores` released: every write each made before its latest release.
std::vector<uint32_t> Released(const std::vector<int> &cores)
{
    std::vector<uint32_t> all(static_cast<size_t>(S.n), 0);
    for (int c : cores) {
        Join(all, G.seen[c]);
        all[c] = G.ep[c] > all[c] ? G.ep[c] : all[c];
    }
    return all;
}

// Called with S.m held when no core can run: releases the cores waiting in SyncAll into the next phase (in a mixed
// launch, each of them acquires what all of them wrote before it); the first runnable core, or -1 if none waits.
int ReleaseBarrier()
{
    int pick = -1;
    bool anyBarrier = false, anyDoneClean = false;
    for (int c = 0; c < S.n; ++c) {
        if (S.st[c] == 2) anyBarrier = true;
        if (S.st[c] == 3 && !S.bs[c]->aborted) anyDoneClean = true;
    }
    if (anyBarrier) {
        if (anyDoneClean && !S.mismatchReported) {
            S.mismatchReported = true;
            BlockState *keep = g_cur;
            Report("syncall_mismatch", true, G.lastOp.file, G.lastOp.line,
                       "some blocks finished without reaching a SyncAll that other blocks wait in; on the NPU the waiting blocks hang");
            g_cur = keep;
        }
        G.phase++;
        if (S.mix) {
            std::vector<int> at;
            for (int c = 0; c < S.n; ++c)
                if (S.st[c] == 2) at.push_back(c);
            for (int c : at) Release(c);
            const std::vector<uint32_t> all = Released(at);
            for (int c : at) Join(G.seen[c], all);
        }
        for (int c = 0; c < S.n; ++c)
            if (S.st[c] == 2) S.st[c] = 1;
        for (int c = 0; c < S.n; ++c)
            if (S.st[c] == 1) { pick = c; break; }
    }
    return pick;
}

// Called with S.m held: chooses who runs next.
void PassBaton(int from)
{
    int pick = -1;
    for (int k = 1; k <= S.n && pick < 0; ++k) {
        int c = (from + k) % S.n;
        if (c <= from && k < S.n) {
            // wrap-around: prefer blocks after `from` first (handled by order), then earlier ones
        }
        if (S.st[c] == 0 || S.st[c] == 1) pick = c;
    }
    // A mixed launch's SyncAll gathers its vector cores: released while only cube cores wait on a flag (for what
    // the vector cores do after it).
    bool aivWaits = false;
    for (int c = 0; c < S.n; ++c) aivWaits = aivWaits || (S.st[c] == 4 && (!S.mix || c % 3 != 0));
    if (pick < 0 && S.mix && !aivWaits) pick = ReleaseBarrier();
    if (pick < 0) {
        // Blocks waiting on a cross-core flag nobody can set any more (the rest are done or in SyncAll, which
        // the waiting blocks never reach): each is resumed to end itself with the finding.
        for (int c = 0; c < S.n; ++c)
            if (S.st[c] == 4) {
                S.deadlocked[c] = true;
                S.st[c] = 1;
                if (pick < 0) pick = c;
            }
    }
    if (pick < 0) pick = ReleaseBarrier();
    if (pick < 0) {
        S.allDone = true;
        S.turn = -1;
        S.cv.notify_all();
        return;
    }
    S.turn = pick;
    if (S.st[pick] == 0) StartBlock(pick);
    S.cv.notify_all();
}

void BlockMain(int b)
{
    {
        std::unique_lock<std::mutex> lk(S.m);
        S.cv.wait(lk, [b] { return S.turn == b; });
    }
    Activate(b);
    try {
        if (S.mix && b % 3 == 0)
            S.aic();
        else
            S.body();
        FlushDeferredWar();
    } catch (const BlockAbort &) {
        S.bs[b]->aborted = true;
    } catch (const std::exception &e) {
        S.bs[b]->aborted = true;
        Report("kernel_exception", true, G.lastOp.file, G.lastOp.line, "C++ exception in block %d: %s", b, e.what());
    }
    std::unique_lock<std::mutex> lk(S.m);
    RawGmSweep();
    if (S.bs[b]->aborted) S.aborted++;
    // Free the UB of finished blocks (keep the scheduler light for large block counts).
    S.bs[b]->ub.clear(); S.bs[b]->ub.shrink_to_fit();
    S.bs[b]->init.clear(); S.bs[b]->init.shrink_to_fit();
    S.bs[b]->gran.clear(); S.bs[b]->gran.shrink_to_fit();
    S.st[b] = 3;
    PassBaton(b);
}

void StartBlock(int b)
{
    S.bs[b] = new BlockState();
    if (S.mix) {
        const int k = b % 3, blk = b / 3;
        InitBlockState(*S.bs[b], k == 0 ? blk : 2 * blk + (k - 1), S.n / 3, S.ubSize, S.tilingKey, S.tilingSize);
        S.bs[b]->pub.core = b;
        S.bs[b]->pub.kind = k == 0 ? 1 : 2;
        S.bs[b]->pub.sub = k == 0 ? 0 : k - 1;
    } else {
        InitBlockState(*S.bs[b], b, S.n, S.ubSize, S.tilingKey, S.tilingSize);
    }
    S.st[b] = 1;
    S.th[b] = std::thread(BlockMain, b);
}

void SyncAllHook(const Loc &)
{
    int b = static_cast<int>(g_cur->pub.core);
    std::unique_lock<std::mutex> lk(S.m);
    RawGmSweep();
    S.st[b] = 2;
    PassBaton(b);
    S.cv.wait(lk, [b] { return S.turn == b; });
    lk.unlock();
    Activate(b);
}

void CheckFlagId(uint32_t flagId, const Loc &loc, const char *api)
{
    if (flagId >= Sched::kFlags)
        Fatal("crosscore_flag_id", loc.file, loc.line, "%s(%u): flagId must be below %u (one counter per id)", api, flagId,
              Sched::kFlags);
}

void TraceCrossCore(const char *op, Pipe pipe, const Loc &loc)
{
    if (!g_trace_on) return;
    TraceRec r;
    r.op = op;
    r.pipe = pipe;
    r.file = loc.file;
    r.line = loc.line;
    Trace(r);
}

// One count of flagId for core d, with the release `rel` behind it (the wait that consumes it acquires it).
void Raise(int d, uint32_t flagId, const std::vector<uint32_t> &rel, const Loc &loc)
{
    S.pending[d][flagId].push_back(rel);
    if (++S.flagCnt[d][flagId] > 15)
        Report("crosscore_flag_overflow", true, loc.file, loc.line,
               "CrossCoreSetFlag(%u): core %d's counter for flag %u was set %u times without a wait; the hardware "
               "counts at most 15", flagId, d, flagId, S.flagCnt[d][flagId]);
    if (S.st[d] == 4 && S.waitFlag[d] == static_cast<int>(flagId)) S.st[d] = 1;
}

// CrossCoreSetFlag in a mixed launch (docs, CrossCoreSetFlag): mode 0 among all cores of the setter's kind, mode 1
// between the two AIVs of a block, mode 2 from the AIC to both AIVs of its block, or from both AIVs (once each has
// set) to their AIC. Called with S.m held.
void MixSet(int mode, uint32_t flagId, const Loc &loc)
{
    const int c = static_cast<int>(g_cur->pub.core), blk = c / 3;
    const bool cube = c % 3 == 0;
    if (mode == 1 && cube)
        Fatal("crosscore_mode_unsupported", loc.file, loc.line,
              "CrossCoreSetFlag<1>(%u) on the cube core: mode 1 synchronises the two vector cores of an AI Core", flagId);
    const std::vector<uint32_t> rel = Release(c);
    if (mode == 2 && cube) {
        Raise(3 * blk + 1, flagId, rel, loc);
        Raise(3 * blk + 2, flagId, rel, loc);
        return;
    }
    // A round: every core of the group has set flagId once more (mode 0: all cores of the setter's kind; modes 1
    // and 2 from an AIV: the block's two AIVs).
    std::vector<int> group;
    for (int d = 0; d < S.n; ++d)
        if (mode == 0 ? (d % 3 == 0) == cube : (d / 3 == blk && d % 3 != 0)) group.push_back(d);
    uint32_t &round = mode == 0 ? S.roundsKind[cube ? 1 : 2][flagId] : (mode == 1 ? S.rounds1 : S.rounds2)[blk][flagId];
    auto &sets = mode == 0 ? S.sets0 : (mode == 1 ? S.sets1 : S.sets2);
    sets[c][flagId]++;
    uint32_t least = ~0u;
    for (int d : group) least = sets[d][flagId] < least ? sets[d][flagId] : least;
    if (least <= round) return;
    round = least;
    const std::vector<uint32_t> all = Released(group);
    for (int d : mode == 2 ? std::vector<int>{3 * blk} : group) Raise(d, flagId, all, loc);
}
}  // namespace

void CrossCoreSet(int mode, Pipe pipe, uint32_t flagId, const Loc &loc)
{
    Begin(pipe == P_NONE ? P_S : pipe, "CrossCoreSetFlag", loc);
    TraceCrossCore("CrossCoreSetFlag", pipe == P_NONE ? P_S : pipe, loc);
    CheckFlagId(flagId, loc, "CrossCoreSetFlag");
    if (S.mix) {
        Barrier(P_ALL);
        std::unique_lock<std::mutex> lk(S.m);
        MixSet(mode, flagId, loc);
        return;
    }
    if (mode == 2)
        Fatal("crosscore_mode_unsupported", loc.file, loc.line,
              "CrossCoreSetFlag<2>(%u): mode 2 signals the cube core of this AI Core; the twin runs vector blocks only, "
              "with no cube core to receive it", flagId);
    // Everything this block issued is complete before the other blocks see the flag.
    Barrier(P_ALL);
    const int b = static_cast<int>(g_cur->pub.core);
    std::unique_lock<std::mutex> lk(S.m);
    std::vector<int> raised;
    if (mode == 1) {
        raised.push_back(b);
    } else {
        S.sets0[b][flagId]++;
        uint32_t least = S.sets0[0][flagId];
        for (int c = 1; c < S.n; ++c) least = S.sets0[c][flagId] < least ? S.sets0[c][flagId] : least;
        if (least > S.rounds0[flagId]) {
            S.rounds0[flagId] = least;
            for (int c = 0; c < S.n; ++c) raised.push_back(c);
            // Every block's work before its set now happens before every block's work after its wait. The other
            // blocks' slices were swept when they handed over; this block's slice so far belongs to the old phase.
            RawGmSweep();
            G.phase++;
        }
    }
    for (int c : raised) {
        if (++S.flagCnt[c][flagId] > 15)
            Report("crosscore_flag_overflow", true, loc.file, loc.line,
                   "CrossCoreSetFlag(%u): block %d's counter for flag %u was set %u times without a wait; the hardware "
                   "counts at most 15", flagId, c, flagId, S.flagCnt[c][flagId]);
        if (S.st[c] == 4 && S.waitFlag[c] == static_cast<int>(flagId)) S.st[c] = 1;
    }
}

void CrossCoreWait(uint32_t flagId, const Loc &loc)
{
    Begin(P_S, "CrossCoreWaitFlag", loc);
    TraceCrossCore("CrossCoreWaitFlag", P_ALL, loc);
    CheckFlagId(flagId, loc, "CrossCoreWaitFlag");
    const int b = static_cast<int>(g_cur->pub.core);
    std::unique_lock<std::mutex> lk(S.m);
    if (S.flagCnt[b][flagId] == 0) {
        RawGmSweep();
        S.st[b] = 4;
        S.waitFlag[b] = static_cast<int>(flagId);
        PassBaton(b);
        S.cv.wait(lk, [b] { return S.turn == b; });
        Activate(b);
        if (S.deadlocked[b]) {
            lk.unlock();
            Fatal("crosscore_wait_deadlock", loc.file, loc.line,
                  "CrossCoreWaitFlag(%u) in %s %d waits forever: no %s can set flag %u any more (a mode-0 round "
                  "needs every %s of the launch to set it); on the NPU the kernel hangs",
                  flagId, S.mix ? "core" : "block", b, S.mix ? "core" : "block", flagId, S.mix ? "core of its kind" : "block");
        }
    }
    S.flagCnt[b][flagId]--;
    if (S.mix) {
        Join(G.seen[b], S.pending[b][flagId].front());
        S.pending[b][flagId].erase(S.pending[b][flagId].begin());
    }
    Barrier(P_ALL);
}

int RunBlocks(int n, const std::function<void()> &body, uint32_t ubSize, uint64_t key, uint32_t tilingSize,
              const std::function<void()> &aic)
{
    for (BlockState *b : S.bs) delete b;
    S.mix = G.mix = static_cast<bool>(aic);
    S.aic = aic;
    if (S.mix) n *= 3;
    // Everything before the launch (epoch 0) happens before every core's first access.
    G.ep.assign(S.mix ? n : 0, 1);
    G.seen.assign(S.mix ? n : 0, std::vector<uint32_t>(static_cast<size_t>(n), 1));
    S.pending.assign(S.mix ? n : 0, {});
    S.sets1.assign(n, {});
    S.sets2.assign(n, {});
    S.rounds1.assign(n, {});
    S.rounds2.assign(n, {});
    S.roundsKind = {};
    S.n = n;
    S.turn = -1;
    S.allDone = false;
    S.aborted = 0;
    S.mismatchReported = false;
    S.st.assign(n, 0);
    S.flagCnt.assign(n, {});
    S.sets0.assign(n, {});
    S.waitFlag.assign(n, -1);
    S.deadlocked.assign(n, false);
    S.rounds0 = {};
    S.bs.assign(n, nullptr);
    S.th.clear();
    S.th.resize(n);
    S.body = body;
    S.ubSize = ubSize;
    S.tilingKey = key;
    S.tilingSize = tilingSize;
    G.syncAllHook = &SyncAllHook;
    RawGmSnapshot();
    {
        std::unique_lock<std::mutex> lk(S.m);
        S.turn = 0;
        StartBlock(0);
        S.cv.notify_all();
        S.cv.wait(lk, [] { return S.allDone; });
    }
    for (auto &t : S.th)
        if (t.joinable()) t.join();
    RawGmEnd();
    return S.aborted;
}

}  // namespace rt
}  // namespace ascendopt_twin
