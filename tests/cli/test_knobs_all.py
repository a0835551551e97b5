"""`ascendopt knobs --all`: every constant considered and refused, with why, and the size of the
knob space (issue 26, points 1 and 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

from ascendopt.cli import app

runner = CliRunner()


def test_knobs_all_lists_the_refused_with_why_and_the_points_of_the_space(add_op: Path) -> None:
    listed = runner.invoke(app, ["knobs", str(add_op), "--json"])
    assert listed.exit_code == 0, listed.output
    knobs = json.loads(listed.stdout)
    points = math.prod(len(k["values"]) for k in knobs)
    assert points > 100  # the tile's ladder, the buffer count, the core grain
    assert all(k["role"] for k in knobs)  # every one from where its value flows
    assert "refused" not in listed.stdout  # without --all, the knobs alone

    full = runner.invoke(app, ["knobs", str(add_op), "--all", "--json"])
    data = json.loads(full.stdout)
    assert [k["name"] for k in data["knobs"]] == [k["name"] for k in knobs]
    block = next(r for r in data["refused"] if r["name"] == "BLOCK_BYTES")
    assert block["file"] == "op_host/add_custom.cpp" and block["line"] > 0 and block["reason"]

    text = runner.invoke(app, ["knobs", str(add_op), "--all"])
    flat = " ".join(text.output.split())
    assert f"{points} point(s) in the knob space of {len(knobs)} knob(s)" in flat
    assert f"refused BLOCK_BYTES = 32 (op_host/add_custom.cpp:{block['line']}): {block['reason']}" in flat
