// AscendOptimizer CPU twin: CANN CPU-debug library stand-in (GmAlloc, ICPU_RUN_KF, …) for a sample's own main.cpp.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <fcntl.h>
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
    std::string status = "ok", message = "no kernel launched yet";
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
    rt::Deliver("result.json", s.result, o.data(), o.size());
}

// The new findings to stderr, as CANN's CPU mode prints its errors; by hand (no evidence descriptor)
// also the findings and result files so far. Evidence is delivered once, at the end (`Conclude`).
void Publish(const char *status, const std::string &message)
{
    Session &s = Ses();
    s.status = status;
    s.message = message;
    if (!rt::EvidenceToFd()) {
        rt::TraceFlush();
        if (G.trace) std::fflush(G.trace);
        rt::WriteFindings(s.findings);
        WriteResult(status, message);
    }
    for (; s.printed < G.findings.size(); ++s.printed) {
        const rt::Finding &x = G.findings[s.printed];
        std::fprintf(stderr, "[ascendopt-twin] %s %s at %s:%d: %s\n", x.error ? "error" : "warning", x.kind.c_str(),
                     x.file.empty() ? "?" : x.file.c_str(), x.line, x.message.c_str());
    }
}

}  // namespace

// The program's end: the output files main.cpp wrote (ASCENDOPT_TWIN_OUTPUTS, one path a line),
// findings and result delivered, then _exit: no destructor or atexit handler runs after them.
[[noreturn]] void Conclude(int code)
{
    Session &s = Ses();
    if (rt::EvidenceToFd()) {
        std::string list = Env("ASCENDOPT_TWIN_OUTPUTS");
        for (size_t at = 0; at < list.size();) {
            size_t nl = list.find('\n', at);
            std::string path = list.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
            at = nl == std::string::npos ? list.size() : nl + 1;
            int fd = path.empty() ? -1 : ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) continue;  // not written: the parent says which output is missing
            std::string data;
            char buf[65536];
            for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) data.append(buf, static_cast<size_t>(n));
            ::close(fd);
            rt::Deliver(path, "", data.data(), data.size());
        }
    }
    rt::WriteFindings(s.findings);
    WriteResult(s.status.c_str(), s.message);
    rt::Seal(code);
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
    Conclude(1);
}

// main.cpp ended through exit() rather than returning: its exit status is unknown here.
void AtExit() { Conclude(0); }

void Init()
{
    Session &s = Ses();
    if (s.ready) return;
    s.ready = true;
    rt::GuardSyscalls();
    G.divideValue = std::strtoull(Env("ASCENDOPT_TWIN_DIVIDE_VALUE", "0").c_str(), nullptr, 10);
    s.findings = Env("ASCENDOPT_TWIN_FINDINGS");
    s.result = Env("ASCENDOPT_TWIN_RESULT");
    s.ubSize = static_cast<uint32_t>(std::strtoul(Env("ASCENDOPT_TWIN_UB_SIZE", "196608").c_str(), nullptr, 10));
    s.coreAiv = static_cast<uint32_t>(std::strtoul(Env("ASCENDOPT_TWIN_CORE_NUM_AIV", "40").c_str(), nullptr, 10));
    G.sourceRoot = Env("ASCENDOPT_TWIN_SOURCE_ROOT");
    G.autoSync = Env("ASCENDOPT_TWIN_AUTO_SYNC", "on") != "off";
    G.ubSize = s.ubSize;
    std::string trace = Env("ASCENDOPT_TWIN_TRACE");
    if (!trace.empty()) {
        rt::TraceOpen(trace);
        if (!rt::EvidenceToFd() && !G.trace) std::fprintf(stderr, "[ascendopt-twin] cannot write trace %s\n", trace.c_str());
    }
    std::signal(SIGSEGV, OnCrash);
    std::signal(SIGBUS, OnCrash);
    rt::CatchArithmetic(OnCrash);
    std::atexit(AtExit);
    if (!rt::EvidenceToFd()) WriteResult("ok", "no kernel launched yet");
}

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
                   "SyncAll (or a mode-0 CrossCoreSetFlag round) with block_dim %lld > %u vector cores: not all blocks are resident at once, so the NPU deadlocks",
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
