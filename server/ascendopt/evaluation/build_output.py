"""Where the output of a build or run goes while it happens: the CLI's live panel, the editor's
output channel. A context variable, so concurrent requests (the language server serves several)
each send their lines to their own place, and nothing has to thread a callback through the
episode, the ledger and the pool."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from ascendopt.processes import LineSink

_sink: ContextVar[LineSink | None] = ContextVar("ascendopt_build_output", default=None)


@contextlib.contextmanager
def streaming(sink: LineSink) -> Iterator[None]:
    """Lines emitted by work started inside this block (tasks included) go to `sink`."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


def sink_for(source: str, also: LineSink | None = None) -> LineSink | None:
    """A sink for one machine's lines (prefixed `[source]`), and `also` (unprefixed), if any."""
    outer = _sink.get()
    if outer is None:
        return also
    if also is None:
        return lambda line: outer(f"[{source}] {line}")

    def both(line: str) -> None:
        also(line)
        outer(f"[{source}] {line}")

    return both
