"""Text from the compiler, the user's files, a model or a path is printed as it is: no rich markup,
no emoji codes (`gelu_custom.cpp:100:8:` is not 💯), g++'s `[with T = half]` is not a tag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.cli import verify as verify_cli
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.issues import Issue
from ascendopt.report.blocks import md_literal, md_table

runner = CliRunner()
GXX = "no matching function for call to 'Add(LocalTensor<T>&)' [with T = half] :smile: [bold]x[/]"


def test_compiler_text_is_printed_as_it_is(add_op: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def compile_error(*args: object, **kwargs: object) -> Evaluation:
        return Evaluation(
            candidate_id="baseline",
            operator="add_custom",
            backend="cpu-twin",
            hardware="cpu twin",
            seed=0,
            status="compile_error",
            compile_errors=[Issue(file="op_kernel/gelu_custom.cpp", line=100, column=8, message=GXX)],
        )

    monkeypatch.setattr(verify_cli, "verify", compile_error)
    result = runner.invoke(app, ["verify", str(add_op)])
    assert result.exit_code == 1, result.output
    assert f"op_kernel/gelu_custom.cpp:100:8: {GXX}" in result.stdout, result.stdout
    assert "💯" not in result.stdout and "😄" not in result.stdout


def test_an_error_quoting_a_path_or_a_message_keeps_it(tmp_path: Path) -> None:
    odd = tmp_path / "[red]x[with T = half] :100:"
    odd.mkdir()
    result = runner.invoke(app, ["knobs", str(odd)])
    assert "[red]x[with T = half] :100:" in result.output, result.output
    assert "💯" not in result.output
    result = runner.invoke(app, ["experience", "show", "[bold]nope[/] :100:", "-w", str(tmp_path)])
    assert result.exit_code == 2 and "'[bold]nope[/] :100:'" in result.output, result.output


def test_markdown_reports_render_text_as_it_is() -> None:
    table = md_table(["reason"], [["a*b*c [with T = half] <T> __aicore__ | x"]])
    assert "\\[with T = half\\]" in table and "\\*" in table and "\\<T\\>" in table and "\\|" in table
    assert md_literal("plain add_custom, 1.5x faster") == "plain add_custom, 1.5x faster"
    assert md_literal("__aicore__") == "\\_\\_aicore\\_\\_"


def test_piped_output_is_never_wrapped(tmp_path: Path) -> None:
    """stdout not a terminal (a script reading it): a long path comes out on one line."""
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "20261205-014934-add_custom-cac879"
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    cmd = [sys.executable, "-m", "ascendopt", "templates", "--copy", "add_custom", "--to", str(deep)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    assert done.stdout == f"copied add_custom to {deep / 'add_custom'}\n", done.stdout
