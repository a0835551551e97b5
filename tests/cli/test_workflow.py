"""Workflow holes of the terminal: --version, invalid options, Ctrl-C and resume, which bank."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.experience.bank import BANK_FILE

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and re.fullmatch(r"ascendopt \S+\n", result.stdout)


def test_an_invalid_option_is_one_sentence_naming_it_with_exit_code_2(add_op: Path) -> None:
    for args, option in (
        (["optimize", str(add_op), "--budget", "0"], "--budget"),
        (["campaign", str(add_op), "--budget", "2"], "--budget"),
        (["campaign", str(add_op), "--jobs", "0"], "--jobs"),
        (["optimize", str(add_op), "--backend", "bogus"], "--backend"),
        (["profile", str(add_op), "--soc", "Ascend310P"], "--soc"),  # refused before any build
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert option in result.output and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) <= 6, result.output
    assert not (add_op / ".ascendopt" / "episodes").exists()  # nothing was started


def test_commands_in_an_operator_and_its_parent_share_one_bank(tmp_path: Path, add_op: Path) -> None:
    repo = add_op.parent  # tmp/ws, made a repository: the operator is one folder of it
    (repo / ".git").mkdir()

    def experience_list(cwd: Path) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "ascendopt", "experience", "list", "--json"]
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True)

    done = experience_list(add_op)
    assert f"bank: {repo / BANK_FILE}" in done.stderr and json.loads(done.stdout)
    assert (repo / BANK_FILE).exists() and not (add_op / ".ascendopt").exists()
    assert f"bank: {repo / BANK_FILE}" in experience_list(repo).stderr


def _starts(events: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    return [e["data"]["settings"] for e in lines if e["type"] == "start"]


@pytest.mark.slow
def test_ctrl_c_prints_the_resume_command_and_a_larger_budget_extends_the_episode(add_op: Path) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    cmd = [sys.executable, "-m", "ascendopt", "optimize", str(add_op), "--seed", "2"]
    episodes = add_op / ".ascendopt" / "episodes"
    proc = subprocess.Popen(
        [*cmd, "--budget", "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        found = list(episodes.glob("*/events.jsonl")) if episodes.exists() else []
        if found and '"evaluation"' in found[0].read_text():
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr
    match = re.search(r"ascendopt optimize (\S+) --resume (\S+)", stderr)
    assert match, stderr[-2000:]
    episode = match.group(2)
    assert Path(match.group(1)) == add_op and (episodes / episode / "events.jsonl").exists()

    resumed = subprocess.run(
        [*cmd, "--resume", episode, "--budget", "10", "--json"], capture_output=True, text=True, env=env
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "budget extended from 8 to 10 evaluations" in resumed.stderr
    assert json.loads(resumed.stdout)["episode"] == episode
    assert [s["budget"] for s in _starts(episodes / episode / "events.jsonl")][-1] == 10

    smaller = runner.invoke(app, ["optimize", str(add_op), "--resume", episode, "--budget", "6", "--json"])
    assert smaller.exit_code == 0, smaller.output
    assert "budget stays at 10 evaluations" in smaller.output and "only ever extended" in smaller.output
    assert [s["budget"] for s in _starts(episodes / episode / "events.jsonl")][-1] == 10


def test_resume_of_an_unknown_episode_is_a_clear_error(add_op: Path) -> None:
    result = runner.invoke(app, ["optimize", str(add_op), "--resume", "nope"])
    assert result.exit_code == 2 and "--resume: no episode 'nope'" in result.output


def _printed_report_command(output: str) -> list[str]:
    match = re.search(r"^report: (ascendopt report .+)$", output, re.MULTILINE)
    assert match, output
    return shlex.split(match.group(1))[1:]


@pytest.mark.slow
def test_the_printed_report_command_works_from_where_it_was_printed(
    add_op: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(add_op.parent.parent)  # two levels above the operator: `optimize ws/add_custom`
    done = runner.invoke(app, ["optimize", "ws/add_custom", "--budget", "4", "--tiling-only"])
    assert done.exit_code in (0, 3), done.output
    args = _printed_report_command(done.stdout)
    assert args[-2:] == ["--workspace", "ws/add_custom"], args
    report = runner.invoke(app, args)
    assert report.exit_code == 0, report.output
    assert "report written to" in report.output
    monkeypatch.chdir(add_op)  # from the operator's own folder no --workspace is needed
    again = runner.invoke(app, ["optimize", ".", "--budget", "4", "--tiling-only"])
    args = _printed_report_command(again.stdout)
    assert "--workspace" not in args and runner.invoke(app, args).exit_code == 0
