"""Names the server and its clients agree on: commands, custom notifications, capabilities."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

OPTIMIZE = "ascendopt.optimize"
TUNE_TILING = "ascendopt.tuneTiling"
RESUME_EPISODE = "ascendopt.resumeEpisode"  # [{episode}] → {status, …} as optimize
VERIFY = "ascendopt.verify"
PROFILE = "ascendopt.profile"
MINE = "ascendopt.mineExperience"
ACCEPT = "ascendopt.acceptSuggestion"
REJECT = "ascendopt.rejectSuggestion"
SHOW_EXPERIENCE = "ascendopt.showExperience"
CAMPAIGN = "ascendopt.runCampaign"  # [{paths?, budget?, strategies?}]
EPISODE_REPORT = "ascendopt.episodeReport"  # [{episode} | {uri} | {operatorRoot, name}] -> {html, …}
SHOW_PROFILE = "ascendopt.showProfile"  # [{operatorRoot, name}] → {status, markdown | message}
# The client command the hover's "more" link runs: it asks SHOW_PROFILE and opens the Markdown
# preview (the server's command itself only answers).
OPEN_PROFILE = "ascendopt.openProfile"
LIST_TEMPLATES = "ascendopt.listTemplates"  # [] → [{name, summary}]
COPY_TEMPLATE = "ascendopt.copyTemplate"  # [{name, to}] → {status, path | message}
INIT_SPEC = "ascendopt.initSpec"  # [{operatorRoot, name} | {uri}, {force?}] → {status, path, notes, next}

# Server → client notifications.
INDEXED = "ascendopt/indexed"  # {folders, operators: [{name, root, kernel}]}
EVALUATED = "ascendopt/evaluated"  # {operator, operatorRoot, action, status, correct, verdict, cases}
# {id, operator, operatorRoot, title, speedups, geomean, summary, files: [{path, uri, current, proposed}]}
SUGGESTION = "ascendopt/suggestion"
CAMPAIGN_ENDED = "ascendopt/campaignEnded"  # {campaign, report, summary: [line per strategy]}
EPISODE_ENDED = "ascendopt/episodeEnded"  # {operator, operatorRoot, episode, cancelled, message, suggestion}

# A client that shows suggestions itself (the VS Code extension's diff view) declares
# `capabilities.experimental.ascendopt.suggestionView = true`; others get a workspace/applyEdit
# whose change annotations need confirmation, so any LSP client can preview the paired edit.
EXPERIMENTAL_KEY = "ascendopt"
SUGGESTION_VIEW = "suggestionView"


# The notifications' payloads and the accept/reject answers, as the client reads them
# (extension/src/protocol.ts types the same shapes; tests/lsp/test_protocol.py compares the two).


class _Payload(BaseModel):
    def wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class IndexedOperator(_Payload):
    name: str
    root: str
    kernel: str  # a file URI


class IndexedParams(_Payload):
    folders: list[str]
    operators: list[IndexedOperator]


class EvaluatedCase(_Payload):
    name: str
    status: str
    durationUs: float | None
    label: str | None


class EvaluationSummary(_Payload):
    status: str
    correct: bool
    verdict: str
    compileErrors: int
    findings: int
    cases: list[EvaluatedCase]


class EvaluatedParams(EvaluationSummary):
    operator: str
    operatorRoot: str
    action: Literal["verify", "profile"]


class SuggestionFile(_Payload):
    path: str  # relative to the operator root
    uri: str
    current: str  # the text the episode started from
    proposed: str


class Speedup(_Payload):
    case: str
    baseline_us: float
    candidate_us: float
    speedup: float
    noise: float
    kind: str


class OutcomeSummary(_Payload):
    """How an episode ended, worded by the server (agent/outcome.py); the client only shows it."""

    status: Literal["suggestion", "no_gain", "cancelled", "failed"]
    title: str  # short: a diff title, the status line
    headline: str  # one line: a toast
    details: list[str]  # per case (regressions marked), timing kind and backend, kernel rewriting


class SuggestionParams(_Payload):
    id: str
    operator: str
    operatorRoot: str
    title: str
    summary: str
    geomean: float
    speedups: list[Speedup]
    files: list[SuggestionFile]
    outcome: OutcomeSummary | None = None


class EpisodeEndedParams(_Payload):
    operator: str
    operatorRoot: str
    episode: str
    cancelled: bool
    message: str
    suggestion: str | None
    outcome: OutcomeSummary | None = None


# ascendopt/workspaceState: what the sidebar shows, in one answer.
WORKSPACE_STATE = "ascendopt/workspaceState"  # {} → WorkspaceState


class StateOperator(_Payload):
    name: str
    root: str
    kernel: str  # a file URI
    spec: Literal["ok", "missing", "invalid"]
    specProblem: str | None
    lastVerify: str | None  # the verdict, in words
    lastProfile: str | None  # the slowest case's duration, labelled
    running: bool


class StateEpisode(_Payload):
    id: str
    operator: str
    ended: bool
    cancelled: bool
    message: str
    bestSpeedup: float | None
    evaluations: int


class StateSuggestion(_Payload):
    id: str
    operator: str
    operatorRoot: str
    episode: str
    geomean: float
    timing: str  # what the speedup rests on: "estimate", "measured", "mixed" (outcome.timing_of)
    summary: str


class StateLesson(_Payload):
    id: str
    title: str
    family: str | None
    markdown: str  # the whole lesson, rendered for a Markdown preview


class WorkspaceState(_Payload):
    folders: list[str]
    operators: list[StateOperator]
    episodes: list[StateEpisode]
    suggestions: list[StateSuggestion]
    lessons: list[StateLesson]
    message: str | None
