// AscendOptimizer CPU twin: block scheduler. Blocks run one at a time, each on its own thread; SyncAll hands over
// to the next block, and when every live block waits in SyncAll all are released into the next phase.
// CrossCoreWaitFlag on a zero counter hands over too (ascendopt_twin/cross_core.h has the model); when no block
// can run and some wait on a flag, those blocks are ended as deadlocked.
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
    if (pick < 0) {
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
            for (int c = 0; c < S.n; ++c)
                if (S.st[c] == 2) S.st[c] = 1;
            for (int c = 0; c < S.n; ++c)
                if (S.st[c] == 1) { pick = c; break; }
        }
    }
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
    InitBlockState(*S.bs[b], b, S.n, S.ubSize, S.tilingKey, S.tilingSize);
    S.st[b] = 1;
    S.th[b] = std::thread(BlockMain, b);
}

void SyncAllHook(const Loc &)
{
    int b = static_cast<int>(g_cur->pub.idx);
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
}  // namespace

void CrossCoreSet(int mode, Pipe pipe, uint32_t flagId, const Loc &loc)
{
    Begin(pipe == P_NONE ? P_S : pipe, "CrossCoreSetFlag", loc);
    TraceCrossCore("CrossCoreSetFlag", pipe == P_NONE ? P_S : pipe, loc);
    CheckFlagId(flagId, loc, "CrossCoreSetFlag");
    if (mode == 2)
        Fatal("crosscore_mode_unsupported", loc.file, loc.line,
              "CrossCoreSetFlag<2>(%u): mode 2 signals the cube core of this AI Core; the twin runs vector blocks only, "
              "with no cube core to receive it", flagId);
    // Everything this block issued is complete before the other blocks see the flag.
    Barrier(P_ALL);
    const int b = static_cast<int>(g_cur->pub.idx);
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
    const int b = static_cast<int>(g_cur->pub.idx);
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
                  "CrossCoreWaitFlag(%u) in block %d waits forever: no block can set flag %u any more (a mode-0 round "
                  "needs every block of the launch to set it); on the NPU the kernel hangs",
                  flagId, b, flagId);
        }
    }
    S.flagCnt[b][flagId]--;
    Barrier(P_ALL);
}

int RunBlocks(int n, const std::function<void()> &body, uint32_t ubSize, uint64_t key, uint32_t tilingSize)
{
    for (BlockState *b : S.bs) delete b;
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
