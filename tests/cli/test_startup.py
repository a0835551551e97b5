"""Start-up: `--version` and `--help` import no command's module (issue 27, point 5), and the help
they print without importing is the help the commands' modules give."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import typer
from typer.testing import CliRunner

from ascendopt.cli import app, load_all
from ascendopt.cli.common import COMMANDS

PROBE = (
    "import json, sys\n"
    "from ascendopt.cli import main\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    "ours = sorted(m for m in sys.modules if m.startswith(('ascendopt', 'numpy')))\n"
    "print(json.dumps(ours), file=sys.stderr)\n"
)


def _modules_after(*args: str) -> tuple[str, list[str]]:
    """What `ascendopt ARGS` prints, and the package's (and numpy's) modules it imported."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    script = f"import sys; sys.argv = ['ascendopt', *{list(args)!r}]\n" + PROBE
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])


def test_version_and_help_import_no_command_module() -> None:
    for args in (["--version"], ["--help"], []):
        out, modules = _modules_after(*args)
        assert ("ascendopt " in out) if args == ["--version"] else ("verify" in out), args
        commands = {f"ascendopt.cli.{m}" for m, _ in COMMANDS.values()}
        assert not commands & set(modules), (args, sorted(commands & set(modules)))
        assert "numpy" not in modules, args


def test_the_listed_help_is_the_commands_own() -> None:
    load_all()
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    real = {name: c.help for name, c in group.commands.items()}
    assert set(real) == set(COMMANDS)  # the order they register in depends on what was imported first
    assert real == {name: help_text for name, (_, help_text) in COMMANDS.items()}
    for name, command in group.commands.items():
        module = command.callback.__module__ if command.callback else None
        if module is not None:
            assert module == f"ascendopt.cli.{COMMANDS[name][0]}", name


def test_a_command_loads_its_module_when_it_runs() -> None:
    result = CliRunner().invoke(app, ["templates"])
    assert result.exit_code == 0, result.output
    assert "add_custom" in result.output
    result = CliRunner().invoke(app, ["no-such-command"])
    assert result.exit_code != 0
