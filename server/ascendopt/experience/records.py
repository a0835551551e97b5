"""The records of the experience bank: a lesson, the applicators the no-LLM episode can try, and
the diagnosis a lesson is retrieved for.

A lesson is written slow→fast: its diff, applied to code that looks like the "slow" side, gives
the faster code. Lessons cross process boundaries (JSONL export, the SQLite body column, CLI JSON),
so they are versioned pydantic models whose JSON round-trips exactly.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from ascendopt.operators.model import KnobKind, Layout

RECORD_VERSION = 1

Bound = Literal["memory", "vector", "scalar", "sync", "launch"]
Provenance = Literal["rewind", "episode", "imported", "seed"]
# "not_measured" is the honest label of hand-written and imported lessons: no figures at all.
Timing = Literal["measured", "estimated", "not_measured"]


class KnobApplicator(BaseModel):
    """Set one knob of the operator (found by its kind in the knob space) to a value."""

    kind: Literal["knob"] = "knob"
    knob_kind: KnobKind
    value: int | Literal["max", "min"]  # "max"/"min": the extreme of the values the knob allows


class EditApplicator(BaseModel):
    """A search/replace block (OpenEvolve's edit format) on the kernel or the tiling program."""

    kind: Literal["edit"] = "edit"
    file: Literal["kernel", "tiling"] = "kernel"
    search: str
    replace: str


Applicator = Annotated[KnobApplicator | EditApplicator, Field(discriminator="kind")]


class CodeDiff(BaseModel):
    """Unified diffs written slow→fast, one per side of the paired change."""

    kernel: str = ""
    tiling: str | None = None  # only when the lesson changes the host tiling program too

    def text(self) -> str:
        return self.kernel + ("\n" + self.tiling if self.tiling else "")


class ExperienceEntry(BaseModel):
    record_version: int = RECORD_VERSION
    id: str = ""  # content hash; filled in from the content when left empty
    title: str
    family: str  # dotted tag, e.g. "kernel.pipeline.double_buffer"; prefixes group families
    summary: str = ""  # what the change is, in a sentence or two
    bottleneck: str  # the symptom the lesson addresses
    bound: Bound | None = None
    applies_when: str = ""
    avoid_when: str = ""
    expected_effect: str = ""
    code_diff: CodeDiff = Field(default_factory=CodeDiff)
    timing: Timing = "not_measured"
    slow_us: float | None = None
    fast_us: float | None = None
    evidence_before: dict[str, float] = Field(default_factory=dict)  # pipe times (µs) / ratios
    evidence_after: dict[str, float] = Field(default_factory=dict)
    operator: str | None = None
    layout: Layout | None = None
    dtypes: list[str] = Field(default_factory=list)  # empty: not specific to a dtype
    keywords: list[str] = Field(default_factory=list)
    provenance: Provenance
    backend: str | None = None  # "cpu-twin" / "ssh" — where the durations come from
    soc: str | None = None
    created: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    applicator: Applicator | None = None

    @model_validator(mode="after")
    def _check(self) -> ExperienceEntry:
        # A duration without its label (or a label without durations) would let an estimate
        # pass for a measurement later on; refuse both.
        has_times = self.slow_us is not None and self.fast_us is not None
        if self.timing == "not_measured" and (self.slow_us is not None or self.fast_us is not None):
            raise ValueError("timing 'not_measured' must leave slow_us and fast_us empty")
        if self.timing != "not_measured" and not has_times:
            raise ValueError(f"timing {self.timing!r} needs both slow_us and fast_us")
        if not self.family or self.family.startswith(".") or self.family.endswith("."):
            raise ValueError(f"bad family tag {self.family!r}")
        if not self.id:
            self.id = self.content_hash()
        return self

    def content_hash(self) -> str:
        """Identity is what the lesson says and where it came from, not when or how fast it ran:
        re-mining the same step twice must not make two lessons."""
        payload: dict[str, Any] = {
            "title": self.title,
            "family": self.family,
            "bottleneck": self.bottleneck,
            "code_diff": self.code_diff.model_dump(),
            "operator": self.operator,
            "applicator": self.applicator.model_dump() if self.applicator else None,
        }
        raw = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(raw).hexdigest()[:16]

    @property
    def speedup(self) -> float | None:
        if self.slow_us is None or self.fast_us is None or self.fast_us <= 0:
            return None
        return self.slow_us / self.fast_us


class Diagnosis(BaseModel):
    """What an episode knows about an operator's slowness: the query side of retrieval."""

    bottleneck: str = ""
    bound: Bound | None = None
    pipe_ratios: dict[str, float] = Field(default_factory=dict)  # "mte2" → 0.81 …
    hot_code: str = ""  # source around the hot lines
    operator: str | None = None
    layout: Layout | None = None
    dtypes: list[str] = Field(default_factory=list)


class SearchFilters(BaseModel):
    """Hard filters. A lesson with no layout / no dtypes is general and passes those filters."""

    family_prefix: str | None = None
    layout: Layout | None = None
    dtype: str | None = None


class ScoredLesson(BaseModel):
    entry: ExperienceEntry
    score: float  # higher is better: BM25 after the bound bonus
