"""The static audit of what a model changed: each rule refuses a hostile look-alike (rule, file,
line), lets the same construct through when the baseline has it, never reads comments or strings,
and catches the indirections one would try first (macros, `using`, `::`, pointers, splices)."""

from __future__ import annotations

import pytest

from ascendopt.evaluation.audit import AuditRefusal, audit_change

KERNEL = "op_kernel/k.cpp"
HEADER = "op_kernel/k_tiling.h"
SKELETON = """#include "kernel_operator.h"
#include "k_tiling.h"
// TOP
constexpr int32_t BUFFER_NUM = 1;

class KernelK {
public:
    __aicore__ inline void Process(GM_ADDR x, uint32_t len)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, len);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, len * sizeof(float));
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        // BODY
        inQueueX.FreeTensor(xLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::GlobalTensor<float> xGm;
};

extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR tiling)
{
    KernelK op;
    op.Process(x, 1024);
}
"""


def files(top: str = "", body: str = "", skeleton: str = SKELETON) -> dict[str, str]:
    kernel = skeleton.replace("// TOP", top or "// TOP").replace("// BODY", body or "// BODY")
    return {
        KERNEL: kernel,
        HEADER: "#pragma once\nstruct KTiling { uint32_t len; };\n",
        "reference.py": "import os\nos.getenv('X')\n",
    }


def audit(top: str = "", body: str = "", base_top: str = "", base_body: str = "") -> list[AuditRefusal]:
    return audit_change(files(base_top, base_body), files(top, body))


def line_of(text: str, needle: str, what: dict[str, str] | None = None) -> int:
    kernel = (what or {}).get(KERNEL, text)
    return next(i for i, line in enumerate(kernel.split("\n"), start=1) if needle in line)


def refused_once(found: list[AuditRefusal], rule: str, needle: str, top: str = "", body: str = "") -> None:
    assert [r.rule for r in found][:1] == [rule], [r.text() for r in found]
    first = found[0]
    assert first.file == KERNEL
    assert first.line == line_of(files(top, body)[KERNEL], needle), first.text()
    assert first.text().startswith(f"audit: {rule}: {KERNEL}:{first.line}: ")


# -- one hostile look-alike per rule, refused with its rule, file and line -------------------------

HOSTILE = [
    ("include", "#include <cstdio>", "", "<cstdio>"),
    ("include", '#include "/etc/passwd"', "", "/etc/passwd"),
    ("include", '#include "../../../secret.h"', "", "secret.h"),
    ("include", '#include "unistd.h"', "", "unistd.h"),
    ("include", '#include "ascendopt_twin/rt.h"', "", "ascendopt_twin"),
    ("io_call", "", 'FILE *f = fopen("/tmp/trace", "w");', "fopen"),
    ("io_call", "", 'const char *v = getenv("ASCENDOPT_OUT");', "getenv"),
    ("io_call", "", "if (fork() == 0) { for (;;) {} }", "fork"),
    ("io_call", "", 'std::cout << "x";', "cout"),
    ("io_call", "", 'std::ofstream out("/tmp/x");', "ofstream"),
    ("io_call", "", 'std::filesystem::remove("/tmp/x");', "filesystem"),
    ("io_call", "", "std::thread t([] {}); t.join();", "thread"),
    ("io_call", "", "usleep(10);", "usleep"),
    ("io_call", "", 'write(3, "x", 1);', "write"),
    ("io_call", "", 'printf("%d", 1);', "printf"),
    ("io_call", "", "exit(0);", "exit"),
    ("static_object", "struct Rewriter { ~Rewriter(); };\nstatic Rewriter rewriter;", "", "static Rewriter"),
    ("static_object", "AscendC::GlobalTensor<float> g_gm;", "", "g_gm"),
    ("static_object", "", "static AscendC::LocalTensor<float> keep;", "keep"),
    ("static_object", "", "thread_local int calls = 0;", "thread_local"),
    ("static_object", "struct S { static Holder h; };", "", "Holder"),
    ("exit_hook", "", "atexit([] {});", "atexit"),
    ("exit_hook", "", "std::set_terminate(nullptr);", "set_terminate"),
    ("exit_hook", "", "__cxa_atexit(nullptr, nullptr, nullptr);", "__cxa_atexit"),
    ("attribute", "__attribute__((destructor)) void Fin() {}", "", "destructor"),
    ("attribute", "[[gnu::constructor]] void Init() {}", "", "constructor"),
    ("attribute", "__attribute__((init_priority(101))) int x = 1;", "", "init_priority"),
    ("attribute", "", "__attribute__((cleanup(Fin))) int guard = 0;", "cleanup"),
    ("inline_asm", "", 'asm volatile("nop");', "asm"),
    ("inline_asm", "", '__asm__("nop");', "__asm__"),
    ("platform_macro", "", "#if defined(__CCE_KT_TEST__)\nlen = 0;\n#endif", "__CCE_KT_TEST__"),
    ("platform_macro", "", "#if !defined(__CCE_KT_TEST__)\nreturn;\n#endif", "__CCE_KT_TEST__"),
    ("platform_macro", "", "#ifdef ASCENDC_CPU_DEBUG\nlen = 0;\n#endif", "ASCENDC_CPU_DEBUG"),
    ("platform_macro", "", "#if __NPU_ARCH__ == 2201\nlen = 0;\n#endif", "__NPU_ARCH__"),
    ("platform_macro", "", "#if __has_include(<unistd.h>)\nlen = 0;\n#endif", "__has_include"),
    ("platform_macro", "#undef __CCE_KT_TEST__", "", "#undef"),
    ("platform_macro", "#define ASCENDC_CPU_DEBUG 0", "", "#define"),
    ("platform_macro", "", "if (__x86_64__) { return; }", "__x86_64__"),
    ("twin_internal", "", "xGm.addr_ = nullptr;", "addr_"),
    ("twin_internal", "", "float *p = xLocal.Ptr();", "Ptr"),
    ("twin_internal", "", "ascendopt_twin::rt::Report();", "ascendopt_twin"),
    ("twin_internal", "", "using namespace AscendC::twin_detail;", "twin_detail"),
    ("twin_internal", "", "Check(__builtin_FILE(), __builtin_LINE());", "__builtin_FILE"),
    ("twin_internal", "#define private public", "", "private"),
    ("pragma", '#pragma GCC optimize("O0")', "", "pragma"),
    ("pragma", "", '_Pragma("GCC unroll 4")', "_Pragma"),
]


