"""The episode report keeps the operator's own warnings (issue 28: a write into an output's 32 B alignment
padding is a warning, not a failure, and the user still sees it, at its file:line)."""

from __future__ import annotations

from ascendopt.evaluation.records import Finding
from ascendopt.report.episode import EpisodeReport, render_html, render_markdown

PAD = Finding(
    kind="gm_out_of_bounds",
    severity="warning",
    message="DataCopy writes 32 B at byte offset 0 of output 'y' (12 B): 20 B past the end of the tensor, "
    "inside its 32 B alignment padding: harmless on the NPU, whose allocations are 32-byte aligned",
    file="op_kernel/k.cpp",
    line=270,
)


def _report(warnings: list[Finding]) -> EpisodeReport:
    return EpisodeReport(
        episode="e1",
        operator="k",
        root="/w",
        settings={},
        outcome=None,
        cases=[],
        backend="cpu-twin",
        curve=[],
        candidates=[],
        retrieved=[],
        written=[],
        baseline_warnings=warnings,
    )


def test_the_baseline_warnings_are_shown_at_their_line() -> None:
    for text in (render_html(_report([PAD])), render_markdown(_report([PAD]))):
        assert "Warnings on the operator as it is" in text
        assert "op_kernel/k.cpp:270" in text and "harmless on the NPU" in text
    assert "Warnings on the operator" not in render_html(_report([]))
