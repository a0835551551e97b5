"""The knob space of CANN open-repo operators: what a CANN developer tunes lives in the kernel's class
header and the host tiling program (look-alikes in tests/operators/cann_knobs_style.py)."""

from __future__ import annotations

from pathlib import Path

from ascendopt.operators.candidate import apply_knobs, baseline
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.extract import constants, number_value
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import knobs_of, merge_knobs
from ascendopt.operators.preproc import condition, inactive_lines
from ascendopt.operators.soc import arch_macros
from tests.operators.cann_knobs_style import write_sq_like, write_sub_like


def test_sizes_written_as_literal_arithmetic_are_values() -> None:
    assert number_value("24 * 1024") == 24576
    assert number_value("(1 << 16)") == 65536
    assert number_value("2 + 3 * 4") == 14
    assert number_value("8 * 1024UL") == 8192
    assert number_value("-1") == -1
    assert number_value("x * 2") is None
    assert number_value("1.5") is None
    src = CppSource.parse(
        "k.h", "constexpr int32_t A = 8 * 1024;\nconstexpr int32_t B = A * 2;\n#define C (4 * 16)\n"
    )
    assert {c.name: c.value for c in constants(src, "kernel")} == {"A": "8 * 1024", "C": "(4 * 16)"}


def test_arch_branches_read_as_the_socs_compiler_reads_them() -> None:
    b = arch_macros("Ascend910B4")
    assert condition("__CCE_AICORE__ == 220 || (defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003)", b) is True
    assert condition("defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3003 || __NPU_ARCH__ == 3113)", b) is False
    assert condition("!(defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003)", b) is True
    assert condition("__CCE_AICORE__ == 220", arch_macros("Ascend950")) is False  # 950 leaves it undefined
    assert condition("SOME_FEATURE", b) is None  # a macro from an include we do not follow
    text = (
        "#if __NPU_ARCH__ == 3003\nA\n#elif __NPU_ARCH__ == 2201\nB\n#else\nC\n#endif\n#if FOO\nD\n#endif\n"
    )
    assert sorted(set(range(1, 11)) - inactive_lines(text, b)) == [4]
    assert sorted(set(range(1, 11)) - inactive_lines(text, arch_macros("Ascend310P1"))) == [6]


def test_ops_nn_style_tile_in_the_class_header_moves_with_the_hosts_core_split(tmp_path: Path) -> None:
    op = load_operator(write_sq_like(tmp_path))
    assert [k.name for k in op.knobs] == ["PP_ELEMENT_NUM"]  # the grain sets the launch: no core cap
    tile = op.knobs[0]
    # the 910B branch (the #else), not the 3003 one above it
    assert (tile.kind, tile.side, tile.range.file, tile.current) == (
        "tile_length",
        "kernel",
        "op_kernel/sq_like.h",
        12288,
    )
    assert tile.range.start_line == 11
    assert [link.file for link in tile.links] == ["op_host/sq_like_tiling.cpp"]
    # up to what fits the UB: 2 queues x depth 2 x fp32 tiles of 12288 fill its 192 KB (16384 would not)
    assert 4096 in tile.values and max(tile.values) == 12288 and all(v % 8 == 0 for v in tile.values)
    cand = apply_knobs(op, baseline(op), {"PP_ELEMENT_NUM": 4096})
    assert (
        "PP_ELEMENT_NUM = 4 * 1024;\n#else\nconstexpr int32_t PP_ELEMENT_NUM = 4096;"
        in cand.files["op_kernel/sq_like.h"]
    )
    assert "MAX_ELEMENT_NUM_EACH_CORE = 4096;" in cand.files["op_host/sq_like_tiling.cpp"]


def test_ops_math_style_buffer_count_couples_the_hosts_ub_split(tmp_path: Path) -> None:
    op = load_operator(write_sub_like(tmp_path))
    by_name = {k.name: k for k in op.knobs}
    # schMode follows the dtype: no knob; the platform's core count the block factor divides by: a cap
    assert set(by_name) == {"BUFFER_NUM", "MIN_SPLIT_THRESHOLD", "coreNum_cap"}
    buf = by_name["BUFFER_NUM"]
    assert (buf.side, buf.range.file, buf.current, buf.values) == (
        "kernel",
        "op_kernel/sub_like.h",
        2,
        [1, 2, 3, 4],
    )
    assert [(s.range.file, s.factor) for s in buf.scaled_links] == [("op_host/sub_like_tiling.cpp", 3)]
    threshold = by_name["MIN_SPLIT_THRESHOLD"]
    assert (threshold.kind, threshold.side, threshold.current) == ("threshold", "host", 1024)
    assert 0 in threshold.values
    cand = apply_knobs(op, baseline(op), {"BUFFER_NUM": 3})
    assert "constexpr int32_t BUFFER_NUM = 3;" in cand.files["op_kernel/sub_like.h"]
    assert "constexpr int64_t BUFFER_NUM = 9;" in cand.files["op_host/sub_like_tiling.cpp"]


