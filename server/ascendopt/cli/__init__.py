"""`ascendopt …`: the terminal face. Each command parses arguments, calls a service, renders.

One module per command group; importing them registers their commands on `app`.
"""

from __future__ import annotations

from ascendopt.cli import campaign, experience, mine, operators, optimize, remote, report, serve, verify  # noqa: F401  (registers commands)
from ascendopt.cli.common import app
from ascendopt.scratch import Scratch, exit_on_termination


def main() -> None:
    exit_on_termination()
    Scratch().claim()  # temporary folders under the cache, removed at exit (or by the next start)
    app()


__all__ = ["app", "main"]
