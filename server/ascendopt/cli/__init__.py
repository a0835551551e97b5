"""`ascendopt …`: the terminal face. Each command parses arguments, calls a service, renders.

One module per command group; importing them registers their commands on `app`.
"""

from __future__ import annotations

import asyncio

from ascendopt.cli import campaign, experience, mine, operators, optimize, remote, report, serve, verify  # noqa: F401  (registers commands)
from ascendopt.cli.common import app
from ascendopt.scratch import Scratch, Termination


def main() -> None:
    scratch = Scratch()
    termination = Termination(on_force=scratch.release)
    termination.install()
    scratch.claim()  # temporary folders under the cache, removed at exit (or by the next start)
    try:
        app()
    except SystemExit as exc:  # click ends every run with one
        raise SystemExit(termination.exit_code(exc.code)) from None
    except (asyncio.CancelledError, KeyboardInterrupt):  # a signal's cancel, out of asyncio.run
        if termination.signum is None:
            raise
        raise SystemExit(termination.exit_code(1)) from None


__all__ = ["app", "main"]
