"""How an episode ended, as one record every front end renders the same way: the CLI's end text,
the editor's toast, diff title and status line, the episode report.

It says which of four things happened (a suggestion / no gain, and why / cancelled / failed),
per-case speedups with regressions marked, what the durations are (estimate or measured, on which
backend), and whether kernel rewriting ran or was skipped and why. The wording lives here, once.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, computed_field

from ascendopt.agent.suggestion import CaseSpeedup

Status = Literal["suggestion", "no_gain", "cancelled", "failed"]
KernelRewriting = Literal["ran", "stopped", "skipped"]
TimingKind = Literal["estimate", "measured", "mixed", "none"]

# A case this much slower than its noise band says is a regression (rounding alone never is).
REGRESSION_SLACK = 0.005


class CaseOutcome(BaseModel):
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


class Outcome(BaseModel):
    operator: str
    episode: str
    status: Status
    reason: str  # why, in words: the summary of a suggestion, or why there is none
    evaluations: int
    budget: int
    backend: str
    geomean: float | None = None  # the suggestion's re-checked geomean speedup
    cases: list[CaseOutcome] = []
    kernel_rewriting: KernelRewriting
    kernel_note: str = ""  # why it was skipped or stopped, or which model ran it

    @computed_field  # type: ignore[prop-decorator]
    @property
    def timing(self) -> TimingKind:
        kinds = {c.kind for c in self.cases}
        return "none" if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"  # type: ignore[return-value]

    @property
    def regressions(self) -> list[CaseOutcome]:
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
        skipped = "; kernel rewriting skipped: no LLM configured" if self._no_llm else ""
        return f"no gain: {self.reason}{skipped}"

    @property
    def _no_llm(self) -> bool:
        return self.kernel_rewriting == "skipped" and "no LLM" in self.kernel_note

    @computed_field  # type: ignore[prop-decorator]
    @property
    def details(self) -> list[str]:
        """The lines under the headline: per case, the kind and backend, kernel rewriting."""
        out = [c.line() for c in self.cases]
        if self.status == "cancelled" and self.reason:
            out.append(f"when cancelled: {self.reason}")
        out.append(f"durations: {self.timing if self.cases else 'none'}, on {self.backend}")
        out.append(f"{self.evaluations} of {self.budget} evaluations")
        out.append(f"kernel rewriting: {self.kernel_note or self.kernel_rewriting}")
        return out

    def text(self) -> str:
        """The end-of-episode text (CLI): headline, then the details indented."""
        return "\n".join([self.headline, *(f"  {line}" for line in self.details)])


def cases_of(speedups: list[CaseSpeedup]) -> list[CaseOutcome]:
    return [CaseOutcome(**s.model_dump()) for s in speedups]


def baseline_cases(baseline_us: dict[str, float], kind: str) -> list[CaseOutcome]:
    return [CaseOutcome(case=k, baseline_us=v, kind=kind) for k, v in baseline_us.items()]
