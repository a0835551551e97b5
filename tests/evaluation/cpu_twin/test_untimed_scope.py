"""The raw-GM-pointer scan reads what the kernel build for the spec's SoC compiles: the kernel and
the headers it includes under the SoC's architecture macros, not every header beside it (ops-nn norm
operators keep arch35/ headers a 910B build never includes)."""

from __future__ import annotations

from ascendopt.evaluation.cpu_twin.build import kernel_macros
from ascendopt.evaluation.cpu_twin.untimed import compiled_kernel_files, raw_gm_findings
from ascendopt.operators.soc import arch_macros, soc

RAW = "    auto p = (__gm__ float *)x; p[0] = 1;\n"
FILES = {
    "op_kernel/k.cpp": (
        '#include "k.h"\n'
        "#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510\n"
        '#include "arch35/k_regbase.h"\n'
        "#endif\n"
        '#include "../sib/base.h"\n'
    ),
    "op_kernel/k.h": (
        "#ifndef K_H\n#define K_H\n"
        "__aicore__ void A(GM_ADDR x) {\n"
        "#if __CCE_AICORE__ == 220\n" + RAW + "#endif\n"
        "#if __NPU_ARCH__ == 3510\n" + RAW + "#endif\n"
        "#if SOME_OPTION\n" + RAW + "#endif\n"
        "}\n#endif\n"
    ),
    "op_kernel/arch35/k_regbase.h": "__aicore__ void B(GM_ADDR x) {\n" + RAW + "}\n",
    "op_kernel/unused.h": "__aicore__ void C(GM_ADDR x) {\n" + RAW + "}\n",
    "sib/base.h": "__aicore__ void D(GM_ADDR x) {\n" + RAW + "}\n",  # a sibling's header at its build place
}


def _sites(soc: str) -> list[tuple[str, int]]:
    compiled = compiled_kernel_files("op_kernel/k.cpp", FILES, arch_macros(soc))
    return sorted((f.file, f.line) for p, t in compiled.items() for f in raw_gm_findings(p, t))


def test_a_910b_build_is_scanned_as_it_compiles() -> None:
    # the 220 branch and the unreadable SOME_OPTION one (a build might compile it), the sibling's
    # header; not the 3510 branch, the arch35 header or a header nothing includes
    assert _sites("Ascend910B4") == [("op_kernel/k.h", 5), ("op_kernel/k.h", 11), ("sib/base.h", 2)]


def test_a_950_build_reads_its_own_branches_and_headers() -> None:
    assert _sites("Ascend950PR") == [
        ("op_kernel/arch35/k_regbase.h", 2),
        ("op_kernel/k.h", 8),
        ("op_kernel/k.h", 11),
        ("sib/base.h", 2),
    ]


def _cpu_debug_sites(kernel: str) -> list[int]:
    files = {"op_kernel/k.cpp": kernel}
    compiled = compiled_kernel_files("op_kernel/k.cpp", files, kernel_macros(soc("Ascend910B4")))
    return [f.line for p, t in compiled.items() for f in raw_gm_findings(p, t)]


def test_work_behind_the_cpu_debug_macros_is_scanned_as_the_twin_compiles_it() -> None:
    """The twin builds with ASCENDC_CPU_DEBUG and __CCE_KT_TEST__ defined: a raw GM loop the model put
    under `#if defined(__CCE_KT_TEST__)` runs on the twin and is found; its NPU-only twin is not."""
    loop = "    for (int i = 0; i < 8; i++) ((__gm__ float *)x)[i] = 0;\n"
    head = "__aicore__ void A(GM_ADDR x) {\n"
    twin_first = head + "#if defined(__CCE_KT_TEST__)\n" + loop + "#else\n" + loop + "#endif\n}\n"
    assert _cpu_debug_sites(twin_first) == [3]
    npu_first = head + "#ifndef __CCE_KT_TEST__\n" + loop + "#else\n" + loop + "#endif\n}\n"
    assert _cpu_debug_sites(npu_first) == [5]
    debug = head + "#if ASCENDC_CPU_DEBUG == 1 && defined(__NPU_ARCH__)\n" + loop + "#endif\n}\n"
    assert _cpu_debug_sites(debug) == [3]
