"""`ascendopt …`: the terminal face. Each command parses arguments, calls a service, renders.

One module per command group; importing one registers its commands on `app`. Modules are imported
when their command runs (common.COMMANDS, LazyGroup): `--version` and `--help` import none of them.
"""

from __future__ import annotations

from ascendopt.cli.common import app, load_all
from ascendopt.scratch import own_process


def main() -> None:
    # Temporary folders go under the cache, removed at exit (or by the next start).
    with own_process().exits():
        app()


__all__ = ["app", "load_all", "main"]
