"""What the editor shows, as pure functions: hover lines, lens durations, progress lines, edits."""

from __future__ import annotations

from lsprotocol import types

from ascendopt.evaluation.records import CaseResult, Evaluation, PipeTime, Profile
from ascendopt.lsp import render
from ascendopt.lsp.locations import line_range
from ascendopt.lsp.suggestions import line_edits


def _profile(us: float, mte2: float, vec: float, mte3: float, bound: str | None = "memory") -> Profile:
    return Profile(
        duration_us=us,
        kind="estimate",
        source="estimate, Ascend910B4 model",
        pipes=[
            PipeTime(pipe="aiv_mte2_time(us)", time_us=us * mte2, ratio=mte2),
            PipeTime(pipe="aiv_vec_time(us)", time_us=us * vec, ratio=vec),
            PipeTime(pipe="aiv_mte3_time(us)", time_us=us * mte3, ratio=mte3),
            PipeTime(pipe="aiv_scalar_time(us)", time_us=0.0, ratio=0.01),
        ],
        bound=bound,
        hot_lines=["op_kernel/add_custom.cpp:43 (57%)"],
    )


def test_case_line_reads_like_the_user_journey():
    assert render.case_line(_profile(37.21, 0.81, 0.22, 0.12)) == (
        "37.2 µs (estimate, 910B4 model) · MTE2 81 % · V 22 % · memory-bound"
    )
    # A third pipe shows when it is busy too; an unknown bound is left out.
    assert render.case_line(_profile(1.234, 0.6, 0.3, 0.25, bound=None)) == (
        "1.23 µs (estimate, 910B4 model) · MTE2 60 % · V 30 % · MTE3 25 %"
    )


def test_pipe_names_follow_msprof_columns():
    assert [render.pipe_name(c) for c in ("aiv_vec_time(us)", "aic_cube_ratio", "aiv_mte1_time(us)")] == [
        "V",
        "M",
        "MTE1",
    ]


def test_lens_duration_is_the_slowest_profiled_case():
    ev = Evaluation(
        candidate_id="c",
        operator="add_custom",
        backend="cpu-twin",
        hardware="x86",
        seed=0,
        status="ok",
        cases=[
            CaseResult(index=0, name="a", dtypes={}, status="passed", profile=_profile(2.0, 0.5, 0.1, 0.1)),
            CaseResult(index=1, name="b", dtypes={}, status="passed", profile=_profile(12.34, 0.5, 0.1, 0.1)),
            CaseResult(index=2, name="c", dtypes={}, status="passed"),
        ],
    )
    assert render.lens_duration(ev) == "12.3 µs est. 910B4"
    ev.cases = ev.cases[2:]
    assert render.lens_duration(ev) is None


def test_progress_line():
    assert (
        render.progress_line(12, 40, "tiling search", 1.314)
        == "12/40 evaluations · best 1.31× · tiling search"
    )
    assert render.progress_line(0, 40, "baseline", None) == "0/40 evaluations · baseline"


def test_line_range_covers_the_code_not_the_indent():
    lines = ["int a;", "    DataCopy(x, y, n);  // BUG"]
    r = line_range(lines, 2)
    assert (r.start.line, r.start.character, r.end.character) == (1, 4, len(lines[1]))
    assert line_range(lines, 99).start.line == 0  # out of range: the top, never an invalid position


def testline_edits_touch_only_changed_lines():
    old = "a\nb = 2\nc\n"
    new = "a\nb = 3\nc\nd\n"
    edits = line_edits(old, new, "ann")
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in edits] == [
        (1, 2, "b = 3\n"),
        (3, 3, "d\n"),
    ]
    assert all(isinstance(e, types.AnnotatedTextEdit) and e.annotation_id == "ann" for e in edits)
