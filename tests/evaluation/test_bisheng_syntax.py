"""bisheng-only syntax in Catlass-style kernels, rewritten for g++ with every line kept
(cpu_twin/bisheng.py)."""

import subprocess

import pytest

from ascendopt.evaluation.cpu_twin import bisheng

KERNEL = """#define HD __forceinline__ [host, aicore]
template <class T>
__forceinline__ [aicore] constexpr
T Twice(T v) { return v * 2; }
int table[4];
int Pick(int aicore) { return table[aicore]; }  // an index named aicore stays
template <class P>
struct Runner {
    template <int32_t CORE = g_coreType>
    __forceinline__ [aicore]
    void operator()(P const &p);

    template <>
    __forceinline__ [aicore]
    void operator()<AscendC::AIC>(P const &p) { Cube(p); }

    template <>
    __forceinline__ [aicore]
    void
    Step<AIV>(P const &p) { Vector(p); }
};
template <> void Free<AscendC::AIC>(int) {}
"""


def test_lines_are_kept_and_the_bracketed_attribute_goes():
    out = bisheng.rewrite(KERNEL, cube=True)
    assert out.count("\n") == KERNEL.count("\n")
    assert out.count("[aicore]") == 1 and "table[aicore]" in out  # only the index is left
    assert "[host, aicore]" not in out


def test_the_in_class_specialisation_for_the_built_core_becomes_a_plain_member():
    lines = bisheng.rewrite(KERNEL, cube=True).splitlines()
    assert lines[14].split() == ["void", "operator()", "(P", "const", "&p)", "{", "Cube(p);", "}"]
    assert lines[12].strip() == ""  # its `template <>`
    # the other core's gets a name of its own, on its own line still
    assert lines[19].strip() == "Step_ascendopt_AIV(P const &p) { Vector(p); }"
    # an explicit specialisation at namespace scope is valid for g++ and left alone
    assert lines[21] == "template <> void Free<AscendC::AIC>(int) {}"


def test_for_the_vector_core_the_other_specialisation_is_kept():
    lines = bisheng.rewrite(KERNEL, cube=False).splitlines()
    assert lines[14].split()[:2] == ["void", "ascendopt_core_AIC(P"]
    assert lines[19].split() == ["Step", "(P", "const", "&p)", "{", "Vector(p);", "}"]


def test_a_kernel_is_a_cube_kernel_only_without_vector_core_code():
    assert bisheng.cube_kernel("void operator()<AscendC::AIV>(P const &) {}\nAscendC::Mmad(c, a, b, p);")
    assert not bisheng.cube_kernel(
        "AscendC::Mmad(c, a, b, p);\nAscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);"
    )  # mixed
    assert not bisheng.cube_kernel("Add(z, x, y, n);")
    assert not bisheng.cube_kernel("// Mmad(c, a, b, p) in a comment")


def test_text_without_bisheng_syntax_is_returned_as_is():
    text = "int a[3];\ntemplate <> struct X<int> {};\n"
    assert bisheng.rewrite(text, cube=True) == text


def test_a_kernel_with_cube_work_and_cross_core_flags_is_mixed():
    assert bisheng.mixed_kernel("AscendC::Mmad(c, a, b, p);\nAscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);")
    assert not bisheng.mixed_kernel("AscendC::Mmad(c, a, b, p);")  # cube only
    assert not bisheng.mixed_kernel("CrossCoreSetFlag<0, PIPE_MTE3>(1);\nAdd(z, x, y, n);")  # vector only
    assert not bisheng.mixed_kernel("Add(z, x, y, n); // Mmad( and CrossCoreWaitFlag in a comment")


def test_a_call_naming_the_core_specialisation_reaches_the_plain_member():
    text = (
        "struct K {\n    template <int32_t C = g_coreType> void operator()(P const &p);\n"
        "    template <>\n    __forceinline__ [aicore] void operator()<AscendC::AIV>(P const &p)"
        " { V(p); }\n};\n"
        "void Run(K &k, P const &p) {\n    k.template operator()<g_coreType>(p);\n}\n"
    )
    out = bisheng.rewrite(text, cube=False)
    assert out.count("\n") == text.count("\n")
    assert "k.operator()(p);" in out and "template operator()<g_coreType>" not in out


def test_an_in_class_specialisation_of_a_member_class_for_a_type_becomes_a_constrained_partial_one():
    text = (
        "class Kernel {\n    template <class T>\n    struct Helper { using type = typename T::In; };\n"
        "    template<>\n    struct Helper<void> {\n        using type = void;\n    };\n"
        "    __forceinline__ [aicore] void Run();\n};\n"
    )
    out = bisheng.rewrite(text, cube=False)
    assert out.count("\n") == text.count("\n")
    assert (
        "template <class ascendopt_T> requires std::is_same_v<ascendopt_T, void> struct Helper<ascendopt_T>"
        in out
    )
    assert "template<>" not in out


# C++17 aggregates with a defaulted constructor (Catlass's callback structs), braced-initialised.
AGGREGATES = """struct Kernel;
struct Waiter {
    __forceinline__ [aicore]
    Waiter() = default;
    ~ Waiter() = default;
    __forceinline__ [aicore] void operator()() const { Wait(id); }
    Kernel *owner{nullptr};
    unsigned id;
};
struct Tiles {
    Tiles() = default;
    Tiles(int m) : m(m) {}
    int m;
};
struct Shape {
    explicit Shape() = default;
    int n;
};
struct Kernel {
    Waiter waiters[2];
    void Init() { for (unsigned i = 0; i < 2; ++i) waiters[i] = {this, i}; }
};
"""


def test_a_class_whose_only_constructor_is_defaulted_stays_an_aggregate():
    lines = bisheng.rewrite(AGGREGATES, cube=True).splitlines()
    assert len(lines) == AGGREGATES.count("\n")
    assert lines[3].strip() == "void ascendopt_cxx17_aggregate();"
    # hostile to the rewrite: where another constructor is user-provided the class is no aggregate in
    # C++17 either, and taking `Tiles() = default;` away would take its default constructor away
    assert lines[4].strip() == "~ Waiter() = default;"  # a destructor: no constructor, left as written
    assert lines[10].strip() == "Tiles() = default;"
    assert lines[15].strip() == "explicit Shape() = default;"  # explicit: left as written


@pytest.mark.slow
def test_the_rewritten_aggregate_compiles_as_cpp20(tmp_path):
    """g++ -std=c++20 refuses `waiters[i] = {this, i}` on the text as written (Waiter is no aggregate
    there) and takes the rewritten one, as bisheng's C++17 takes the original."""
    head = "#define __forceinline__ inline\nvoid Wait(unsigned);\n"
    written = head + AGGREGATES.replace("[aicore]", "")
    rewritten = head + bisheng.rewrite(AGGREGATES, cube=True)
    for text, ok in ((written, False), (rewritten, True)):
        src = tmp_path / "a.cpp"
        src.write_text(text)
        done = subprocess.run(
            ["g++", "-std=c++20", "-fsyntax-only", str(src)], capture_output=True, text=True
        )
        assert (done.returncode == 0) == ok, done.stderr
