// AscendOptimizer CPU twin: evidence, what a run hands its parent (runtime/README.md "Evidence").
//
// With ASCENDOPT_EVIDENCE_FD set, outputs, findings, trace and result go to that descriptor, which the
// parent opened on a file no path inside the sandbox reaches, as sections; `Seal` ends them and leaves
// with _exit, so no static destructor or atexit handler (the candidate's included) runs after the
// evidence is final. Without it (a run by hand) each piece is written to the file named for it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "twin_internal.h"

namespace ascendopt_twin {
namespace rt {
namespace {

int g_fd = -2;  // -2: not read yet, -1: none
int g_sections = 0;

void WriteAll(const void *data, size_t n)
{
    const char *p = static_cast<const char *>(data);
    while (n) {
        ssize_t w = ::write(g_fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(3);  // the parent reads no evidence: the run counts as crashed
        p += w;
        n -= static_cast<size_t>(w);
    }
}

}  // namespace

bool EvidenceToFd()
{
    if (g_fd == -2) {
        const char *v = std::getenv("ASCENDOPT_EVIDENCE_FD");
        g_fd = v && *v ? std::atoi(v) : -1;
        if (g_fd >= 0) {
            static const char head[] = "ascendopt-evidence 1\n";
            WriteAll(head, sizeof head - 1);
        }
    }
    return g_fd >= 0;
}

void Deliver(const std::string &name, const std::string &path, const void *data, size_t n)
{
    if (EvidenceToFd()) {
        std::string head = name + " " + std::to_string(n) + "\n";
        WriteAll(head.data(), head.size());
        WriteAll(data, n);
        ++g_sections;
        return;
    }
    if (path.empty()) return;
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return;
    if (n) std::fwrite(data, 1, n, f);
    std::fclose(f);
}

void TraceOpen(const std::string &path)
{
    G.traceBuf = "{\"format\":\"ascendopt-trace\",\"version\":1}\n";
    G.traceOn = true;
    g_trace_on = true;
    G.tracePath = path;
    if (!EvidenceToFd()) G.trace = std::fopen(path.c_str(), "wb");
}

void TraceFlush()
{
    if (!G.traceOn || G.traceBuf.empty()) return;
    if (EvidenceToFd())
        Deliver("trace.jsonl", "", G.traceBuf.data(), G.traceBuf.size());
    else if (G.trace)
        std::fwrite(G.traceBuf.data(), 1, G.traceBuf.size(), G.trace);
    G.traceBuf.clear();
}

[[noreturn]] void Seal(int code)
{
    TraceFlush();
    if (G.trace) std::fclose(G.trace);
    G.trace = nullptr;
    if (EvidenceToFd()) {
        std::string end = "end " + std::to_string(g_sections) + "\n";
        WriteAll(end.data(), end.size());
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

}  // namespace rt
}  // namespace ascendopt_twin
