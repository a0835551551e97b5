"""Repository oracles, the rest of issue 28 point 2: an ops-nn-style `tests/assets/golden.py` function
is the reference init-spec writes (no reference.py to write), and a sample checker's tolerances
(`scripts/verify_result.py`) replace the spec's defaults. Both files are read, never run, by
init-spec. Look-alikes: our add_custom template with a golden file and a checker we wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.reference import load_reference, run_reference
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.sample_data import golden_function, verify_tolerances
from ascendopt.operators.spec import SPEC_FILE, parse_spec
from ascendopt.operators.spec_init import starting_spec
from tests.operators.test_golden_oracle import make_sample

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"
runner = CliRunner()

# ops-nn's convention: a registry naming the kernel's golden function; inputs positional in OpDef
# order, attrs and the dtypes by keyword.
GOLDEN = """\
import numpy as np

__golden__ = {{"kernel": {{"add_custom": "pair_sum"}}}}

SEEN = []


def pair_sum(first, second, **kwargs):
    keys = ("input_dtypes", "output_dtypes", "input_formats", "input_ori_shapes")
    SEEN.append(tuple(kwargs[k] for k in keys))
    out = ({expr})
    return out.astype(kwargs.get("output_dtypes", ["float32"])[0])
"""

SPEC_CLASS = """\
__spec__ = {"add_custom": "PairSpec"}


class PairSpec:
    @staticmethod
    def golden(first, second, **kwargs):
        return [first + second]
"""

CHECKER = """\
import sys
import numpy as np

# for float16
relative_tol = 2e-3
absolute_tol = 1e-5
error_tol = 1e-3


def verify_result(output, golden):
    output = np.fromfile(output, dtype=np.float16).reshape(-1)
    golden = np.fromfile(golden, dtype=np.float16).reshape(-1)
    return np.isclose(output, golden, rtol=relative_tol, atol=absolute_tol).mean() >= 1 - error_tol