@pytest.mark.parametrize(("rule", "top", "body", "needle"), HOSTILE, ids=[f"{h[0]}-{h[3]}" for h in HOSTILE])
def test_a_hostile_addition_is_refused_with_its_rule_file_and_line(
    rule: str, top: str, body: str, needle: str
) -> None:
    refused_once(audit(top, body), rule, needle, top, body)


@pytest.mark.parametrize(("rule", "top", "body", "needle"), HOSTILE, ids=[f"{h[0]}-{h[3]}" for h in HOSTILE])
def test_the_same_construct_in_the_baseline_passes(rule: str, top: str, body: str, needle: str) -> None:
    """A user's own operator is never refused for what it already does, wherever the code moves."""
    assert audit(top, body, base_top=top, base_body=body) == []
    if top and body == "":  # moved from namespace scope to a comment-shifted place still the same fact
        assert audit("// moved\n\n" + top, "", base_top=top) == []


def test_a_new_file_is_held_against_all_baseline_files() -> None:
    base = files(top="#include <cstdio>")
    cand = {**base, "op_kernel/extra.h": "#pragma once\n#include <cstdio>\n#include <unistd.h>\n"}
    found = audit_change(base, cand)
    assert [(r.rule, r.file, r.line) for r in found] == [("include", "op_kernel/extra.h", 3)]


# -- never refused ---------------------------------------------------------------------------------


def test_the_unchanged_operator_passes() -> None:
    assert audit_change(files(), files()) == []


@pytest.mark.parametrize(
    ("top", "body"),
    [
        ("// getenv fopen atexit __CCE_KT_TEST__ asm #include <cstdio>", ""),
        ("/* static std::string s;\n#include <unistd.h>\n#if defined(__CCE_KT_TEST__)\n#endif */", ""),
        ("", 'const char *msg = "fopen(getenv(\\"HOME\\")) atexit asm __CCE_KT_TEST__ addr_";'),
        ("", 'const char *raw = R"(\n#include <cstdio>\n#pragma GCC optimize("O0")\n)";'),
        ("", "AscendC::Muls(xLocal, xLocal, 2.0f, len);"),
        ("", "uint32_t time = len; uint32_t read = time + 1; len = read;"),  # locals, not the libc calls
        ("", "static constexpr float SCALE = 0.5f; static const int32_t TILE[2] = {1, 2};"),
        ('static const char *const NAME = "k";\nstatic int32_t g_counter = 0;', ""),
        ("enum class Mode { A, B };\nconstexpr Mode MODE = Mode::A;", ""),
        ('#include "k_tiling.h"\n#include "../op_kernel/k_tiling.h"', ""),
        ('#include <kernel_operator.h>\n#include "lib/matmul_intf.h"\n#pragma once', ""),
        ("#ifndef K_HELPER_H\n#define K_HELPER_H\n#define TILE(n) ((n) * 32)\n#endif", ""),
    ],
)
def test_comments_strings_and_legitimate_edits_pass(top: str, body: str) -> None:
    assert audit(top, body) == []


def test_double_buffering_passes() -> None:
    base = files()
    cand = {**base, KERNEL: base[KERNEL].replace("BUFFER_NUM = 1", "BUFFER_NUM = 2")}
    assert audit_change(base, cand) == []


def test_non_cpp_files_are_not_audited() -> None:
    base = files()
    cand = {
        **base,
        "reference.py": "import subprocess\nsubprocess.run(['sh'])\n",
        "notes.txt": "#include <x>",
    }
    assert audit_change(base, cand) == []


