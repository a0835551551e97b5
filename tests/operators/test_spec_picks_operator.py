"""`--spec` on a folder holding two operators loads the one the spec names, without `--name`
(issue 28; look-alikes from tests/operators/synthetic.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.operators.discovery import load_operator
from tests.operators.synthetic import write_cann_open, write_kernel_launch

SPEC = """\
schema_version = 1
name = "sub_custom"
reference = "reference.py:f"
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
name = "a"
shapes = { x = [8, 2048], y = [8, 2048] }
"""


def test_the_spec_names_the_operator_among_several(tmp_path: Path) -> None:
    tree = tmp_path / "ops"
    write_cann_open(tree)
    write_kernel_launch(tree)
    with pytest.raises(KeyError, match="several operators"):
        load_operator(tree)
    spec = tmp_path / "specs" / "ascendopt.toml"
    spec.parent.mkdir()
    spec.write_text(SPEC)
    op = load_operator(tree, None, spec)
    assert op.name == "sub_custom" and op.external_spec == spec.resolve()
    assert load_operator(tree, "sub_custom", spec).name == "sub_custom"  # --name agreeing still works
