"""What an episode journals, one model per event type: a discriminated union on `type`.

On disk a line is `{"v", "seq", "type", "time", "data"}` (journal/store.py); `data` is one of
these models without its `type`, so journals written before the models existed read the same.
A type this version does not know (a newer journal) is kept as `OtherEvent`, never dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag


class _Event(BaseModel):
    type: str = Field(exclude=True)  # the envelope's `type`; not repeated inside `data`


class StartEvent(_Event):
    type: Literal["start"] = Field(default="start", exclude=True)
    operator: str
    root: str
    settings: dict[str, Any]  # EpisodeSettings, as the episode ran with them
    baseline: str
    kernel_rewriting: str = ""


class EvaluationEvent(_Event):
    """An evaluation the ledger paid for; replay and resume read it back instead of re-running."""

    type: Literal["evaluation"] = Field(default="evaluation", exclude=True)
    key: str
    candidate: str
    purpose: str
    seed: int
    evaluation: dict[str, Any]  # an Evaluation (evaluation/records.py), as JSON
    shared_from: str = ""  # the episode that made it, when not this one (a campaign's shared baseline)


class LlmEvent(_Event):
    """One LLM exchange (never the key): a response, or the error the endpoint gave."""

    type: Literal["llm"] = Field(default="llm", exclude=True)
    key: str
    purpose: str
    model: str | None = None
    messages: list[dict[str, str]] | None = None
    response: str | None = None
    usage: dict[str, int] | None = None  # this call's prompt_tokens / completion_tokens
    usage_source: str | None = None  # "server" (the answer's usage), "counted" (our tokenizer), "estimated"
    finish_reason: str | None = None
    retries: int = 0
    continued: bool = False  # cut at the token limit, asked to continue, the parts joined
    error: str | None = None

    model_config = ConfigDict(protected_namespaces=())


class NoiseEvent(_Event):
    type: Literal["noise"] = Field(default="noise", exclude=True)
    band: float
    threshold: float


class DecisionEvent(_Event):
    """The episode's greedy accept / reject of one evaluated candidate."""

    type: Literal["decision"] = Field(default="decision", exclude=True)
    candidate: str
    origin: str
    score: float | None
    best_score: float
    accepted: bool
    reason: str | None = None  # why a faster candidate was still refused (a finding its baseline lacks)


class RewriteRejected(_Event):
    """A rewrite refused before ("apply": the edit; "audit": what the model wrote, statically, before any
    build; "read": the edited operator cannot be read back) or by ("evaluate") its evaluation."""

    type: Literal["kernel.rejected", "tiling.rejected"] = Field(exclude=True)
    reason: str
    stage: Literal["apply", "audit", "read", "evaluate"]
    candidate: str | None = None


class RewriteSkipped(_Event):
    """The LLM call failed; `.disabled`: the rewriter gives up for the rest of the episode."""

    type: Literal["kernel.skipped", "tiling.skipped", "kernel.disabled", "tiling.disabled"] = Field(
        exclude=True
    )
    reason: str


class RewriteAccepted(_Event):
    type: Literal["kernel.accepted", "tiling.accepted"] = Field(exclude=True)
    candidate: str
    bottleneck: str | None = None


class DiagnosisEvent(_Event):
    type: Literal["kernel.diagnosis"] = Field(default="kernel.diagnosis", exclude=True)
    bottleneck: str
    change: str
    lessons: list[str]


class LessonOffered(_Event):
    type: Literal["lesson.offered"] = Field(default="lesson.offered", exclude=True)
    lesson: str


class LessonProvisional(_Event):
    """A lesson from an accepted step, kept here until the winner passes the final re-check."""

    type: Literal["lesson.provisional"] = Field(default="lesson.provisional", exclude=True)
    lesson: str
    entry: dict[str, Any]  # an ExperienceEntry (experience/records.py), as JSON


class LessonStored(_Event):
    """A provisional lesson the bank took, after the winner passed the re-check."""

    type: Literal["lesson.stored"] = Field(default="lesson.stored", exclude=True)
    lesson: str


class KnobRejected(_Event):
    """A knob assignment refused before any candidate was made (rejected), or whose tiling program
    failed the pre-check (precheck.rejected)."""

    type: Literal["rejected", "precheck.rejected"] = Field(exclude=True)
    assignment: dict[str, int | str]
    reason: str
    candidate: str | None = None


class ConvergedEvent(_Event):
    type: Literal["converged"] = Field(default="converged", exclude=True)
    message: str


class RecheckShapes(_Event):
    """The final re-check's extra shapes: each checked or skipped, and why (agent/recheck.py)."""

    type: Literal["recheck.shapes"] = Field(default="recheck.shapes", exclude=True)
    shapes: list[dict[str, Any]]


class EndEvent(_Event):
    """The outcome (agent/outcome.py Outcome.public()) without its suggestion (in suggestion.json)."""

    type: Literal["end"] = Field(default="end", exclude=True)
    model_config = ConfigDict(extra="allow")
    episode: str
    operator: str
    message: str
    outcome: dict[str, Any] | None = None  # agent/outcome.py Outcome, as JSON (none before it existed)


class UserDecision(_Event):
    type: Literal["decision.user"] = Field(default="decision.user", exclude=True)
    suggestion: str
    decision: Literal["accepted", "rejected"]


class OtherEvent(_Event):
    """A type this version does not know: its fields are kept as they are."""

    model_config = ConfigDict(extra="allow")


MODELS: tuple[type[_Event], ...] = (
    StartEvent,
    EvaluationEvent,
    LlmEvent,
    NoiseEvent,
    DecisionEvent,
    RewriteRejected,
    RewriteSkipped,
    RewriteAccepted,
    DiagnosisEvent,
    LessonOffered,
    LessonProvisional,
    LessonStored,
    KnobRejected,
    ConvergedEvent,
    RecheckShapes,
    EndEvent,
    UserDecision,
)
KNOWN: dict[str, type[_Event]] = {
    name: model for model in MODELS for name in get_args(model.model_fields["type"].annotation)
}


def _tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return KNOWN[kind].__name__ if kind in KNOWN else OtherEvent.__name__


if TYPE_CHECKING:
    EventData = _Event
else:  # the union pydantic validates: each model tagged by its name, picked by `_tag`
    EventData = Annotated[
        Union[tuple(Annotated[m, Tag(m.__name__)] for m in (*MODELS, OtherEvent))],  # noqa: UP007
        Discriminator(_tag),
    ]
