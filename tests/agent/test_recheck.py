"""The final re-check's extra shapes: drawn inside the domain, counted only where the baseline is right."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.agent.recheck import ExtraShape, extra_shapes, judge
from ascendopt.evaluation.records import CaseResult, Evaluation
from ascendopt.operators.spec import parse_spec

SPEC = """
schema_version = 1
name = "add"
reference = "reference.py:add"
[[inputs]]
name = "x"
dtypes = ["float16"]
[[inputs]]
name = "y"
dtypes = ["float16"]
[[outputs]]
name = "z"
dtypes = ["float16"]
[[cases]]
name = "small"
dtype = "float16"
shapes = { x = [8, 2048], y = [8, 2048] }
[[cases]]
name = "big"
dtype = "float16"
shapes = { x = [64, 2048], y = [64, 2048] }
"""


def _spec(domain: str = ""):
    return parse_spec(SPEC + domain, Path("ascendopt.toml"))


def test_tails_of_every_alignment_and_one_larger_shape() -> None:
    spec = _spec()
    extra, notes = extra_shapes(spec, spec.resolve_cases())
    shapes = [c.input_shapes["x"] for c in extra]
    # fp16: a 32-byte block is 16 elements; tails of 1, 2, 4 and 8 elements, then a larger shape
    assert shapes[:4] == [[9, 2049], [9, 2050], [9, 2052], [9, 2056]]
    assert shapes[4] == [128, 2048]
    assert [c.index for c in extra] == [2, 3, 4, 5, 6]
    assert all(n.verdict == "drawn" for n in notes)



@pytest.mark.parametrize(("dtype", "block"), [("int64", 4), ("int32", 8), ("float16", 16), ("int8", 32)])
def test_tails_are_cut_at_the_dtype_s_own_block(dtype: str, block: int) -> None:
    """A 32-byte block holds 4 int64 elements (the re-check counted 64-bit dtypes as 4 bytes: 8)."""
    spec = parse_spec(SPEC.replace("float16", dtype), Path("ascendopt.toml"))
    extra, notes = extra_shapes(spec, spec.resolve_cases())
    tails = [c.input_shapes["x"] for c in extra][:-1]
    aligned = 2048  # already a whole number of blocks for every dtype here
    assert tails == [[9, aligned + t] for t in (1, 2, 4, 8, 16) if t < block]
    assert all(f"past a {block}-element block" in n.why for n in notes[: len(tails)])

def test_the_domain_decides_what_is_drawn() -> None:
    spec = _spec("[domain]\nlast_dim_multiple = 4\nelements_multiple = 2048\nmax_elements = 131072\n")
    extra, notes = extra_shapes(spec, spec.resolve_cases())
    shapes = [c.input_shapes["x"] for c in extra]
    assert all(s[-1] % 4 == 0 and (s[0] * s[-1]) % 2048 == 0 for s in shapes)
    assert [s[-1] % 16 for s in shapes[:2]] == [4, 8]  # tails of 1 and 2 elements are outside it
    assert any("limit" in n.why for n in notes)  # 64 x 2048 is already max_elements: no larger shape
    assert max(s[0] * s[1] for s in shapes) <= 131072
    fixed = _spec("[domain]\nfixed = true\n")
    extra, notes = extra_shapes(fixed, fixed.resolve_cases())
    assert extra == [] and "fixes the shapes" in notes[0].why


def test_a_sample_whose_main_cpp_fixes_the_shapes_draws_none_whatever_its_domain_says() -> None:
    spec = _spec("[domain]\nlast_dim_multiple = 16\n")
    why = "main.cpp fixes the shapes: the twin runs its own host program (GenerateTiling(…) at main.cpp:29)"
    extra, notes = extra_shapes(spec, spec.resolve_cases(), fixed_by=why)
    assert extra == [] and [(n.verdict, n.why) for n in notes] == [("not drawn", why)]


def test_no_larger_shape_when_the_largest_case_is_at_the_limit() -> None:
    spec = _spec("[domain]\nmax_elements = 131072\nlast_dim_multiple = 16\n")
    extra, notes = extra_shapes(spec, spec.resolve_cases())
    assert extra == []
    assert any("limit" in n.why for n in notes) and any("no tail" in n.why for n in notes)


def _eval(statuses: dict[str, str]) -> Evaluation:
    return Evaluation(
        candidate_id="c",
        operator="add",
        backend="cpu-twin",
        hardware="x",
        seed=0,
        status="ok",
        cases=[
            CaseResult(
                index=i, name=n, dtypes={}, status=s, message="" if s == "passed" else "wrong output(s): z"
            )
            for i, (n, s) in enumerate(statuses.items())
        ],
    )


def test_an_extra_shape_counts_only_where_the_baseline_is_right() -> None:
    notes = [
        ExtraShape(name="extra-1", shape=[9, 2049], why="tail", verdict="drawn"),
        ExtraShape(name="extra-2", shape=[128, 2048], why="larger", verdict="drawn"),
    ]
    base = _eval({"small": "passed", "extra-1": "failed", "extra-2": "passed"})
    good = _eval({"small": "passed", "extra-1": "failed", "extra-2": "passed"})
    assert judge(base, good, ["small"], notes) is None
    assert notes[0].verdict.startswith("skipped") and notes[1].verdict == "counted, passed"
    # a candidate that stops early above the largest tested size: the baseline is right there
    for n in notes:
        n.verdict = "drawn"
    cheat = _eval({"small": "passed", "extra-1": "failed", "extra-2": "failed"})
    why = judge(base, cheat, ["small"], notes)
    assert why is not None and "extra-2" in why and notes[1].verdict == "failed"


@pytest.mark.slow
async def test_a_shape_the_baseline_gets_wrong_does_not_discard_the_winner(tmp_path: Path) -> None:
    # The msOpGen look-alike splits elements evenly over cores x tiles x buffers: the fresh tails
    # are outside what the operator as shipped computes right; the larger shape is not.
    from ascendopt.agent.service import Optimizer
    from ascendopt.agent.settings import EpisodeSettings
    from ascendopt.operators.discovery import load_operator
    from ascendopt.operators.spec_init import starting_spec
    from tests.operators.official_style import write_msopgen_sample

    root = write_msopgen_sample(tmp_path)
    (root / "ascendopt.toml").write_text(starting_spec(load_operator(root)).text)
    outcome = await Optimizer(root).optimize(load_operator(root), EpisodeSettings(budget=12, seed=1))
    verdicts = [n.verdict for n in outcome.recheck]
    assert outcome.suggestion is not None, outcome.message
    assert outcome.suggestion.geomean_speedup > 1.01
    assert "skipped (the baseline is wrong on it)" in verdicts and "counted, passed" in verdicts
