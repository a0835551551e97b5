from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app, common
from tests.operators.cann_knobs_style import write_sub_like
from tests.operators.synthetic import write_cann_open, write_kernel_launch

runner = CliRunner()


def test_discover_json_lists_templates_with_layout_entry_fields_knobs(templates: Path) -> None:
    result = runner.invoke(app, ["discover", str(templates), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    ops = {o["name"]: o for o in data["operators"]}
    assert "add_custom" in ops
    for op in ops.values():
        assert op["layout"] == "msopgen"
        assert op["kernel"]["params"] and op["tiling_fields"] and op["knobs"]


def test_discover_on_foreign_layouts(tmp_path: Path) -> None:
    write_cann_open(tmp_path)
    write_kernel_launch(tmp_path)
    result = runner.invoke(app, ["discover", str(tmp_path), "--json"])
    assert result.exit_code == 0
    layouts = {o["name"]: o["layout"] for o in json.loads(result.output)["operators"]}
    assert layouts == {"scale": "cann_open", "sub_custom": "kernel_launch"}


def test_knobs_table_and_json(templates: Path) -> None:
    result = runner.invoke(app, ["knobs", str(templates / "add_custom"), "--json"])
    names = [k["name"] for k in json.loads(result.output)]
    assert "TILE_LENGTH" in names and "BUFFER_NUM" in names
    table = runner.invoke(app, ["knobs", str(templates / "add_custom")])
    assert "TILE_LENGTH" in table.output


@pytest.mark.slow
def test_init_spec_writes_a_loadable_spec_and_refuses_to_overwrite(tmp_path: Path, templates: Path) -> None:
    root = tmp_path / "op"
    shutil.copytree(templates / "add_custom", root)
    (root / "ascendopt.toml").unlink()
    (root / "reference.py").unlink()
    result = runner.invoke(app, ["init-spec", str(root)])
    assert result.exit_code == 0, result.output
    # the last line is the next step: the reference, with the signature the spec calls it with
    assert result.output.splitlines()[-1] == (
        f"next: write {root / 'reference.py'} with "
        "def add_custom(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # returns z"
    ), result.output
    spec_text = (root / "ascendopt.toml").read_text()
    assert 'name = "add_custom"' in spec_text and '"bfloat16"' in spec_text
    again = runner.invoke(app, ["init-spec", str(root)])
    assert again.exit_code == 1
    found = runner.invoke(app, ["discover", str(root), "--json"])
    [op] = json.loads(found.output)["operators"]
    assert op["spec"]["name"] == "add_custom" and [t["name"] for t in op["spec"]["inputs"]] == ["x", "y"]


def test_unknown_operator_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["knobs", str(tmp_path)])
    assert result.exit_code == 2 and "no AscendC operator" in result.output


def test_templates_list_and_copy(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["templates"])
    assert "add_custom" in listed.output.split()
    copied = runner.invoke(app, ["templates", "--copy", "add_custom", "--to", str(tmp_path)])
    assert copied.exit_code == 0 and (tmp_path / "add_custom" / "op_kernel" / "add_custom.cpp").exists()


def test_templates_lists_one_line_each_and_copies(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["templates"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0
    add = next(line for line in listed.output.splitlines() if line.startswith("add_custom "))
    assert "z = x + y" in add
    copied = runner.invoke(app, ["templates", "--copy", "add_custom", "--to", str(tmp_path)])
    assert copied.exit_code == 0 and (tmp_path / "add_custom" / "ascendopt.toml").exists()
    again = runner.invoke(app, ["templates", "--copy", "add_custom", "--to", str(tmp_path)])
    assert again.exit_code == 2 and "exists" in again.output


def test_knobs_table_names_every_place_a_coupled_knob_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common.out, "_width", 200)  # a console wide enough for the `where` column
    result = runner.invoke(app, ["knobs", str(write_sub_like(tmp_path))])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("BUFFER_NUM"))
    assert "op_kernel/sub_like.h:10, op_host/sub_like_tiling.cpp:10 (x3)" in line