def test_reindenting_and_reordering_pass() -> None:
    base = files(top="static int32_t a = 1;\nstatic int32_t b = 2;", body="uint32_t n = len;\nlen = n;")
    moved = files(
        top="static int32_t b = 2;\n  static int32_t a = 1;", body="\n\n    uint32_t n = len;  len = n;"
    )
    assert audit_change(base, moved) == []


# -- defeats tried, each caught --------------------------------------------------------------------

DEFEATS = [
    ("macro naming a denied call", "#define GE getenv", 'const char *v = GE("X");', "io_call", "#define GE"),
    ("function-like macro", '#define OPEN(p) fopen(p, "w")', "", "io_call", "#define OPEN"),
    ("macro pasting a name", "#define CAT(a, b) a##b", 'CAT(get, env)("X");', "token_paste", "#define CAT"),
    (
        "macro hiding a static",
        "#define KEEP(T, n) static T n;",
        "KEEP(AscendC::LocalTensor<float>, t)",
        "static_object",
        "#define KEEP",
    ),
    (
        "macro naming a platform macro",
        "#define ON_CPU defined(__CCE_KT_TEST__)",
        "",
        "platform_macro",
        "ON_CPU",
    ),
    ("macro hiding an attribute", "#define FIN __attribute__((destructor))", "", "attribute", "#define FIN"),
    ("macro hiding asm", '#define NOP __asm__("nop")', "", "inline_asm", "#define NOP"),
    ("using namespace std", "", 'using namespace std; const char *v = getenv("X");', "io_call", "getenv"),
    ("using declaration", "using std::getenv;", "", "io_call", "getenv"),
    ("global scope qualifier", "", '::fopen("/tmp/x", "w");', "io_call", "fopen"),
    ("function pointer", "", "auto f = &fopen; (void)f;", "io_call", "fopen"),
    ("function pointer without &", "", "auto f = fopen; (void)f;", "io_call", "fopen"),
    (
        "lambda holding a static",
        "",
        "auto l = [] { static AscendC::TPipe p; return 0; }; l();",
        "static_object",
        "static AscendC::TPipe",
    ),
    ("atexit spelled with spaces", "", "std :: atexit ( nullptr );", "exit_hook", "atexit"),
    ("atexit split by a line continuation", "", "std::at\\\nexit(nullptr);", "exit_hook", "std::at"),
    ("include split by a line continuation", "#inc\\\nlude <cstdio>", "", "include", "#inc\\"),
    ("digraph directive", "%:include <cstdio>", "", "include", "%:include"),
    ("namespace alias", "namespace fs = std::filesystem;", "", "io_call", "namespace fs"),
    (
        "condition through a derived macro",
        "#ifdef __CCE_KT_TEST__\n#define ON_CPU 1\n#endif\n#if ON_CPU\n#endif",
        "",
        "platform_macro",
        "#ifdef",
    ),
    (
        "ifndef spelled as #if !defined",
        "",
        "#if ! defined  __CCE_KT_TEST__\nreturn;\n#endif",
        "platform_macro",
        "#if !",
    ),
    (
        "libc symbol interposed by definition",
        'extern "C" int rename(const char *, const char *) { return 0; }',
        "",
        "io_call",
        "rename",
    ),
    ("a denied name in an unparsable region", "", 'getenv("X") +* ;', "io_call", "getenv"),
]


@pytest.mark.parametrize(("what", "top", "body", "rule", "needle"), DEFEATS, ids=[d[0] for d in DEFEATS])
def test_a_defeat_is_caught(what: str, top: str, body: str, rule: str, needle: str) -> None:
    found = audit(top, body)
    assert rule in [r.rule for r in found], [r.text() for r in found]
    first = next(r for r in found if r.rule == rule)
    assert first.line == line_of(files(top, body)[KERNEL], needle), first.text()


def test_an_include_of_a_file_that_is_not_audited_as_cpp_is_refused() -> None:
    base = files()
    cand = {**base, "op_kernel/k.txt": 'getenv("X");\n'}
    cand[KERNEL] = base[KERNEL].replace('#include "k_tiling.h"', '#include "k_tiling.h"\n#include "k.txt"')
    found = audit_change(base, cand)
    assert [(r.rule, r.file, r.line) for r in found] == [("include", KERNEL, 3)]


def test_a_line_directive_is_refused() -> None:
    found = audit(top='#line 1 "op_kernel/k.cpp"')
    assert [(r.rule, r.line) for r in found] == [("pragma", 3)]


def test_a_baseline_platform_condition_lets_only_the_same_condition_through() -> None:
    base_body = "#ifndef __CCE_KT_TEST__\nlen = 1;\n#endif"
    assert audit(body="#if !defined(__CCE_KT_TEST__)\nlen = 2;\n#endif", base_body=base_body) == []
    found = audit(body="#if defined(__CCE_KT_TEST__)\nreturn;\n#endif", base_body=base_body)
    assert [r.rule for r in found] == ["platform_macro"]


def test_a_local_named_like_a_libc_call_does_not_hide_the_call() -> None:
    found = audit(body="uint32_t time = len;\nlen = time + (uint32_t)time(nullptr);")
    assert [r.rule for r in found] == ["io_call"]
