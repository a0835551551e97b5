"""What an LLM rewriter hands the episode, and the prompt → chat → parse → apply path both share.

A rewriter proposes (OpenEvolve's iteration, TVM's Mutator): given the parent candidate and its
evaluation it returns a Proposal, a Rejection, or None when it has nothing to offer. It never
evaluates, accepts or moves the episode's base; the episode does, and journals the outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel

from ascendopt.agent.edits import EditRejected, edit_files
from ascendopt.agent.llm import LLMClient, LLMUnavailable
from ascendopt.agent.prompts import prompt
from ascendopt.evaluation.records import Evaluation
from ascendopt.experience.records import ExperienceEntry
from ascendopt.journal.events import DiagnosisEvent
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase

RewriteKind = Literal["kernel", "tiling"]


class LessonDraft(BaseModel):
    """What an accepted rewrite teaches, before its measured before/after is known."""

    bottleneck: str
    change: str


class Proposal(BaseModel):
    candidate: Candidate
    bottleneck: str | None = None  # what the rewrite addresses, journaled with its acceptance
    lesson: LessonDraft | None = None


class Rejection(BaseModel):
    """A rewrite that never reached an evaluation: the LLM call failed ("llm"), or its edits were
    refused ("apply"). `stop` set: the rewriter gives up for the rest of the episode, for that reason."""

    stage: Literal["llm", "apply"]
    reason: str
    stop: str | None = None


@dataclass(frozen=True)
class RewriteContext:
    project: OperatorProject  # the operator as the episode found it
    view: OperatorProject  # the operator as the parent's files describe it (its knobs, its ranges)
    cases: list[ResolvedCase]
    note: Callable[[DiagnosisEvent], object]  # journal a step of the rewriter's own reasoning
    progress: Callable[[str], None]


class Rewriter(Protocol):
    kind: RewriteKind

    async def propose(
        self, parent: Candidate, parent_evaluation: Evaluation, context: RewriteContext
    ) -> Proposal | Rejection | None: ...


class LessonSink(Protocol):
    """Where lessons from accepted rewrites go (the experience bank)."""

    def add(self, entry: ExperienceEntry) -> bool: ...


def _opening(template: str, values: dict[str, str]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": prompt("system")},
        {"role": "user", "content": prompt(template, **values)},
    ]


async def _chat(llm: LLMClient, messages: list[dict[str, str]], purpose: str) -> str | Rejection:
    try:
        return await llm.chat(messages, purpose)
    except LLMUnavailable as exc:
        return Rejection(stage="llm", reason=str(exc))


async def ask(llm: LLMClient, template: str, purpose: str, **values: str) -> str | Rejection:
    """One system + user exchange with the prompt `template`; a Rejection if the LLM is unavailable."""
    return await _chat(llm, _opening(template, values), purpose)


SENT_BACK = "edits sent back"
# The relay of an apply error (the error is the message; kept here, beside the code that sends it,
# rather than in templates/prompts/).
SEND_BACK = (
    "Your edits were not applied: {error}\n\n"
    "Nothing of that reply was applied. Reply again with the complete set of edits (every block, "
    "numbered in the order you write them), against the files exactly as shown before, in the same "
    "format. Copy each SEARCH text from those files, with enough lines around it to occur exactly once."
)


async def ask_for_edits(
    llm: LLMClient, files: dict[str, str], editable: list[str], template: str, purpose: str, **values: str
) -> tuple[dict[str, str], str] | Rejection:
    """Ask, then apply the reply's edits to `files` (only `editable` paths may change): the new files
    and the reply. Edits that do not apply for a reason the model can fix (a search text that does
    not occur, or occurs twice) are sent back once, in the same conversation, with the error; the
    second reply's edits apply or the rewrite is refused."""
    messages = _opening(template, values)
    reply = await _chat(llm, messages, purpose)
    if isinstance(reply, Rejection):
        return reply
    try:
        return edit_files(reply, files, editable), reply
    except EditRejected as exc:
        if not exc.fixable:
            return Rejection(stage="apply", reason=str(exc))
        first = str(exc)
    messages = [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": SEND_BACK.format(error=first)},
    ]
    again = await _chat(llm, messages, f"{purpose} ({SENT_BACK})")
    if isinstance(again, Rejection):
        return Rejection(
            stage="apply", reason=f"{first}\n(sent back once; the second call failed: {again.reason})"
        )
    try:
        return edit_files(again, files, editable), again
    except EditRejected as exc:
        return Rejection(stage="apply", reason=f"{first}\n(sent back once; the second reply: {exc})")


def profile_text(ev: Evaluation) -> tuple[str, str]:
    """The parent's profile for a prompt: one line per timed case, and what produced the figures."""
    lines, label = [], "not profiled"
    for c in ev.cases:
        if c.profile is None:
            continue
        label = c.profile.source
        pipes = ", ".join(f"{p.pipe} {p.time_us:.2f} us ({p.ratio:.0%})" for p in c.profile.pipes)
        lines.append(
            f"- case {c.name}: {c.profile.duration_us:.2f} us, {c.profile.bound}-bound; {pipes}; "
            f"hot lines {', '.join(c.profile.hot_lines[:3])}"
        )
    return "\n".join(lines) or "(none)", label
