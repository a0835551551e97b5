"""Reading what candidate code or a model wrote: every parse failure is one exception, every text capped.

`json.loads` fails in more ways than JSONDecodeError on hostile input: RecursionError on deep
nesting (`[` * 50000), ValueError on a 5000-digit number, UnicodeDecodeError on bad bytes.
"""

from __future__ import annotations

import json
from typing import Any

# What a parser of hostile text may raise; callers turn it into a rejection with a reason.
PARSE_ERRORS = (ValueError, RecursionError, MemoryError, UnicodeError, TypeError)


class Unreadable(ValueError):
    """Text that does not parse; the message says why, briefly."""


def loads(data: str | bytes) -> Any:
    try:
        return json.loads(data)
    except PARSE_ERRORS as exc:
        raise Unreadable(reason(exc)) from exc


def reason(exc: BaseException) -> str:
    """An exception as a short, single-line reason (a RecursionError's message is the recursion)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, RecursionError):
        text = "nested too deeply"
    return shorten(text, 300)


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    note = f" …[{len(text) - limit} more characters cut]"
    return text[: max(0, limit - len(note))] + note
