from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendopt.operators.candidate import KnobError, apply_knobs, baseline
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.extract import constants, kernel_entries, macro_tiling_fields
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import knobs_of
from tests.operators.synthetic import write_cann_open


def _knobs(text: str) -> tuple[list, list[Issue]]:
    src = CppSource.parse("k.cpp", text)
    issues: list[Issue] = []
    return knobs_of(src, "kernel", constants(src, "kernel"), issues), issues


def test_annotation_forms() -> None:
    knobs, issues = _knobs(
        "constexpr int A = 4;  // ascendopt: knob values=2,4,8\n"
        "// ascendopt: knob range=1..5 step=2 name=rows\n"
        "const int B = 3;\n"
        "#define C 16 // ascendopt: knob pow2=4..32\n"
        "constexpr int BUFFER_NUM = 2; // ascendopt: fixed\n"
    )
    assert issues == []
    got = {k.name: (k.current, k.values, k.source) for k in knobs}
    assert got == {
        "A": (4, [2, 4, 8], "annotation"),
        "rows": (3, [1, 3, 5], "annotation"),
        "C": (16, [4, 8, 16, 32], "annotation"),
    }


def test_bad_annotation_is_an_issue_with_line() -> None:
    knobs, issues = _knobs(
        "int x;\nconstexpr int A = 4;  // ascendopt: knob range=9..1\n// ascendopt: knob values=1\n"
    )
    assert knobs == []
    assert [(i.line, "empty" in i.message or "not on" in i.message) for i in issues] == [(2, True), (3, True)]


def test_apply_knobs_is_byte_exact_and_hash_changes(templates: Path) -> None:
    op = load_operator(templates / "add_custom")
    base = baseline(op)
    cand = apply_knobs(op, base, {"TILE_LENGTH": 2048, "BUFFER_NUM": 1})
    assert cand.id != base.id and cand.parent == base.id
    host = cand.files["op_host/add_custom.cpp"]
    kern = cand.files["op_kernel/add_custom.cpp"]
    assert "constexpr uint32_t TILE_LENGTH = 2048;" in host
    assert "constexpr uint32_t BUFFER_NUM = 1;" in host and "constexpr int32_t BUFFER_NUM = 1;" in kern
    # only the literals changed
    assert len(host) == len(base.files["op_host/add_custom.cpp"])
    same = apply_knobs(op, base, {"TILE_LENGTH": 2048, "BUFFER_NUM": 1})
    assert same.id == cand.id
    with pytest.raises(KnobError):
        apply_knobs(op, base, {"BUFFER_NUM": 7})
    with pytest.raises(KeyError):
        apply_knobs(op, base, {"NOPE": 1})


def test_evolve_region_replacement(tmp_path: Path) -> None:
    op = load_operator(write_cann_open(tmp_path))
    base = baseline(op)
    cand = apply_knobs(
        op, base, {"evolve_region": "    int64_t coreNum = 20;\n    int64_t blockFactor = 4096;"}
    )
    text = cand.files["op_host/scale_tiling.cpp"]
    assert (
        "// # evolve_tiling_block_start\n    int64_t coreNum = 20;\n    int64_t blockFactor = 4096;\n" in text
    )
    assert text.count("evolve_tiling_block_end") == 1


cpp_like = st.lists(
    st.sampled_from(
        [
            *"abcXYZ_019 (){}[];,<>=*&:\"'/#\n\t",
            "__aicore__",
            "__global__",
            "GM_ADDR",
            "TILING_DATA_FIELD_DEF",
            "BEGIN_TILING_DATA_DEF",
            "constexpr",
            'extern "C"',
            "<<<",
            ">>>",
            "// ascendopt: knob values=",
            "// # evolve_tiling_block_start",
        ]
    ),
    max_size=120,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(cpp_like)
def test_parsers_never_crash(text: str) -> None:
    src = CppSource.parse("f.cpp", text)
    issues: list[Issue] = []
    src.syntax_issues()
    knobs_of(src, "host", constants(src, "host"), issues)
    macro_tiling_fields(src)
    kernel_entries(src)
