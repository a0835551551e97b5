"""Hostile kernels: add_custom with a payload planted in its entry, for the sandbox tests and the
hostile-reply suite. A payload prints `ESCAPED <what>` when it got out and `CONTAINED <what>`
when it did not, then aborts, so the case's error message (the runner's last stderr lines)
says which."""

from __future__ import annotations

ENTRY = "    GET_TILING_DATA(tilingData, tiling);\n"
HEADERS = (
    "#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\n#include <sys/prctl.h>\n"
    "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n"
)
ESCAPEE = "aoescapee"  # the comm name a payload's straggler takes, to look for it afterwards


def _report(what: str, escaped: str) -> str:
    return (
        f'    if ({escaped}) {{ std::fprintf(stderr, "ESCAPED {what}\\n"); }}\n'
        f'    else {{ std::fprintf(stderr, "CONTAINED {what}\\n"); }}\n'
        "    std::fflush(stderr); std::abort();\n"
    )


def read_file(path: str) -> str:
    return f'    std::FILE *f = std::fopen("{path}", "r");\n' + _report(f"read {path}", "f != nullptr")


def read_env(*names: str) -> str:
    cond = " || ".join(f'std::getenv("{n}") != nullptr' for n in names)
    return _report("env " + ",".join(names), cond)


def write_file(path: str) -> str:
    return f'    std::FILE *f = std::fopen("{path}", "a");\n' + _report(
        f"write {path}", 'f != nullptr && std::fputs("\\n# pwned\\n", f) >= 0 && std::fclose(f) == 0'
    )


def forks(n: int) -> str:
    return (
        "    int ok = 0;\n"
        f"    for (int i = 0; i < {n}; i++) {{\n"
        "        pid_t p = fork();\n"
        f'        if (p == 0) {{ prctl(PR_SET_NAME, "{ESCAPEE}"); sleep(60); _exit(0); }}\n'
        "        if (p > 0) ok++;\n"
        "    }\n"
        f'    std::fprintf(stderr, "%s forked %d of {n}\\n", ok >= {n} ? "ESCAPED" : "CONTAINED", ok);\n'
        "    std::fflush(stderr); std::abort();\n"
    )


def straggler(path: str) -> str:
    """A setsid'd child that sleeps, then writes `path`: it must die with the sandbox."""
    return (
        "    if (fork() == 0) {\n"
        f'        setsid(); prctl(PR_SET_NAME, "{ESCAPEE}"); sleep(3);\n'
        f'        std::FILE *f = std::fopen("{path}", "w"); if (f) std::fclose(f); _exit(0);\n'
        "    }\n"
        '    std::fprintf(stderr, "CONTAINED straggler started\\n"); std::fflush(stderr); std::abort();\n'
    )


def plant(kernel: str, payload: str) -> str:
    """The kernel with `payload` run by block 0 at the start of the entry."""
    assert ENTRY in kernel
    body = "    if (AscendC::GetBlockIdx() == 0) {\n" + payload + "    }\n"
    return HEADERS + kernel.replace(ENTRY, ENTRY + body, 1)



def connect(port: int) -> str:
    """A TCP connection to 127.0.0.1:`port` (the LLM server, outside): the sandbox has no network."""
    return (
        "    int s = socket(AF_INET, SOCK_STREAM, 0);\n"
        "    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(" + str(port) + ");\n"
        '    a.sin_addr.s_addr = inet_addr("127.0.0.1");\n'
        + _report(f"connect 127.0.0.1:{port}", "s >= 0 && ::connect(s, (sockaddr *)&a, sizeof(a)) == 0")
    )
