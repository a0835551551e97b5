"""Logging for the server process. pygls logs whole messages at DEBUG (and initialize's params at
INFO), which would include an API key sent in initializationOptions: every record passes through a
filter that blanks key-like fields and any secret value it has been told about."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

_KEY_FIELDS = re.compile(
    r"""(?P<k>['"]?(?:api_?key|apiKey|token|authorization|password|secret)['"]?\s*[:=]\s*)(?P<v>'[^']*'|"[^"]*"|[^\s,}\)]+)""",
    re.IGNORECASE,
)


class Redactor(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()

    def add_secret(self, value: str | None) -> None:
        if value and len(value) >= 4:
            self._secrets.add(value)

    def redact(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "***")
        return _KEY_FIELDS.sub(lambda m: f"{m.group('k')}***", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = self.redact(record.getMessage())
        record.msg, record.args = message, None
        if record.exc_info:
            # Format the traceback now, redacted, so no handler formats the raw one later.
            record.exc_text = self.redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def log_format(to_file: bool, tty: bool) -> str:
    """With a time stamp in a file or a terminal; without one on a pipe, whose reader (the editor's
    output channel) stamps every line itself: one time stamp per line, not two."""
    return ("%(asctime)s " if to_file or tty else "") + "%(levelname)s %(name)s: %(message)s"


def configure(level: int, log_file: Path | None, *, verbose: bool = False) -> Redactor:
    """Log to stderr (stdout carries the protocol) or a file; returns the filter to feed secrets to."""
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler(sys.stderr)
    )
    redactor = Redactor()
    handler.addFilter(redactor)
    handler.setFormatter(logging.Formatter(log_format(log_file is not None, sys.stderr.isatty())))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # pygls logs every message it sends at INFO: only wanted when asked for.
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose else logging.WARNING)
    return redactor


def register_secret(value: str | None) -> None:
    """Tell every redacting handler about a secret value (the API key once settings are read)."""
    for handler in logging.getLogger().handlers:
        for f in handler.filters:
            if isinstance(f, Redactor):
                f.add_secret(value)
