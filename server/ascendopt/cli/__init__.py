"""`ascendopt …`: the terminal face. Each command parses arguments, calls a service, renders.

One module per command group; importing them registers their commands on `app`.
"""

from __future__ import annotations

from ascendopt.cli import (  # noqa: F401  (registers commands)
    accept,
    campaign,
    experience,
    llm,
    mine,
    operators,
    optimize,
    remote,
    report,
    serve,
    verify,
)
from ascendopt.cli.common import app
from ascendopt.scratch import own_process


def main() -> None:
    # Temporary folders go under the cache, removed at exit (or by the next start).
    with own_process().exits():
        app()


__all__ = ["app", "main"]
