"""Repository oracles (issue 28, point 2): a sample that ships a golden generator (its
`scripts/gen_data.py` writing `./input/*.bin` and `./output/golden.bin`) needs no reference.py:
init-spec makes the generator the oracle at its own shapes, and the evaluation re-runs it, sandboxed,
under a fresh seed for fresh values. Look-alike: our add_custom template beside an invocation folder
holding a generator we wrote (other names, other shapes)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.oracle import kernel_values, run_oracle
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.sample_data import golden_files
from ascendopt.operators.spec import SPEC_FILE, parse_spec
from ascendopt.operators.spec_init import starting_spec

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"
runner = CliRunner()

GEN = """\
import numpy as np


def make_golden():
    first = np.random.uniform(-4, 4, [6, 1024]).astype(np.float16)
    second = np.random.uniform(-4, 4, [6, 1024]).astype(np.float16)
    expected = ({expr}).astype(np.float16)
    first.tofile("./input/input_x.bin")
    second.tofile("./input/input_y.bin")
    expected.tofile("./output/golden.bin")


if __name__ == "__main__":
    make_golden()
"""


def make_sample(root: Path, expr: str = "first + second") -> Path:
    """`root/SumOp/` (the template's op_host/op_kernel, no spec, no reference) beside
    `root/Invoke/scripts/gen_data.py`."""
    op = root / "SumOp"
    for part in ("op_host", "op_kernel"):
        shutil.copytree(TEMPLATES / "add_custom" / part, op / part)
    gen = root / "Invoke" / "scripts" / "gen_data.py"
    gen.parent.mkdir(parents=True)
    gen.write_text(GEN.format(expr=expr), encoding="utf-8")
    return op


def test_the_generator_files_are_read_without_running_it(tmp_path: Path) -> None:
    gen = make_sample(tmp_path).parent / "Invoke" / "scripts" / "gen_data.py"
    assert golden_files(gen) == ({"x": "input/input_x.bin", "y": "input/input_y.bin"}, ["output/golden.bin"])


def test_init_spec_makes_the_generator_the_oracle(tmp_path: Path) -> None:
    op = load_operator(make_sample(tmp_path))
    draft = starting_spec(op)
    spec = parse_spec(draft.text, tmp_path / SPEC_FILE)
    assert spec.oracle is not None and spec.oracle.kind == "golden_script"
    assert spec.oracle.files == {"x": "input/input_x.bin", "y": "input/input_y.bin", "z": "output/golden.bin"}
    assert [c.name for c in spec.cases] == ["sample"]  # the generator's own shapes only
    assert spec.cases[0].shapes == {"x": [6, 1024], "y": [6, 1024]}
    assert spec.domain.fixed


def test_fresh_values_under_another_seed(tmp_path: Path) -> None:
    op = load_operator(make_sample(tmp_path))
    spec = parse_spec(starting_spec(op).text, tmp_path / SPEC_FILE)
    assert spec.oracle is not None
    case = spec.resolve_cases()[0]
    got = asyncio.run(run_oracle(op.root, spec.oracle, [("a", {}, 1), ("b", {}, 2), ("c", {}, 1)]))
    values = {}
    for key in "abc":
        result = got[key]
        assert not isinstance(result, str), result
        values[key] = kernel_values(spec, case, result)
    assert not np.array_equal(values["a"][0]["x"], values["b"][0]["x"])  # another seed, other values
    assert np.array_equal(values["a"][0]["x"], values["c"][0]["x"])  # the same seed, the same
    expected = values["a"][1]["z"]
    assert expected.shape == (6, 1024)
    assert np.allclose(expected, values["a"][0]["x"].astype(np.float64) + values["a"][0]["y"], atol=1e-2)


@pytest.mark.slow  # init-spec pre-checks its cases: builds
def test_no_generator_says_what_reference_to_write(tmp_path: Path) -> None:
    """Where no generator exists, init-spec's last line says the user writes a reference and gives its
    signature."""
    op = tmp_path / "SumOp"
    for part in ("op_host", "op_kernel"):
        shutil.copytree(TEMPLATES / "add_custom" / part, op / part)
    done = runner.invoke(app, ["init-spec", str(op), "--out", str(tmp_path / "s" / "sum.toml")])
    assert done.exit_code == 0, done.output
    last = done.output.strip().splitlines()[-1]
    assert last.startswith("next: write ") and "def add_custom(x: np.ndarray, y: np.ndarray)" in last


@pytest.mark.slow
def test_verify_against_the_generator(tmp_path: Path) -> None:
    op = make_sample(tmp_path / "good")
    out = tmp_path / "specs" / "sum.toml"
    done = runner.invoke(app, ["init-spec", str(op), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert (
        done.output.strip().splitlines()[-1]
        == "next: nothing to write: the sample's golden generator is the oracle"
    )
    done = runner.invoke(app, ["verify", str(op), "--spec", str(out), "--json"])
    assert done.exit_code == 0, done.output
    bad = make_sample(tmp_path / "bad", expr="first - second")
    out_bad = tmp_path / "specs" / "bad.toml"
    assert runner.invoke(app, ["init-spec", str(bad), "--out", str(out_bad)]).exit_code == 0
    done = runner.invoke(app, ["verify", str(bad), "--spec", str(out_bad), "--json"])
    assert done.exit_code == 1, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert ev["cases"][0]["status"] == "failed"