def _knobs(host: str, kernel: str) -> list:
    out = []
    for path, side, text in (("h.cpp", "host", host), ("k.h", "kernel", kernel)):
        src = CppSource.parse(path, text)
        issues: list[Issue] = []
        out += knobs_of(src, side, constants(src, side), issues)  # type: ignore[arg-type]
        assert issues == []
    return merge_knobs(out)


def test_what_is_not_coupled() -> None:
    # a host count that is no whole multiple of the kernel's: two knobs, named by side
    knobs = _knobs("constexpr int BUFFER_NUM = 5;\n", "constexpr int BUFFER_NUM = 2;\n")
    assert sorted(k.name for k in knobs) == ["host.BUFFER_NUM", "kernel.BUFFER_NUM"]
    assert all(not k.scaled_links for k in knobs)
    # a core split equal to two kernel tiles: which one it follows is unknown, nothing is linked
    knobs = _knobs(
        "constexpr int MIN_PER_CORE = 4096;\n",
        "constexpr int TILE_LENGTH = 4096;\nconstexpr int PP_ELEMENT_NUM = 4096;\n",
    )
    assert sorted(k.name for k in knobs) == ["MIN_PER_CORE", "PP_ELEMENT_NUM", "TILE_LENGTH"]
    assert all(not k.links for k in knobs)
    # host-side kinds are not read in a kernel file
    assert _knobs("", "constexpr int MIN_SPLIT_THRESHOLD = 1024;\nconstexpr int MIN_PER_CORE = 8;\n") == []


def test_headers_of_other_architectures_are_not_read(tmp_path: Path) -> None:
    op_dir = write_sub_like(tmp_path)
    entry = op_dir / "op_kernel" / "sub_like.cpp"
    (op_dir / "op_kernel" / "arch35").mkdir()
    (op_dir / "op_kernel" / "arch35" / "sub_like_regbase.h").write_text("constexpr int32_t BUFFER_NUM = 4;\n")
    (op_dir / "op_kernel" / "sub_like_950.h").write_text("constexpr int32_t QUEUE_DEPTH = 3;\n")
    entry.write_text(
        '#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510\n#include "arch35/sub_like_regbase.h"\n'
        '#include "sub_like_950.h"\n#endif\n' + entry.read_text()
    )
    assert sorted(k.name for k in load_operator(op_dir).knobs) == [
        "BUFFER_NUM",
        "MIN_SPLIT_THRESHOLD",
        "coreNum_cap",
    ]


def test_one_name_with_many_values_gives_distinct_knobs() -> None:
    kernel = "".join(f"namespace n{v} {{ constexpr int BUFFER_NUM = {v}; }}\n" for v in (2, 3, 7))
    knobs = _knobs("constexpr int BUFFER_NUM = 5;\n", kernel)
    names = [k.name for k in knobs]
    assert len(names) == len(set(names)) == 4
    assert "kernel.BUFFER_NUM@k.h:3" in names


def test_per_dtype_ub_factors_are_tile_lengths() -> None:
    # ops-nn add_rms_norm's host sizes its UB tile per dtype (and per split-D mode) under these names
    host = (
        "constexpr uint32_t UB_FACTOR_B16 = 12288;\nconstexpr uint32_t UB_FACTOR_B32_CUTD = 9696;\n"
        "constexpr uint32_t UB_FACTOR_COUNT = 3;\nconstexpr uint32_t MY_UB_FACTOR = 512;\n"
    )
    knobs = {k.name: k for k in _knobs(host, "")}
    assert sorted(knobs) == ["UB_FACTOR_B16", "UB_FACTOR_B32_CUTD"]
    assert {k.kind for k in knobs.values()} == {"tile_length"}
    assert knobs["UB_FACTOR_B32_CUTD"].current == 9696
