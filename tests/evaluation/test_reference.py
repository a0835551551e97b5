"""A broken reference.py is reported at its own file and line, whether it fails to load or fails on
a case: the user's error, not the operator's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ascendopt.evaluation.reference import ReferenceError, load_reference, run_reference
from ascendopt.operators.spec import OperatorSpec, load_spec
from tests.conftest import TEMPLATES


def _spec() -> OperatorSpec:
    return load_spec(TEMPLATES / "add_custom" / "ascendopt.toml")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "import numpy as np\ndef add_custom(x, y:\n    return x + y\n",
            "reference.py:2: SyntaxError: '(' was never closed",
        ),
        ("import numpy as np\nimport no_such_module_here\n", "reference.py:2: ModuleNotFoundError"),
        ("x = 1\n", "reference.py: no function 'add_custom'"),
    ],
)
def test_a_reference_that_does_not_load_names_its_line(tmp_path: Path, source: str, expected: str) -> None:
    (tmp_path / "reference.py").write_text(source)
    with pytest.raises(ReferenceError) as err:
        load_reference(tmp_path, _spec())
    assert str(err.value).startswith(expected), err.value


def test_a_reference_that_raises_on_a_case_names_its_line_and_the_case(
    tmp_path: Path,
) -> None:
    (tmp_path / "reference.py").write_text(
        "import numpy as np\n\ndef add_custom(x, y):\n    if x.shape[0] > 3:\n"
        "        raise ValueError('boom')\n    return x + y\n"
    )
    spec = _spec()
    fn = load_reference(tmp_path, spec)
    case = next(c for c in spec.resolve_cases() if c.name == "bf16")
    inputs = {"x": np.ones((8, 2048), np.float32), "y": np.ones((8, 2048), np.float32)}
    with pytest.raises(ReferenceError) as err:
        run_reference(fn, spec, case, inputs)
    assert str(err.value) == "reference.py:5: reference failed on case 'bf16': ValueError: boom"
