"""One episode's journal: `events.jsonl` (append-only, fsync per event), candidates by hash, summary,
the suggestion and its patch. Nothing else writes into an episode's folder.

Reading tolerates a torn last line (a crash mid-write) and records that do not parse; every
other line is kept.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ascendopt.journal.events import EventData
from ascendopt.operators.candidate import Candidate
from ascendopt.redact import Scrubber
from ascendopt.untrusted import PARSE_ERRORS, reason, shorten

JOURNAL_VERSION = 1
log = logging.getLogger(__name__)


class EpisodeEvent(BaseModel):
    """One line of events.jsonl. `type` names what happened; `data` holds its record (events.py)."""

    # An evaluation of a wrong candidate may hold NaN/inf errors: kept as "NaN"/"Infinity", which
    # read back as floats (JSON's null would not, and the record would be lost on resume).
    model_config = ConfigDict(ser_json_inf_nan="strings")

    v: int = JOURNAL_VERSION
    seq: int
    type: str
    time: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    data: EventData
    shortened: str | None = None  # set when the record was over MAX_RECORD_BYTES: what was cut

    @model_validator(mode="before")
    @classmethod
    def _type_into_data(cls, raw: Any) -> Any:
        # On disk the type stands once, beside `data`; the union needs it inside to pick the model.
        if isinstance(raw, dict) and isinstance(raw.get("data", {}), dict):
            raw = {**raw, "data": {**raw.get("data", {}), "type": raw.get("type")}}
        return raw


def episodes_dir(workspace: Path) -> Path:
    return workspace / ".ascendopt" / "episodes"


def patch_name(operator: str) -> str:
    return f"{operator}.patch"


def repo_patch_name(operator: str) -> str:
    """The patch with paths from the repository root (`git apply` where the user stands)."""
    return f"{operator}.repo.patch"


class EpisodeJournal:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.events_path = folder / "events.jsonl"
        self._seq = len(self.events())
        self.scrubber = Scrubber()  # the episode sets the configured secrets: none is ever written

    @classmethod
    def create(cls, workspace: Path, episode_id: str) -> EpisodeJournal:
        folder = episodes_dir(workspace) / episode_id
        (folder / "candidates").mkdir(parents=True, exist_ok=True)
        return cls(folder)

    @classmethod
    def open(cls, workspace: Path, episode_id: str) -> EpisodeJournal:
        folder = episodes_dir(workspace) / episode_id
        if not folder.is_dir():
            known = (
                sorted(p.name for p in episodes_dir(workspace).glob("*"))
                if episodes_dir(workspace).is_dir()
                else []
            )
            listing = ", ".join(known) or "none"
            raise KeyError(f"no episode {episode_id!r} in {episodes_dir(workspace)} (known: {listing})")
        return cls(folder)

    @property
    def id(self) -> str:
        return self.folder.name

    def append(self, data: EventData) -> EpisodeEvent:
        event = EpisodeEvent(seq=self._seq, type=data.type, data=data)
        text = self.scrubber.text(event.model_dump_json(exclude={"shortened"}))
        with open(self.events_path, "a", encoding="utf-8") as fh:
            # opened for appending, the file's position is its size: the journal so far
            limit = MAX_RECORD_BYTES if fh.tell() < MAX_JOURNAL_BYTES else MAX_LATE_RECORD_BYTES
            line = bounded(text, limit) + "\n"
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self._seq += 1
        return event

    def events(self, type_: str | None = None) -> list[EpisodeEvent]:
        if not self.events_path.exists():
            return []
        out = []
        for raw in self.events_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not raw.strip():
                continue
            try:
                event = EpisodeEvent.model_validate_json(raw)
            except PARSE_ERRORS as exc:
                # A torn last line (a crash mid-write), or a record this version cannot read: the
                # rest of the journal stands, and what the record said is re-done, never trusted.
                log.warning("%s: a record that does not parse is skipped: %s", self.events_path, reason(exc))
                continue
            if type_ is None or event.type == type_:
                out.append(event)
        return out

    def save_candidate(self, candidate: Candidate) -> None:
        path = self.folder / "candidates" / f"{candidate.id}.json"
        if not path.exists():
            _atomic_write(path, self.scrubber.text(candidate.model_dump_json()))

    def load_candidate(self, candidate_id: str) -> Candidate:
        return Candidate.model_validate_json(
            (self.folder / "candidates" / f"{candidate_id}.json").read_text()
        )

    def write_json(self, name: str, data: BaseModel | dict[str, Any]) -> Path:
        text = data.model_dump_json(indent=2) if isinstance(data, BaseModel) else json.dumps(data, indent=2)
        return self.write_text(name, text)

    def write_text(self, name: str, text: str) -> Path:
        path = self.folder / name
        _atomic_write(path, self.scrubber.text(text))
        return path

    def write_suggestion(
        self, suggestion: BaseModel, operator: str, patch: str, repo_patch: str = ""
    ) -> Path:
        """`suggestion.json` and the `git apply`-able `<operator>.patch` beside it (paths from the
        operator folder), and `<operator>.repo.patch` (paths from the repository root) when the
        operator sits inside a repository; the first patch's path."""
        self.write_json("suggestion.json", suggestion)
        if repo_patch and repo_patch != patch:
            self.write_text(repo_patch_name(operator), repo_patch)
        return self.write_text(patch_name(operator), patch)

    def read_json(self, name: str) -> dict[str, Any] | None:
        path = self.folder / name
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data


# One journal line at most: whatever a candidate's run or a model's reply puts into a record, a
# journal grows by this much per event.
MAX_RECORD_BYTES = 256 << 10
# A whole journal: past this size every further record is cut to MAX_LATE_RECORD_BYTES, so an episode
# whose model keeps answering (refused edits spend no evaluation) cannot grow its journal without bound.
MAX_JOURNAL_BYTES = 16 << 20
MAX_LATE_RECORD_BYTES = 4 << 10
# (longest string, longest list) tried in turn until the record fits
_SHRINK_STEPS = ((16384, 1000), (4096, 200), (1024, 50), (256, 10), (64, 2))


def bounded(line: str, limit: int = MAX_RECORD_BYTES) -> str:
    """`line` (an EpisodeEvent as JSON) if it fits `limit` bytes; else the same record with its
    long strings and lists cut, and `shortened` saying so (or, failing that, its data emptied)."""
    size = len(line.encode("utf-8"))
    if size <= limit:
        return line
    record = json.loads(line)
    for chars, items in _SHRINK_STEPS:
        note = (
            f"record of {size} bytes shortened: strings over {chars} characters, lists over {items} items cut"
        )
        out = json.dumps({**record, "data": _shrink(record["data"], chars, items), "shortened": note})
        if len(out.encode("utf-8")) <= limit:
            return out
    return json.dumps({**record, "data": {}, "shortened": f"record of {size} bytes: its data dropped"})


def _shrink(value: Any, chars: int, items: int) -> Any:
    if isinstance(value, str):
        return shorten(value, chars)
    if isinstance(value, list):
        return [_shrink(v, chars, items) for v in value[:items]]
    if isinstance(value, dict):
        return {shorten(k, chars): _shrink(v, chars, items) for k, v in list(value.items())[: 4 * items]}
    return value


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
