from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import reference_signature

GOOD = """\
schema_version = 1
name = "cast_custom"
reference = "reference.py:cast_custom"

[[inputs]]
name = "x"
dtypes = ["float16", "float32"]

[[outputs]]
name = "y"
dtypes = ["float32", "float16"]

[[attrs]]
name = "alpha"
type = "float"
default = 0.5

[[cases]]
name = "up"
dtypes = { x = "float16", y = "float32" }
shapes = { x = [4, 100] }

[[cases]]
name = "down"
dtypes = { x = "float32", y = "float16" }
shapes = { x = [4, 100] }
attrs = { alpha = 2.0 }
"""


def _errors(text: str) -> list[tuple[int, str]]:
    with pytest.raises(SpecError) as exc:
        parse_spec(text, Path("ops/ascendopt.toml"))
    return [(i.line, i.message) for i in exc.value.issues]


def test_good_spec_resolves_mixed_dtypes_and_attrs() -> None:
    spec = parse_spec(GOOD, Path("ascendopt.toml"))
    up, down = spec.resolve_cases()
    assert up.dtypes == {"x": "float16", "y": "float32"} and up.attrs == {"alpha": 0.5}
    assert down.dtypes == {"x": "float32", "y": "float16"} and down.attrs == {"alpha": 2.0}
    assert spec.tolerance("float16").rtol == 1e-3 and spec.tolerance("int32").atol == 0.0



def test_the_reference_signature_init_spec_prints_is_the_one_the_harness_calls() -> None:
    spec = parse_spec(GOOD, Path("ascendopt.toml"))
    assert reference_signature(spec) == (
        "def cast_custom(x: np.ndarray, alpha: float = 0.5) -> np.ndarray:  # returns y"
    )
    two = spec.model_copy(
        update={
            "inputs": [spec.inputs[0].model_copy(update={"param_type": "dynamic"})],
            "outputs": [*spec.outputs, spec.outputs[0].model_copy(update={"name": "mask"})],
        }
    )
    assert reference_signature(two) == (
        "def cast_custom(x: list[np.ndarray], alpha: float = 0.5) -> tuple[np.ndarray, np.ndarray]:"
        "  # returns y, mask"
    )

def test_wrong_dtype_names_the_line() -> None:
    text = GOOD.replace(
        'dtypes = { x = "float32", y = "float16" }', 'dtypes = { x = "float64", y = "float16" }'
    )
    [(line, msg)] = _errors(text)
    assert line == 25 and "float64" in msg


def test_dtype_combination_not_declared() -> None:
    text = GOOD.replace(
        'dtypes = { x = "float32", y = "float16" }', 'dtypes = { x = "float16", y = "float16" }'
    )
    [(line, msg)] = _errors(text)
    assert line == 25 and "combination" in msg and "down" in msg


def test_shape_for_unknown_input() -> None:
    text = GOOD.replace("shapes = { x = [4, 100] }\nattrs", "shapes = { x = [4, 100], q = [1] }\nattrs")
    [(line, msg)] = _errors(text)
    assert line == 26 and "unknown input(s) q" in msg


def test_toml_syntax_error_line() -> None:
    [(line, msg)] = _errors(GOOD.replace('name = "up"', 'name = "up'))
    assert line == 19 and "TOML" in msg


def test_unknown_key_and_negative_range() -> None:
    text = GOOD.replace('name = "x"\n', 'name = "x"\nrange = [1.0, -1.0]\nbogus = 3\n')
    errors = _errors(text)
    assert {line for line, _ in errors} <= {5, 6, 7, 8}
    assert any("bogus" in m for _, m in errors)


def test_no_cases() -> None:
    text = GOOD.split("[[cases]]")[0]
    [(line, msg)] = _errors(text)
    assert "cases" in msg and line == 1


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_spec_loader_never_crashes_on_text(text: str) -> None:
    try:
        parse_spec(text, Path("x.toml"))
    except SpecError as exc:
        assert all(i.line >= 1 for i in exc.issues)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=len(GOOD)), st.text(max_size=20))
def test_spec_loader_never_crashes_on_edits(pos: int, junk: str) -> None:
    try:
        parse_spec(GOOD[:pos] + junk + GOOD[pos:], Path("x.toml"))
    except SpecError as exc:
        assert exc.issues


def test_a_missing_comma_in_a_multiline_array_is_blamed_on_its_own_line() -> None:
    # tomllib notices at the next value's line; the line to fix is the one before
    text = GOOD.replace('dtypes = ["float16", "float32"]', 'dtypes = [\n  "float16"\n  "float32",\n]', 1)
    [(line, msg)] = _errors(text)
    assert text.splitlines()[line - 1].strip() == '"float16"', (line, msg)


def test_a_syntax_error_at_the_start_of_a_line_stays_on_that_line() -> None:
    text = GOOD.replace("[[outputs]]", "!bogus\n[[outputs]]", 1)
    [(line, msg)] = _errors(text)
    assert text.splitlines()[line - 1] == "!bogus", (line, msg)
