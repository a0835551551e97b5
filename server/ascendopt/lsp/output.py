"""A remote build's output, live, in the editor's output channel (`window/logMessage`, which the
VS Code client writes to its one output channel): a 2-minute CANN build is not silent."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ascendopt.evaluation import build_output


@contextlib.contextmanager
def to_channel(ls: LanguageServer) -> Iterator[None]:
    """Build and run output of work started in this block goes to the output channel."""

    def send(line: str) -> None:
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=line))

    with build_output.streaming(send):
        yield
