"""What a reply's edits are once read, and the one error they are refused with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EditKind = Literal["block", "hunk", "file"]
KIND_NAMES = {"block": "SEARCH/REPLACE block", "hunk": "diff hunk", "file": "whole file"}


@dataclass
class Edit:
    """One edit, numbered in the order the reply holds it (`n`, what errors name).

    block: `search` lines → `replace` lines; hunk: its context + removed lines → context + added
    lines, with `lead`/`tail` context lines that may be dropped to locate it (like `patch --fuzz`);
    file: `replace` is the whole new file (`search` empty).
    """

    n: int
    kind: EditKind
    file: str | None
    search: list[str] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    lead: int = 0
    tail: int = 0
    deletes: bool = False  # a diff whose +++ side is /dev/null

    @property
    def name(self) -> str:
        return f"block {self.n}" if self.kind == "block" else f"block {self.n} ({KIND_NAMES[self.kind]})"


class EditRejected(ValueError):
    """The reply's edits are refused. `fixable`: the model could fix them if told why (a search text
    that does not occur or occurs twice, an elided whole file): the reply is sent back once. Not
    fixable: the file guard, the caps, a truncated reply, a reply with no edit at all."""

    def __init__(self, message: str, fixable: bool = False) -> None:
        super().__init__(message)
        self.fixable = fixable
