// AscendOptimizer CPU twin: block scheduler. Blocks run one at a time, each on its own thread; SyncAll hands over
// to the next block, and when every live block waits in SyncAll all are released into the next phase.
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
    std::vector<int> st;  // 0 not started, 1 runnable, 2 at SyncAll, 3 done
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

}  // namespace

int RunBlocks(int n, const std::function<void()> &body, uint32_t ubSize, uint64_t key, uint32_t tilingSize)
{
    for (BlockState *b : S.bs) delete b;
    S.n = n;
    S.turn = -1;
    S.allDone = false;
    S.aborted = 0;
    S.mismatchReported = false;
    S.st.assign(n, 0);
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
