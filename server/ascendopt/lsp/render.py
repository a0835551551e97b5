"""Words and numbers the editor shows: durations, pipe shares, progress lines. Pure functions."""

from __future__ import annotations

import re

from ascendopt.evaluation.records import CaseResult, Evaluation, Profile, pipe_name


def short_soc(text: str) -> str:
    """Drop the "Ascend" of a SoC name: "estimate, Ascend910B4 model" → "estimate, 910B4 model"."""
    return re.sub(r"Ascend(?=\d)", "", text)


def us(value: float) -> str:
    if value >= 100:
        return f"{value:.0f} µs"
    if value >= 10:
        return f"{value:.1f} µs"
    return f"{value:.2f} µs"


def pipe_shares(profile: Profile) -> list[str]:
    """The busiest pipes: the top two, and any other above 20 %."""
    ranked = sorted(profile.pipes, key=lambda p: p.ratio, reverse=True)
    kept = [p for i, p in enumerate(ranked) if i < 2 or p.ratio >= 0.2]
    return [f"{pipe_name(p.pipe)} {p.ratio * 100:.0f} %" for p in kept]


def case_line(profile: Profile) -> str:
    """`37.2 µs (estimate, 910B4 model) · MTE2 81 % · V 22 % · memory-bound`."""
    parts = [f"{us(profile.duration_us)} ({short_soc(profile.source)})", *pipe_shares(profile)]
    if profile.bound:
        parts.append(f"{profile.bound}-bound")
    return " · ".join(parts)


def slowest(evaluation: Evaluation) -> CaseResult | None:
    profiled = [c for c in evaluation.cases if c.profile is not None]
    return max(profiled, key=lambda c: c.profile.duration_us if c.profile else 0.0, default=None)


def lens_duration(evaluation: Evaluation) -> str | None:
    """`12.3 µs est. 910B4` for the slowest profiled case (the one worth optimizing)."""
    case = slowest(evaluation)
    if case is None or case.profile is None:
        return None
    p = case.profile
    kind = "est." if p.kind == "estimate" else "measured"
    soc = re.search(r"Ascend(\w+)", p.source)
    return f"{us(p.duration_us)} {kind}" + (f" {soc.group(1)}" if soc else "")


def progress_line(used: int, budget: int, phase: str, best: float | None) -> str:
    """`12/40 evaluations · best 1.31× · tiling search`."""
    parts = [f"{used}/{budget} evaluations"]
    if best is not None:
        parts.append(f"best {best:.2f}×")
    if phase:
        parts.append(phase)
    return " · ".join(parts)


def verdict(evaluation: Evaluation) -> str:
    if evaluation.status == "compile_error":
        return f"{evaluation.operator}: does not compile ({len(evaluation.compile_errors)} error(s))"
    if evaluation.status != "ok":
        return f"{evaluation.operator}: {evaluation.failure_reason()}"
    findings = evaluation.findings()
    passed = sum(c.status == "passed" for c in evaluation.cases)
    text = f"{evaluation.operator}: {passed}/{len(evaluation.cases)} case(s) correct"
    if findings:
        text += f", {len(findings)} finding(s)"
    return text
