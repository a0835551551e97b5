"""Fit a prompt's source files into the model's context.

`rank` orders the files by what the profile says matters: the files holding the trace's hot lines
first, then the kernel entry and the headers it includes, then the host program, then the rest.
`fit` is pure: given the template's fixed text, the ranked files and the budget (the context less
the reply's share), it keeps files in that order while they fit and names the ones left out;
`sources_block` renders what was kept and says, in the prompt, what was not.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ascendopt.agent.prompts import prompt
from ascendopt.agent.tokens import tokenizer_for

if TYPE_CHECKING:
    from ascendopt.agent.llm import LLMSettings
    from ascendopt.evaluation.records import Evaluation
    from ascendopt.operators.scope import ScopeFile

Role = Literal["editable", "read-only"]

# Ranks, lower first.
HOT, KERNEL, INCLUDED, HOST, OTHER = 0, 1, 2, 3, 4
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


@dataclass(frozen=True)
class PromptFile:
    path: str
    text: str
    role: Role = "editable"
    priority: int = OTHER
    label: str = ""  # what the file is to the operator ("kernel header"), from the rewrite scope

    def section(self) -> str:
        notes = [self.label] if self.label else []
        if self.role != "editable":
            notes.append("read-only: for reference, do not edit")
        heading = f" ({'; '.join(notes)})" if notes else ""
        return f"--- {self.path}{heading} ---\n{self.text}"


@dataclass(frozen=True)
class Fitted:
    included: list[PromptFile]
    left_out: list[str]
    tokens: int  # the fixed text and the sources block as sent
    budget: int
    counting: str  # how tokens were counted ("counted with cl100k_base", or "estimated (…)")
    sizes: dict[str, int] = field(default_factory=dict)  # tokens per file section, kept or not


def rank(
    files: Iterable[tuple[str, str, Role]],
    kernel: str | None,
    host: Iterable[str] = (),
    hot_lines: Iterable[str] = (),
    labels: dict[str, str] | None = None,
) -> list[PromptFile]:
    """(path, text, role) files with their priority, in prompt order: the hot files by their hottest
    line, the others as given within their rank."""
    given = list(files)
    paths = [p for p, _, _ in given]
    hot: dict[str, int] = {}  # path -> its place among the hot lines (the hottest first)
    for line in hot_lines:
        found = _match(line.split(":", 1)[0].strip(), paths)
        if found is not None:
            hot.setdefault(found, len(hot))
    text_of = {p: t for p, t, _ in given}
    included: set[str] = set()
    if kernel in text_of:
        base = posixpath.dirname(kernel)
        for name in INCLUDE.findall(text_of[kernel]):
            found = _match(posixpath.normpath(posixpath.join(base, name)), paths) or _match(name, paths)
            if found:
                included.add(found)
    hosts = set(host)

    def priority(path: str) -> int:
        if path in hot:
            return HOT
        if path == kernel:
            return KERNEL
        if path in included:
            return INCLUDED
        return HOST if path in hosts else OTHER

    ranked = [PromptFile(p, t, r, priority(p), (labels or {}).get(p, "")) for p, t, r in given]
    return sorted(ranked, key=lambda f: (f.priority, hot.get(f.path, 0)))


def _match(name: str, paths: list[str]) -> str | None:
    """The path `name` names: itself, or the one it ends (a profile may give a longer or shorter path)."""
    if not name:
        return None
    if name in paths:
        return name
    for p in paths:
        if p.endswith("/" + name) or name.endswith("/" + p):
            return p
    return None


def fit(
    fixed: str, files: list[PromptFile], budget: int, count: Callable[[str], int], counting: str
) -> Fitted:
    """Keep `files` in order while the fixed text, the kept sections and the omission note fit
    `budget` tokens; a file that does not fit is left out and later (smaller) ones are still tried."""
    sizes = {f.path: count(f.section()) + 1 for f in files}
    note_reserve = count(omission_note([f.path for f in files], budget)) if files else 0
    used = count(fixed) + note_reserve
    included, left_out = [], []
    for f in files:
        if used + sizes[f.path] <= budget:
            included.append(f)
            used += sizes[f.path]
        else:
            left_out.append(f.path)
    block = sources_block(Fitted(included, left_out, 0, budget, counting))
    return Fitted(included, left_out, count(fixed) + count(block), budget, counting, sizes)


def omission_note(left_out: list[str], budget: int) -> str:
    return (
        f"Not shown, for lack of room in the model's context (the prompt may take {budget:,} tokens): "
        + ", ".join(left_out)
        + ". Do not edit a file you were not shown."
    )


def rank_scope(
    scope: Sequence[ScopeFile], files: Mapping[str, str], kernel: str | None, hot_lines: Iterable[str] = ()
) -> list[PromptFile]:
    """A rewrite scope's files (operators/scope.py) in prompt order, each headed by its role."""
    return rank(
        [
            (f.path, files[f.path], "editable" if f.editable else "read-only")
            for f in scope
            if f.path in files
        ],
        kernel,
        host=[f.path for f in scope if f.role.startswith("tiling")],
        hot_lines=hot_lines,
        labels={f.path: f.label for f in scope},
    )


def sources_block(fitted: Fitted) -> str:
    parts = [f.section() for f in fitted.included]
    if fitted.left_out:
        parts.append(omission_note(fitted.left_out, fitted.budget))
    return "\n\n".join(parts)


def fit_for(settings: LLMSettings, template: str, files: list[PromptFile], **values: str) -> Fitted:
    """`fit` for the prompt `template` (its other values given) against `settings`' context."""
    tokenizer = tokenizer_for(settings.model)
    fixed = prompt("system") + "\n" + prompt(template, **{**values, "sources": ""})
    framing = tokenizer.count_messages([{"content": ""}, {"content": ""}])  # system + user
    return fit(fixed, files, settings.prompt_budget() - framing, tokenizer.count, tokenizer.label)


def hot_lines(evaluation: Evaluation) -> list[str]:
    """The profile's hot lines over the cases, hottest case first, each once."""
    seen: dict[str, None] = {}
    profiled = [c.profile for c in evaluation.cases if c.profile is not None]
    for profile in sorted(profiled, key=lambda p: -p.duration_us):
        for line in profile.hot_lines:
            seen.setdefault(line, None)
    return list(seen)
