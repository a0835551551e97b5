"""Lessons in and out of the bank: our JSONL (both ways, exact round trip) and the public bank
format of the paper's authors (`{title, description, bottleneck, code_diff}` objects, one per
line or a JSON array).

A file is parsed whole before anything is stored, and stored in one transaction: a bad line
anywhere means nothing is imported, and the error names the file and the line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ascendopt.experience.families import infer_family
from ascendopt.experience.records import CodeDiff, ExperienceEntry

if TYPE_CHECKING:
    from ascendopt.experience.bank import Bank

Format = Literal["jsonl", "paper"]
MAX_KEYWORDS = 12


class LessonFileError(ValueError):
    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


class ImportReport(BaseModel):
    read: int
    added: int  # the rest were already in the bank (same id)


class PaperLesson(BaseModel):
    """One entry of the authors' public bank. Unknown extra keys are tolerated, missing ones are not."""

    model_config = ConfigDict(extra="ignore")

    title: str
    description: str
    bottleneck: str
    code_diff: str


def _why(exc: ValidationError | ValueError) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return f"{where}: {first['msg']}{more}"
    return str(exc)


def read_jsonl(path: Path) -> list[ExperienceEntry]:
    entries: list[ExperienceEntry] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(ExperienceEntry.model_validate_json(line))
        except (ValidationError, ValueError) as exc:
            raise LessonFileError(path, lineno, _why(exc)) from exc
    return entries


def write_jsonl(entries: list[ExperienceEntry], path: Path) -> None:
    """One lesson per line, written to a temporary file first so a reader never sees half a file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(e.model_dump_json() + "\n" for e in entries), encoding="utf-8")
    tmp.replace(path)


def _paper_objects(path: Path) -> list[tuple[int, Any]]:
    """(line, object) pairs from a JSON array or from JSON lines, with the line each object starts on."""
    text = Path(path).read_text(encoding="utf-8")
    stripped = text.lstrip()
    if not stripped.startswith("["):
        out: list[tuple[int, Any]] = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    out.append((lineno, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise LessonFileError(path, lineno, f"not JSON: {exc.msg} (column {exc.colno})") from exc
        return out
    # Walk the array element by element so every object knows its own line number.
    decoder = json.JSONDecoder()
    pos = len(text) - len(stripped) + 1
    objects: list[tuple[int, Any]] = []
    expect_value = True
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        at_line = text.count("\n", 0, pos) + 1
        if pos >= len(text):
            raise LessonFileError(path, at_line, "unterminated JSON array")
        if text[pos] == "]" and (not objects or not expect_value):
            rest = text[pos + 1 :].strip()
            if rest:
                raise LessonFileError(path, text.count("\n", 0, pos) + 1, "text after the JSON array")
            return objects
        if not expect_value:
            if text[pos] != ",":
                raise LessonFileError(path, at_line, f"expected ',' or ']' but found {text[pos]!r}")
            pos += 1
            expect_value = True
            continue
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise LessonFileError(path, exc.lineno, f"not JSON: {exc.msg} (column {exc.colno})") from exc
        objects.append((at_line, obj))
        expect_value = False


def _keywords(text: str) -> list[str]:
    """AscendC-looking identifiers (DataCopyPad, PIPE_ALL) as keywords, first seen first."""
    found = re.findall(r"\b(?:[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b", text)
    return list(dict.fromkeys(found))[:MAX_KEYWORDS]


def from_paper(lesson: PaperLesson) -> ExperienceEntry:
    text = "\n".join((lesson.title, lesson.description, lesson.bottleneck, lesson.code_diff))
    return ExperienceEntry(
        title=lesson.title,
        summary=lesson.description,
        bottleneck=lesson.bottleneck,
        code_diff=CodeDiff(kernel=lesson.code_diff),
        family=infer_family(text),
        keywords=_keywords(text),
        provenance="imported",
    )


def read_paper(path: Path) -> list[ExperienceEntry]:
    entries: list[ExperienceEntry] = []
    for line, obj in _paper_objects(path):
        try:
            entries.append(from_paper(PaperLesson.model_validate(obj)))
        except ValidationError as exc:
            raise LessonFileError(path, line, _why(exc)) from exc
    return entries


def read_lessons(path: Path, fmt: Format = "jsonl") -> list[ExperienceEntry]:
    return read_paper(path) if fmt == "paper" else read_jsonl(path)


def import_file(bank: Bank, path: Path, fmt: Format = "jsonl") -> ImportReport:
    entries = read_lessons(path, fmt)  # raises before anything is stored
    return ImportReport(read=len(entries), added=bank.add_many(entries))


def export_file(bank: Bank, path: Path, family: str | None = None) -> int:
    entries = bank.all(family)
    write_jsonl(entries, path)
    return len(entries)