"""


def make_op(root: Path, golden: str) -> Path:
    """`root/pairs/` (the template's op_host/op_kernel, no spec, no reference) with a golden file."""
    op = root / "pairs"
    for part in ("op_host", "op_kernel"):
        shutil.copytree(TEMPLATES / "add_custom" / part, op / part)
    path = op / "tests" / "assets" / "golden.py"
    path.parent.mkdir(parents=True)
    path.write_text(golden, encoding="utf-8")
    return op


def test_the_golden_function_is_read_without_running_it(tmp_path: Path) -> None:
    path = tmp_path / "golden.py"
    # a module that would stop anything importing it: parsed only
    path.write_text("raise SystemExit(3)\n" + GOLDEN.format(expr="first + second"), encoding="utf-8")
    assert golden_function(path, "add_custom") == "pair_sum"
    assert golden_function(path, "other_op") == "pair_sum"  # the sole registration
    path.write_text(SPEC_CLASS, encoding="utf-8")
    assert golden_function(path, "add_custom") == "PairSpec.golden"
    # registered but not defined here, or a registry built at run time: none
    path.write_text('__golden__ = {"kernel": {"add_custom": "elsewhere"}}\n', encoding="utf-8")
    assert golden_function(path, "add_custom") is None
    path.write_text(
        '__golden__ = dict(kernel={"add_custom": "f"})\ndef f(x):\n    return x\n', encoding="utf-8"
    )
    assert golden_function(path, "add_custom") is None
    path.write_text("def broken(:\n", encoding="utf-8")
    assert golden_function(path, "add_custom") is None


def test_init_spec_takes_the_golden_function_as_the_reference(tmp_path: Path) -> None:
    op = load_operator(make_op(tmp_path, GOLDEN.format(expr="first + second")))
    draft = starting_spec(op)
    spec = parse_spec(draft.text, tmp_path / "elsewhere" / SPEC_FILE)  # found from a spec kept apart
    golden = (op.root / "tests" / "assets" / "golden.py").resolve()
    assert spec.reference == f"{golden}:pair_sum"
    assert draft.oracle is not None and "golden" in draft.oracle
    fn = load_reference(tmp_path / "elsewhere", spec)
    case = spec.resolve_cases()[0]
    dtype = case.dtype_of("x")
    x = np.linspace(-1, 1, int(np.prod(case.input_shapes["x"])), dtype=dtype).reshape(case.input_shapes["x"])
    out = run_reference(fn, spec, case, {"x": x, "y": x})
    assert np.allclose(out["z"], 2 * x.astype(np.float64), atol=1e-3)
    # what the tensors are arrives by keyword, as ops-nn's goldens read it
    seen = fn.__globals__["SEEN"]
    shape = case.input_shapes["x"]
    assert seen[-1] == ([dtype, dtype], [dtype], ["ND", "ND"], [shape, shape])


def test_a_reference_py_the_user_wrote_wins(tmp_path: Path) -> None:
    root = make_op(tmp_path, GOLDEN.format(expr="first + second"))
    (root / "reference.py").write_text("def add_custom(x, y):\n    return x + y\n", encoding="utf-8")
    draft = starting_spec(load_operator(root))
    assert 'reference = "reference.py:add_custom"' in draft.text and draft.oracle is None


def test_a_golden_class_runs_through_its_static_method(tmp_path: Path) -> None:
    op = load_operator(make_op(tmp_path, SPEC_CLASS))
    spec = parse_spec(starting_spec(op).text, tmp_path / SPEC_FILE)
    assert spec.reference.endswith(":PairSpec.golden")
    case = spec.resolve_cases()[0]
    x = np.ones(case.input_shapes["x"], dtype=case.dtype_of("x"))
    assert np.array_equal(
        run_reference(load_reference(tmp_path, spec), spec, case, {"x": x, "y": x})["z"], 2 * x
    )


def test_the_checker_tolerances_are_read_without_running_it(tmp_path: Path) -> None:
    path = tmp_path / "verify_result.py"
    path.write_text("raise SystemExit(3)\n" + CHECKER, encoding="utf-8")
    tol = verify_tolerances(path)
    assert tol is not None
    assert (tol.dtype, tol.rtol, tol.atol, tol.mismatch_fraction, tol.line) == (
        "float16",
        2e-3,
        1e-5,
        1e-3,
        6,
    )
    # computed at run time, or missing one of the pair: not taken
    path.write_text(CHECKER.replace("relative_tol = 2e-3", "relative_tol = 2 * 1e-3"), encoding="utf-8")
    assert verify_tolerances(path) is None
    path.write_text(CHECKER.replace("absolute_tol = 1e-5\n", ""), encoding="utf-8")
    assert verify_tolerances(path) is None


def test_init_spec_writes_the_checker_tolerances(tmp_path: Path) -> None:
    op_root = make_sample(tmp_path)  # the golden generator in Invoke/scripts/
    (tmp_path / "Invoke" / "scripts" / "verify_result.py").write_text(CHECKER, encoding="utf-8")
    draft = starting_spec(load_operator(op_root))
    spec = parse_spec(draft.text, tmp_path / SPEC_FILE)
    tol = spec.tolerance("float16")
    assert (tol.rtol, tol.atol, tol.mismatch_fraction) == (2e-3, 1e-5, 1e-3)
    assert any("verify_result.py:5" in n for n in draft.notes)
    # without a checker: the defaults
    (tmp_path / "Invoke" / "scripts" / "verify_result.py").unlink()
    plain = parse_spec(starting_spec(load_operator(op_root)).text, tmp_path / SPEC_FILE)
    assert plain.tolerances == {}


@pytest.mark.slow
def test_verify_against_the_golden_function(tmp_path: Path) -> None:
    good = make_op(tmp_path / "good", GOLDEN.format(expr="first + second"))
    out = tmp_path / "specs" / "good.toml"
    done = runner.invoke(app, ["init-spec", str(good), "--out", str(out)])
    assert done.exit_code == 0, done.output
    last = done.output.strip().splitlines()[-1]
    assert (
        last
        == "next: nothing to write: the repository's golden function (tests/assets/golden.py) is the oracle"
    )
    done = runner.invoke(app, ["verify", str(good), "--spec", str(out), "--json"])
    assert done.exit_code == 0, done.output
    bad = make_op(tmp_path / "bad", GOLDEN.format(expr="first - second"))
    out_bad = tmp_path / "specs" / "bad.toml"
    assert runner.invoke(app, ["init-spec", str(bad), "--out", str(out_bad)]).exit_code == 0
    done = runner.invoke(app, ["verify", str(bad), "--spec", str(out_bad), "--json"])
    assert done.exit_code == 1, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert ev["cases"][0]["status"] == "failed"
