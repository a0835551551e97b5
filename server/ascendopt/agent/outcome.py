"""How an episode ended, as the one record the episode returns and every front end renders the
same way: the CLI's end text and `--json`, the editor's toast, diff title and status line, the
episode report, a campaign's task result.

It says which of four things happened (a suggestion / no gain, and why / cancelled / failed),
per-case speedups with regressions marked, what the durations are (estimate or measured, on which
backend), and whether kernel rewriting ran or was skipped and why. The wording lives here, once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, computed_field, model_validator

from ascendopt.agent.recheck import ExtraShape
from ascendopt.agent.suggestion import CaseSpeedup, Suggestion

Status = Literal["suggestion", "no_gain", "cancelled", "failed"]
KernelRewriting = Literal["ran", "stopped", "skipped"]
TimingKind = Literal["estimate", "measured", "mixed", "none"]

# A case this much slower than its noise band says is a regression (rounding alone never is).
REGRESSION_SLACK = 0.005


class CaseResult(BaseModel):
    case: str
    baseline_us: float
    candidate_us: float | None = None  # None: no candidate was re-measured on it
    speedup: float | None = None
    noise: float = 0.0
    kind: str = "estimate"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def regression(self) -> bool:
        return self.speedup is not None and self.speedup < 1 - max(self.noise, REGRESSION_SLACK)

    def line(self) -> str:
        if self.speedup is None or self.candidate_us is None:
            return f"{self.case}: {self.baseline_us:.2f} µs ({self.kind})"
        mark = "  ▼ slower" if self.regression else ""
        return (
            f"{self.case}: {self.baseline_us:.2f} → {self.candidate_us:.2f} µs, "
            f"{self.speedup:.2f}×{mark} ({self.kind})"
        )


# The episode's fields besides the outcome proper: at the top of the public record (`public`).
EPISODE_FIELDS = {"suggestion", "baseline_us", "recheck", "cancelled"}


class Outcome(BaseModel):
    operator: str
    episode: str
    status: Status
    reason: str  # why, in words: the summary of a suggestion, or why there is none
    evaluations: int
    budget: int
    backend: str
    geomean: float | None = None  # the suggestion's re-checked geomean speedup
    cases: list[CaseResult] = []
    kernel_rewriting: KernelRewriting
    kernel_note: str = ""  # why it was skipped or stopped, or which model ran it
    llm_missing: bool = False  # skipped because no LLM is configured
    # The episode's record besides (not in the journal's "outcome" object: see `public`).
    suggestion: Suggestion | None = None
    cancelled: bool = False  # asked to stop (a winner found before may still be suggested)
    baseline_us: dict[str, float] = {}
    recheck: list[ExtraShape] = []  # the final re-check's extra shapes: checked, skipped and why
    budget_note: str = ""  # when --budget cannot try the whole knob space: one sentence saying so

    @model_validator(mode="before")
    @classmethod
    def _written_before_llm_missing(cls, data: Any) -> Any:
        """An outcome journaled before `llm_missing` existed said so in its note only."""
        if isinstance(data, dict) and "llm_missing" not in data:
            skipped = data.get("kernel_rewriting") == "skipped"
            data = {**data, "llm_missing": skipped and "no LLM" in str(data.get("kernel_note", ""))}
        return data

    @property
    def message(self) -> str:
        return self.headline

    @property
    def best_speedup(self) -> float | None:
        return self.geomean

    def public(self) -> dict[str, Any]:
        """The record as `--json`, summary.json and the journal's end event show it (their shape
        since before there was one record): the episode's fields at the top, `kernel_rewriting`
        there in words, and the outcome proper under "outcome"."""
        dump = self.model_dump(mode="json")
        return {
            "episode": self.episode,
            "operator": self.operator,
            "suggestion": dump["suggestion"],
            "message": self.message,
            "cancelled": self.cancelled,
            "evaluations": self.evaluations,
            "baseline_us": self.baseline_us,
            "best_speedup": self.best_speedup,
            "kernel_rewriting": self.kernel_note,
            "recheck": dump["recheck"],
            "outcome": {k: v for k, v in dump.items() if k not in EPISODE_FIELDS},
        }

    @computed_field  # type: ignore[prop-decorator]
    @property
    def timing(self) -> TimingKind:
        return timing_of(c.kind for c in self.cases)

    @property
    def regressions(self) -> list[CaseResult]:
        return [c for c in self.cases if c.regression]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def title(self) -> str:
        """Short, for a diff title or a status line (never repeats the operator's name)."""
        if self.status == "suggestion" and self.geomean is not None:
            slower = self.regressions
            worse = f", slower on {len(slower)} of {len(self.cases)} cases" if slower else ""
            return f"{self.geomean:.2f}× faster{worse} ({self.timing})"
        return {"no_gain": "no gain", "cancelled": "cancelled", "failed": "failed"}.get(
            self.status, self.status
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def headline(self) -> str:
        """One line that fits a toast: what happened, and the one fact that qualifies it."""
        if self.status == "suggestion" and self.geomean is not None:
            n = len(self.cases)
            text = f"{self.geomean:.2f}× faster (geomean of {n} case{'s' if n != 1 else ''}, {self.timing})"
            slower = self.regressions
            if slower:
                text += "; slower on " + ", ".join(f"{c.case} {c.speedup:.2f}×" for c in slower)
            return text
        if self.status == "cancelled":
            return f"cancelled after {self.evaluations} of {self.budget} evaluations; no suggestion"
        if self.status == "failed":
            return f"failed: {self.reason}"
        skipped = "; kernel rewriting skipped: no LLM configured" if self.llm_missing else ""
        return f"no gain: {self.reason}{skipped}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def details(self) -> list[str]:
        """The lines under the headline: per case, the kind and backend, kernel rewriting."""
        out = [c.line() for c in self.cases]
        if self.status == "cancelled" and self.reason:
            out.append(f"when cancelled: {self.reason}")
        out.append(f"durations: {self.timing if self.cases else 'none'}, on {self.backend}")
        spent = f"{self.evaluations} of {self.budget} evaluations"
        out.append(f"{spent}; {self.budget_note}" if self.budget_note else spent)
        out.append(f"kernel rewriting: {self.kernel_note or self.kernel_rewriting}")
        return out

    def text(self) -> str:
        """The end-of-episode text (CLI): headline, then the details indented."""
        return "\n".join([self.headline, *(f"  {line}" for line in self.details)])


def timing_of(kinds: Iterable[str]) -> TimingKind:
    """What a set of durations are: all estimates, all measured, both, or none at all."""
    found = set(kinds)
    return "none" if not found else found.pop() if len(found) == 1 else "mixed"  # type: ignore[return-value]


def cases_of(speedups: list[CaseSpeedup]) -> list[CaseResult]:
    return [CaseResult(**s.model_dump()) for s in speedups]


def baseline_cases(baseline_us: dict[str, float], kind: str) -> list[CaseResult]:
    return [CaseResult(case=k, baseline_us=v, kind=kind) for k, v in baseline_us.items()]
