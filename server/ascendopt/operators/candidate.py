"""A candidate: the operator's files plus the knob values that produced them, content-hashed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from ascendopt.operators.cpp_source import SourceRange
from ascendopt.operators.model import Knob, OperatorProject

KnobValue = int | str


class Candidate(BaseModel):
    operator: str
    files: dict[str, str]  # path relative to the operator root → content
    knobs: dict[str, KnobValue] = Field(default_factory=dict)
    origin: Literal["baseline", "host_search", "tiling_rewrite", "kernel_rewrite", "user"] = "baseline"
    parent: str | None = None
    # Some of its code came from an LLM (itself or an ancestor): it runs only where it can be sandboxed.
    llm_written: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def id(self) -> str:
        return candidate_id(self.files, self.knobs)


def candidate_id(files: dict[str, str], knobs: dict[str, KnobValue]) -> str:
    """Identity = hash of file contents and knob values: equal candidates are never evaluated twice."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode() + b"\0" + files[path].encode() + b"\0")
    h.update(json.dumps(knobs, sort_keys=True).encode())
    return h.hexdigest()[:20]


def baseline(project: OperatorProject) -> Candidate:
    files = project.read_files()
    return Candidate(operator=project.name, files=files, knobs={k.name: k.current for k in project.knobs})


class KnobError(ValueError):
    pass


def apply_knobs(project: OperatorProject, base: Candidate, assignment: Mapping[str, KnobValue]) -> Candidate:
    """New file contents with the assigned knob values spliced in at their exact byte ranges.

    Ranges refer to the files as discovered, so `base` must be the project's baseline
    (or share its knob-bearing bytes); values outside a knob's list are refused.
    """
    by_file: dict[str, list[tuple[SourceRange, bytes]]] = {}
    for name, value in assignment.items():
        knob = project.knob(name)
        _check_value(knob, value)
        if value == knob.current:
            continue
        text = str(value).encode("utf-8")
        if knob.kind == "region" and text and not text.endswith(b"\n"):
            text += b"\n"
        for rng in (knob.range, *knob.links):
            by_file.setdefault(rng.file, []).append((rng, text))
        for scaled in knob.scaled_links:  # only integer knobs carry these
            scaled_text = str(int(value) * scaled.factor).encode()
            by_file.setdefault(scaled.range.file, []).append((scaled.range, scaled_text))
    files = dict(base.files)
    for path, edits in by_file.items():
        data = files[path].encode("utf-8")
        for rng, text in sorted(edits, key=lambda e: e[0].start_byte, reverse=True):
            data = data[: rng.start_byte] + text + data[rng.end_byte :]
        files[path] = data.decode("utf-8")
    knobs = {**base.knobs, **assignment}
    return Candidate(
        operator=project.name,
        files=files,
        knobs=knobs,
        origin="host_search",
        parent=base.id,
        llm_written=base.llm_written,
    )


def _check_value(knob: Knob, value: KnobValue) -> None:
    if knob.kind == "region":
        if not isinstance(value, str):
            raise KnobError(f"knob {knob.name} is a code region; its value must be text")
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise KnobError(f"knob {knob.name} takes an integer, got {value!r}")
    if knob.values and value not in knob.values:
        raise KnobError(f"knob {knob.name} takes one of {knob.values}, got {value}")
