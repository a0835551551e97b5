"""Paths, URIs and ranges: records speak 1-based lines relative to an operator root; LSP speaks
0-based UTF-16 positions in URIs."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path


def uri_to_path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs).resolve() if fs else None


def path_to_uri(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None  # a local absolute path always has one
    return uri


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def line_range(lines: list[str], line: int, column: int | None = None) -> types.Range:
    """The code on a 1-based line (indentation left out), or from `column` on; line 1 if out of range."""
    idx = line - 1 if 0 < line <= len(lines) else 0
    text = lines[idx].rstrip("\r\n") if lines else ""
    if column is not None and column > 1:
        start = utf16_len(text[: column - 1])
    else:
        start = utf16_len(text[: len(text) - len(text.lstrip())])
    end = max(utf16_len(text), start)
    return types.Range(
        start=types.Position(line=idx, character=start), end=types.Position(line=idx, character=end)
    )


def read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
