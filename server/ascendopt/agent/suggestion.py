"""The end of an episode: one paired edit (tiling program + kernel) with its measured speedups.

Applying it is the only way the user's files change, and it refuses when the
files differ from what the episode started from (the suggestion is stale).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from ascendopt.operators.files import in_repo, unified_diff


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class FileChange(BaseModel):
    path: str  # relative to the operator root
    base_hash: str  # of the file as the episode started from it
    base_text: str
    proposed_text: str

    def unified_diff(self, prefix: str = "") -> str:
        """The change as a diff of `path`, or of it inside the repository (`prefix`: the operator
        folder there)."""
        return unified_diff(in_repo(prefix, self.path), self.base_text, self.proposed_text)


class CaseSpeedup(BaseModel):
    case: str
    baseline_us: float
    candidate_us: float
    speedup: float
    noise: float  # relative noise band of the measurement (0 for a deterministic estimate)
    kind: str  # "estimate" or "measured"


class Suggestion(BaseModel):
    id: str
    operator: str
    root: Path
    episode: str
    candidate_id: str
    changes: list[FileChange]
    speedups: list[CaseSpeedup] = Field(default_factory=list)
    geomean_speedup: float = 1.0
    summary: str = ""  # one line: what changed and why it is faster
    # The operator folder inside the repository around it (files.repo_prefix); "" when none.
    repo_prefix: str = ""

    def patch(self) -> str:
        """`git apply`-able in the operator folder."""
        return "".join(c.unified_diff() for c in self.changes)

    def repo_patch(self) -> str:
        """`git apply`-able at the repository root (where a user of the repository stands); the
        same as `patch()` when the operator folder is the root or sits in no repository."""
        return "".join(c.unified_diff(self.repo_prefix) for c in self.changes)

    def stale_files(self) -> list[str]:
        """Files that changed on disk since the episode started (or vanished)."""
        return [c.path for c in self.changes if text_hash(_current(self.root / c.path)) != c.base_hash]

    def applied(self) -> bool:
        """Every file already holds what the suggestion proposes (it was accepted, or made by hand)."""
        return all(_current(self.root / c.path) == c.proposed_text for c in self.changes)


def _current(path: Path) -> str:
    """The file's text now; "" when it cannot be read (a vanished file matches no hash)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


class StaleSuggestion(Exception):
    def __init__(self, files: list[str], applied: bool = False) -> None:
        super().__init__(
            f"already applied: {', '.join(files)} hold what the suggestion proposes"
            if applied
            else f"the suggestion is stale: {', '.join(files)} changed since the episode started; re-run it"
        )
        self.files = files
        self.applied = applied


def apply_suggestion(suggestion: Suggestion) -> list[Path]:
    """Write every changed file, or none: refuse if any is stale; roll back if a write fails."""
    stale = suggestion.stale_files()
    if stale:
        raise StaleSuggestion(stale, applied=suggestion.applied())
    written: list[tuple[Path, str]] = []
    try:
        for c in suggestion.changes:
            path = suggestion.root / c.path
            tmp = path.with_name(f".{path.name}.ascendopt-{os.getpid()}.tmp")
            tmp.write_text(c.proposed_text, encoding="utf-8")
            tmp.replace(path)
            written.append((path, c.base_text))
    except OSError:
        for path, original in written:
            path.write_text(original, encoding="utf-8")
        raise
    return [p for p, _ in written]


def make_suggestion(
    *,
    operator: str,
    root: Path,
    episode: str,
    candidate_id: str,
    base_files: dict[str, str],
    proposed_files: dict[str, str],
    speedups: list[CaseSpeedup],
    geomean: float,
    summary: str,
    places: Mapping[str, str] | None = None,
    repo_prefix: str = "",
) -> Suggestion:
    """`places`: a carried file the build sees at another place than the user's tree holds it
    (an operator's `rms_norm/x.h` is `../rms_norm/op_kernel/x.h`): the change goes to the file."""
    places = places or {}
    changes = [
        FileChange(
            path=places.get(p, p),
            base_hash=text_hash(base_files[p]),
            base_text=base_files[p],
            proposed_text=proposed_files[p],
        )
        for p in sorted(proposed_files)
        if p in base_files and proposed_files[p] != base_files[p]
    ]
    sid = hashlib.sha256(f"{episode}/{candidate_id}".encode()).hexdigest()[:16]
    return Suggestion(
        id=sid,
        operator=operator,
        root=root,
        episode=episode,
        candidate_id=candidate_id,
        changes=changes,
        speedups=speedups,
        geomean_speedup=geomean,
        summary=summary,
        repo_prefix=repo_prefix,
    )
