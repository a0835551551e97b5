// AscendOptimizer CPU twin: the system calls a run may not make (runtime/README.md "Forbidden system calls").
//
// A kernel or tiling program has no business creating processes, running programs, using the network or
// changing namespaces. The sandbox already contains such attempts; this filter makes them visible: the
// call is trapped, SIGSYS names it on stderr and the run ends with kForbiddenExit, which the parent
// judges hostile whatever the outputs. Installed first thing in the runner and the CPU-debug main.
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "twin_internal.h"

namespace ascendopt_twin {
namespace rt {
namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#endif

struct Forbidden {
    long nr;
    const char *name;
};
const Forbidden kForbidden[] = {
#ifdef __NR_fork
    {__NR_fork, "fork"},
#endif
#ifdef __NR_vfork
    {__NR_vfork, "vfork"},
#endif
    {__NR_execve, "execve"},       {__NR_execveat, "execveat"}, {__NR_socket, "socket"},   {__NR_socketpair, "socketpair"},
    {__NR_connect, "connect"},     {__NR_bind, "bind"},         {__NR_listen, "listen"},   {__NR_accept, "accept"},
    {__NR_accept4, "accept4"},     {__NR_ptrace, "ptrace"},     {__NR_unshare, "unshare"}, {__NR_setns, "setns"},
    {__NR_mount, "mount"},         {__NR_chroot, "chroot"},     {__NR_pivot_root, "pivot_root"},
    {__NR_process_vm_readv, "process_vm_readv"},            {__NR_process_vm_writev, "process_vm_writev"},
};

void OnSigsys(int, siginfo_t *info, void *)
{
    const char *name = "clone (a new process)";
    for (const Forbidden &f : kForbidden)
        if (f.nr == info->si_syscall) name = f.name;
    const char head[] = "\nascendopt-twin: forbidden system call: ";
    const char tail[] = " (the run made a system call no kernel or tiling program makes)\n";
    (void)!::write(2, head, sizeof head - 1);
    (void)!::write(2, name, std::strlen(name));
    (void)!::write(2, tail, sizeof tail - 1);
    _exit(kForbiddenExit);
}

}  // namespace

void GuardSyscalls()
{
#if defined(__x86_64__) || defined(__aarch64__)
    static bool done = false;
    if (done) return;
    done = true;
    struct sigaction sa {};
    sa.sa_sigaction = OnSigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, nullptr);

    constexpr size_t n = sizeof kForbidden / sizeof kForbidden[0];
    // The arch check and clone3 (6), two per forbidden call, clone's thread test and the allow (5). It was
    // `8 + 2 * n`: three past the end, on the stack, harmless only in -O1's frame layout (-O2 crashed).
    constexpr size_t len = 6 + 2 * n + 5;
    sock_filter prog[len];
    size_t k = 0;
    const auto nr = static_cast<uint32_t>(offsetof(seccomp_data, nr));
    prog[k++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    prog[k++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0);
    prog[k++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    prog[k++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nr);
    // clone3's flags sit in memory a filter cannot read: ENOSYS makes glibc fall back to clone.
    prog[k++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
    prog[k++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    for (const Forbidden &f : kForbidden) {
        prog[k++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(f.nr), 0, 1);
        prog[k++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    }
    // clone: a thread (CLONE_THREAD) is how blocks run; anything else is a new process.
    prog[k++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3);
    prog[k++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0]));
    prog[k++] = BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
    prog[k++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    prog[k++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    if (k != len) std::abort();
    sock_fprog fprog{static_cast<unsigned short>(k), prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
        const char msg[] = "ascendopt-twin: cannot install the system-call filter\n";
        (void)!::write(2, msg, sizeof msg - 1);
        _exit(kForbiddenExit);
    }
#endif
}

}  // namespace rt
}  // namespace ascendopt_twin
