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

from ascendopt.agent.edits import EditRejected, apply_blocks, parse_blocks
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


async def ask(llm: LLMClient, template: str, purpose: str, **values: str) -> str | Rejection:
    """One system + user exchange with the prompt `template`; a Rejection if the LLM is unavailable."""
    try:
        return await llm.chat(
            [
                {"role": "system", "content": prompt("system")},
                {"role": "user", "content": prompt(template, **values)},
            ],
            purpose,
        )
    except LLMUnavailable as exc:
        return Rejection(stage="llm", reason=str(exc))


async def ask_for_edits(
    llm: LLMClient, files: dict[str, str], editable: list[str], template: str, purpose: str, **values: str
) -> tuple[dict[str, str], str] | Rejection:
    """Ask, then apply the reply's search/replace blocks to `files` (only `editable` paths may change):
    the new files and the reply."""
    reply = await ask(llm, template, purpose, **values)
    if isinstance(reply, Rejection):
        return reply
    try:
        return apply_blocks(files, parse_blocks(reply), editable), reply
    except EditRejected as exc:
        return Rejection(stage="apply", reason=str(exc))


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
