// AscendOptimizer CPU twin: CANN CPU-debug library stand-in (GmAlloc, ICPU_RUN_KF, …) for a sample's own main.cpp.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "ascendopt_twin/cpu_debug.h"
#include "twin_internal.h"

namespace ascendopt_twin {
namespace cpu {
namespace {

using rt::G;

// One host program = one session; configured once from the environment (see runtime/README.md).
struct Session {
    bool ready = false;
    std::string findings, result;
    uint32_t ubSize = 196608;
    uint32_t coreAiv = 40;
    uint64_t tilingKey = 0;
    KernelMode mode = KernelMode::AIV_MODE;
    int launches = 0, aborted = 0, gmCount = 0;
    int64_t lastBlockDim = 0;
    size_t printed = 0;
    std::string kernels;
};
Session &Ses()
{
    static Session s;
    return s;
}

std::string Env(const char *name, const char *dflt = "")
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string(dflt);
}

void WriteResult(const char *status, const std::string &message)
{
    Session &s = Ses();
    if (s.result.empty()) return;
    FILE *f = std::fopen(s.result.c_str(), "wb");
    if (!f) return;
    size_t errors = 0, warnings = 0;
    for (const rt::Finding &x : G.findings) (x.error ? errors : warnings)++;
    std::string o = std::string("{\"status\":\"") + status + "\",\"mode\":\"cpu_debug\",\"launches\":" + std::to_string(s.launches) +
                    ",\"block_dim\":" + std::to_string(s.lastBlockDim) + ",\"blocks_aborted\":" + std::to_string(s.aborted) +
                    ",\"findings_errors\":" + std::to_string(errors) + ",\"findings_warnings\":" + std::to_string(warnings) +
                    ",\"ub_bytes_per_block\":" + std::to_string(G.ubHighMax) + ",\"trace_format_version\":1,\"kernels\":\"";
    rt::JsonEscape(o, s.kernels);
    o += "\",\"message\":\"";
    rt::JsonEscape(o, message);
    o += "\"}\n";
    std::fwrite(o.data(), 1, o.size(), f);
    std::fclose(f);
}

// Findings so far, to the findings file and (the new ones) to stderr, as CANN's CPU mode prints its errors.
void Publish(const char *status, const std::string &message)
{
    Session &s = Ses();
    rt::TraceFlush();
    if (G.trace) std::fflush(G.trace);
    rt::WriteFindings(s.findings);
    WriteResult(status, message);
    for (; s.printed < G.findings.size(); ++s.printed) {
        const rt::Finding &x = G.findings[s.printed];
        std::fprintf(stderr, "[ascendopt-twin] %s %s at %s:%d: %s\n", x.error ? "error" : "warning", x.kind.c_str(),
                     x.file.empty() ? "?" : x.file.c_str(), x.line, x.message.c_str());
    }
}

void OnCrash(int sig)
{
    static volatile sig_atomic_t once = 0;
    if (once) _exit(128 + sig);
    once = 1;
    char buf[512];
    rt::CrashMessage(sig, buf, sizeof buf);
    std::fprintf(stderr, "[ascendopt-twin] %s\n", buf);
    Publish("kernel_error", buf);
    _exit(1);
}

void Finish()
{
    rt::TraceFlush();
    if (G.trace) std::fclose(G.trace);
    G.trace = nullptr;
}

void Init()
{
    Session &s = Ses();
    if (s.ready) return;
    s.ready = true;
    s.findings = Env("ASCENDOPT_TWIN_FINDINGS");
    s.result = Env("ASCENDOPT_TWIN_RESULT");
    s.ubSize = static_cast<uint32_t>(std::strtoul(Env("ASCENDOPT_TWIN_UB_SIZE", "196608").c_str(), nullptr, 10));
    s.coreAiv = static_cast<uint32_t>(std::strtoul(Env("ASCENDOPT_TWIN_CORE_NUM_AIV", "40").c_str(), nullptr, 10));
    G.sourceRoot = Env("ASCENDOPT_TWIN_SOURCE_ROOT");
    G.autoSync = Env("ASCENDOPT_TWIN_AUTO_SYNC", "on") != "off";
    G.ubSize = s.ubSize;
    std::string trace = Env("ASCENDOPT_TWIN_TRACE");
    if (!trace.empty()) {
        G.trace = std::fopen(trace.c_str(), "wb");
        if (G.trace) {
            std::fputs("{\"format\":\"ascendopt-trace\",\"version\":1}\n", G.trace);
            rt::g_trace_on = true;
        } else {
            std::fprintf(stderr, "[ascendopt-twin] cannot write trace %s\n", trace.c_str());
        }
    }
    std::signal(SIGSEGV, OnCrash);
    std::signal(SIGBUS, OnCrash);
    std::signal(SIGFPE, OnCrash);
    std::atexit(Finish);
    WriteResult("ok", "no kernel launched yet");
}

}  // namespace

void SetTilingKey(uint64_t key)
{
    Init();
    Ses().tilingKey = key;
}

void RunKernel(const char *kernel, int64_t blockDim, const std::function<void()> &body, const char *file, int line)
{
    Init();
    Session &s = Ses();
    s.kernels += (s.kernels.empty() ? "" : ",") + std::string(kernel);
    if (s.mode != KernelMode::AIV_MODE) {
        rt::Report("unsupported_kernel_mode", true, file, line,
                   "ICPU_RUN_KF(%s): SetKernelMode other than AIV_MODE (cube or mixed kernels) does not run on the CPU twin; the kernel was not run",
                   kernel);
        Publish("kernel_error", "kernel mode not supported");
        return;
    }
    if (blockDim <= 0 || blockDim > 65535) {
        rt::Report("bad_block_dim", true, file, line, "ICPU_RUN_KF(%s): block dim %lld is outside [1, 65535]; the kernel was not run", kernel,
                   static_cast<long long>(blockDim));
        Publish("kernel_error", "bad block dim");
        return;
    }
    // A launch starts after the previous one completed: new race phase, fresh hazard state.
    G.phase++;
    for (rt::GmBuf &g : G.gm) g.gran.clear();
    uint32_t phase0 = G.phase;
    int aborted = rt::RunBlocks(static_cast<int>(blockDim), body, s.ubSize, s.tilingKey, 0xFFFFFFFFu);
    rt::g_cur = nullptr;  // back on the host: findings from here on belong to no block
    rt::g_blk = nullptr;
    if (blockDim > static_cast<int64_t>(s.coreAiv) && G.phase > phase0)
        rt::Report("syncall_block_dim_exceeds_cores", true, file, line,
                   "SyncAll with block_dim %lld > %u vector cores: not all blocks are resident at once, so the NPU deadlocks",
                   static_cast<long long>(blockDim), s.coreAiv);
    G.phase++;
    s.launches++;
    s.aborted += aborted;
    s.lastBlockDim = blockDim;
    bool bad = s.aborted > 0;
    Publish(bad ? "kernel_error" : "ok", bad ? std::to_string(s.aborted) + " block(s) stopped on a fatal finding (see findings)" : "");
}

}  // namespace cpu
}  // namespace ascendopt_twin

namespace AscendC {

void *GmAlloc(size_t size)
{
    ascendopt_twin::cpu::Init();
    auto &s = ascendopt_twin::cpu::Ses();
    std::string name = "GmAlloc#" + std::to_string(s.gmCount++) + " (" + std::to_string(size) + " B)";
    void *p = ascendopt_twin::rt::GmAllocate(name, size, 4, 0);
    if (!p) std::fprintf(stderr, "[ascendopt-twin] GmAlloc: out of memory allocating %zu B\n", size);
    return p;
}

void GmFree(void *ptr)
{
    if (ptr == nullptr) return;
    if (!ascendopt_twin::rt::GmRelease(ptr))
        ascendopt_twin::rt::Report("gm_free_unknown", true, nullptr, 0, "GmFree(%p): not a pointer GmAlloc returned (or freed twice)", ptr);
}

void SetKernelMode(KernelMode mode)
{
    ascendopt_twin::cpu::Init();
    ascendopt_twin::cpu::Ses().mode = mode;
}

}  // namespace AscendC
