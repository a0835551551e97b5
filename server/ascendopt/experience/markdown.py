"""One lesson as Markdown, for a reader (the editor opens it as a rendered preview)."""

from __future__ import annotations

from ascendopt.experience.records import ExperienceEntry


def _us(value: float | None) -> str:
    return f"{value:.1f} µs" if value is not None else "?"


def lesson_markdown(e: ExperienceEntry) -> str:
    lines = [f"# {e.title}", "", f"`{e.family}` · {e.bound or 'bound not recorded'} · {e.provenance}", ""]
    if e.summary:
        lines += [e.summary, ""]
    for label, value in (
        ("Symptom", e.bottleneck),
        ("Applies when", e.applies_when),
        ("Avoid when", e.avoid_when),
        ("Expected effect", e.expected_effect),
    ):
        if value:
            lines.append(f"- **{label}:** {value}")
    if e.slow_us is not None or e.fast_us is not None:
        ratio = f" ({e.slow_us / e.fast_us:.2f}×)" if e.slow_us and e.fast_us else ""
        lines.append(
            f"- **Timing ({e.timing.replace('_', ' ')}):** {_us(e.slow_us)} → {_us(e.fast_us)}{ratio}"
        )
    origin = " ".join(x for x in (e.operator, e.layout, ",".join(e.dtypes), e.backend, e.soc) if x)
    if origin:
        lines.append(f"- **From:** {origin}")
    lines.append("")
    for name, diff in (("Kernel", e.code_diff.kernel), ("Tiling", e.code_diff.tiling)):
        if diff:
            lines += [f"## {name} change (slow → fast)", "", "```diff", diff.rstrip("\n"), "```", ""]
    lines.append(f"<sub>lesson `{e.id}`</sub>")
    return "\n".join(lines) + "\n"
