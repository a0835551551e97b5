"""What a lesson may hold: text a model wrote is data (short, no control characters, nothing that
looks like a prompt's delimiters), and its code diff passes the static audit of model-written code.

A lesson's text reaches later prompts (agent/lessons.format_lessons), so an instruction hidden in a
diagnosis ("IGNORE PREVIOUS INSTRUCTIONS: …") must arrive there as quoted data, never as prompt.
"""

from __future__ import annotations

import re

from ascendopt.evaluation.audit import audit_change
from ascendopt.experience.records import ExperienceEntry
from ascendopt.untrusted import shorten

MAX_TEXT = 300  # characters of each text field a model wrote
TEXT_FIELDS = ("title", "bottleneck", "summary", "applies_when", "avoid_when", "expected_effect")
# The lessons block's own tags, and the edit format's and Markdown's delimiters.
_DELIMITERS = re.compile(r"</?\s*lessons?\b[^>]*>|[<>=]{4,}|`{3,}|\bFILE:", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]+")


def neutralise(text: str) -> str:
    """`text` with every prompt-delimiter look-alike replaced (a diff keeps its lines)."""
    return _DELIMITERS.sub("[delimiter removed]", text)


def clean_text(text: str) -> str:
    """One line of data: control characters folded to a space, delimiters removed, capped."""
    return shorten(neutralise(" ".join(_CONTROL.sub(" ", text).split())), MAX_TEXT)


def sanitized(entry: ExperienceEntry) -> ExperienceEntry:
    """`entry` with its text fields cleaned (its id stays: the lesson is the same lesson)."""
    return entry.model_copy(update={f: clean_text(getattr(entry, f)) for f in TEXT_FIELDS})


def diff_sides(diff: str) -> tuple[dict[str, str], dict[str, str]]:
    """(removed lines, added lines) of a unified diff, per file: the audit's baseline and candidate."""
    removed: dict[str, list[str]] = {}
    added: dict[str, list[str]] = {}
    path = "?"
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[4:].strip().removeprefix("b/")
        elif line.startswith("--- "):
            continue
        elif line.startswith("+"):
            added.setdefault(path, []).append(line[1:])
        elif line.startswith("-"):
            removed.setdefault(path, []).append(line[1:])
    files = set(removed) | set(added)
    return (
        {p: _fragment(removed.get(p, [])) for p in files},
        {p: _fragment(added.get(p, [])) for p in files},
    )


def _fragment(lines: list[str]) -> str:
    """A hunk's lines as code the audit can read: most hunks are statements of a function body, and
    read at file scope every local there would look like a static object."""
    return "void ascendopt_lesson_hunk()\n{\n" + "\n".join(lines) + "\n}\n"


def lesson_refusal(entry: ExperienceEntry) -> str | None:
    """Why the lesson's code may not be stored (the audit's first refusal), or None."""
    baseline, candidate = diff_sides(entry.code_diff.text())
    refusals = audit_change(baseline, candidate)
    return f"its code diff fails the audit: {refusals[0].text()}" if refusals else None
