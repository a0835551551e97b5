"""Problems found in a user's operator files, each pinned to a file and line."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Issue(BaseModel):
    file: str
    line: int = 1  # 1-based
    column: int = 1  # 1-based
    severity: Literal["error", "warning", "info"] = "error"
    message: str
    code: str = "ascendopt"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


class CompileError(Exception):
    """A candidate that does not build, with the compiler's errors pinned to the user's lines."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__("\n".join(str(i) for i in issues))
        self.issues = issues


class SpecError(Exception):
    """A spec (or operator source) that cannot be used; carries every issue found."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__("\n".join(str(i) for i in issues))
        self.issues = issues


def blocking(issues: list[Issue]) -> list[Issue]:
    """The issues that stop an operator from being evaluated at all (verify refuses, optimize stops)."""
    return [
        i for i in issues if i.severity == "error" and i.code in ("parse", "duplicate", "unsupported", "spec")
    ]
