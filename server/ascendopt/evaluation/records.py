"""What an evaluation produces: per case correctness, findings, and (when profiled) durations.

These records cross every boundary (journal, cache, CLI JSON, LSP hovers), so
they are versioned pydantic models.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Literal

from pydantic import BaseModel, Field

from ascendopt.operators.issues import Issue

RECORD_VERSION = 1


class Finding(BaseModel):
    """A hardware-rule violation the sanitizer saw, at the user's call site."""

    kind: str
    severity: Literal["error", "warning"] = "error"
    message: str
    file: str | None = None
    line: int | None = None
    block: int | None = None
    count: int = 1

    def as_issue(self) -> Issue:
        return Issue(
            file=self.file or "?",
            line=self.line or 1,
            severity=self.severity,
            message=self.message,
            code=f"twin.{self.kind}",
        )


class OutputCheck(BaseModel):
    name: str
    dtype: str
    shape: list[int]
    passed: bool
    max_abs_error: float
    max_rel_error: float
    mismatches: int
    mismatch_fraction: float
    first_bad_index: list[int] | None = None
    expected_at_first_bad: float | None = None
    actual_at_first_bad: float | None = None
    rtol: float
    atol: float

    def first_bad_text(self) -> str:
        """`first at [17]: kernel 1.5 vs reference 2`: which number is whose, or "" when none is wrong."""
        if self.first_bad_index is None:
            return ""
        return (
            f"first at {self.first_bad_index}: kernel {self.actual_at_first_bad:g}"
            f" vs reference {self.expected_at_first_bad:g}"
        )

    def mismatch_text(self) -> str:
        """`z: 312 of 2048 wrong (15.23%), first at [17]: kernel 1.5 vs reference 2`: the numbers to
        act on."""
        total = 1
        for n in self.shape:
            total *= n
        text = f"{self.name}: {self.mismatches} of {total} wrong ({self.mismatch_fraction:.2%})"
        if self.first_bad_index is not None:
            text += f", {self.first_bad_text()}"
        return text


# msprof PipeUtilization columns → the pipe names developers say out loud.
_PIPE_NAMES = {
    "vec": "V",
    "scalar": "S",
    "cube": "M",
    "mte1": "MTE1",
    "mte2": "MTE2",
    "mte3": "MTE3",
    "fixpipe": "FIX",
}


def pipe_name(column: str) -> str:
    core = re.sub(r"^(aiv|aic)_", "", column)
    core = re.sub(r"_(time|ratio)(\(us\))?$", "", core)
    return _PIPE_NAMES.get(core, core.upper())


class PipeTime(BaseModel):
    """Busy time of one pipe, named after msprof's PipeUtilization columns (aiv_mte2_time(us) …)."""

    pipe: str
    time_us: float
    ratio: float


class Profile(BaseModel):
    duration_us: float
    kind: Literal["estimate", "measured"]
    source: str  # e.g. "timing model, Ascend910B4" or "msprof op, Ascend910B2, device 3"
    pipes: list[PipeTime] = Field(default_factory=list)
    bound: str | None = None
    hot_lines: list[str] = Field(default_factory=list)  # "op_kernel/x.cpp:42"


class CaseResult(BaseModel):
    index: int
    name: str
    dtypes: dict[str, str]
    status: Literal["passed", "failed", "error"]
    message: str = ""
    outputs: list[OutputCheck] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    block_dim: int | None = None
    tiling_key: int | None = None
    ub_bytes_per_block: int | None = None
    # What the case's input and output tensors hold in GM: the least any kernel moves (the roofline's
    # memory floor is this over the SoC's bandwidth). None: recorded before the field existed.
    gm_bytes: int | None = None
    profile: Profile | None = None
    run_seconds: float | None = None


class TilingCheck(BaseModel):
    """The pre-check of one candidate: its tiling program alone, on every case, before an evaluation."""

    ok: bool
    reason: str = ""
    block_dims: dict[str, int] = Field(default_factory=dict)


EvalStatus = Literal["ok", "compile_error", "error"]


class Evaluation(BaseModel):
    version: int = RECORD_VERSION
    candidate_id: str
    operator: str
    backend: str  # the backend string: "cpu-twin", "ssh:npu-box:cann", … (evaluation/backends.py)
    hardware: str  # what ran it, in words
    soc: str | None = None  # the SoC it was built and timed for (operators/soc.py's name)
    seed: int
    status: EvalStatus
    message: str = ""
    compile_errors: list[Issue] = Field(default_factory=list)
    cases: list[CaseResult] = Field(default_factory=list)
    # Outputs the kernel writes but nothing compares (the spec's `check = false`): said, not judged.
    unchecked_outputs: list[str] = Field(default_factory=list)
    wall_seconds: float = 0.0
    created: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def correct(self) -> bool:
        """Every case passed, with no error-level finding: only then may a speedup count."""
        return (
            self.status == "ok"
            and bool(self.cases)
            and all(
                c.status == "passed" and not any(f.severity == "error" for f in c.findings)
                for c in self.cases
            )
        )

    def failure_reason(self) -> str | None:
        """Why this evaluation cannot count, in one line naming file:line or the case; None if correct."""
        if self.status == "compile_error":
            first = self.compile_errors[0] if self.compile_errors else None
            return (
                f"does not compile: {first.file}:{first.line}: {first.message}"
                if first
                else "does not compile"
            )
        if self.status != "ok":
            return self.message or "evaluation failed"
        bad = next((c for c in self.cases if c.status != "passed"), None)
        if bad is not None:
            return f"wrong on case {bad.name}: {bad.message}"
        errors = [f for f in self.findings() if f.severity == "error"]
        if errors:
            return f"sanitizer error {errors[0].kind} at {errors[0].file}:{errors[0].line}"
        return None if self.cases else "no case ran"

    def durations(self) -> dict[str, float] | None:
        """Per-case duration (µs), or None unless the candidate is correct and every case was timed."""
        if not self.correct:
            return None
        out = {}
        for c in self.cases:
            if c.profile is None or c.profile.duration_us <= 0:
                return None
            out[c.name] = c.profile.duration_us
        return out

    @property
    def timing_kind(self) -> Literal["estimate", "measured"]:
        """What the durations are: the first profiled case's kind (one backend times every case)."""
        profile = next((c.profile for c in self.cases if c.profile), None)
        return profile.kind if profile else "estimate"

    def findings(self) -> list[Finding]:
        seen: dict[tuple[str, str | None, int | None], Finding] = {}
        for case in self.cases:
            for f in case.findings:
                key = (f.kind, f.file, f.line)
                if key in seen:
                    seen[key].count += f.count
                else:
                    seen[key] = f.model_copy()
        return list(seen.values())


def noise_band(a: dict[str, float], b: dict[str, float]) -> float:
    """Largest relative difference between two measurements of the same candidate, over their cases."""
    return max((abs(a[k] - b[k]) / max(a[k], b[k]) for k in a if k in b and max(a[k], b[k]) > 0), default=0.0)
