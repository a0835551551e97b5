"""The paper's host-side LLM mode: the LLM rewrites the tiling program's evolve region (or, without
one, the whole tiling function) into a mutant; the episode makes a valid, faster mutant the parent.

Edits are confined to that region: a block that touches anything else is rejected.
"""

from __future__ import annotations

from ascendopt.agent.llm import LLMClient
from ascendopt.agent.rewrite import (
    Proposal,
    Rejection,
    RewriteContext,
    RewriteKind,
    ask_for_edits,
    profile_text,
)
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject


def editable_span(view: OperatorProject) -> tuple[str, int, int, str] | None:
    """(file, start byte, end byte, description) of what a tiling mutant may change."""
    region = next((k for k in view.knobs if k.kind == "region" and k.side == "host"), None)
    if region is not None:
        return region.range.file, region.range.start_byte, region.range.end_byte, "the evolve region"
    if view.tiling is not None and view.files.host and view.layout != "kernel_launch":
        rng = view.tiling.range
        return rng.file, rng.start_byte, rng.end_byte, f"the function {view.tiling.function}"
    return None


def confined(before: str, after: str, start: int, end: int) -> bool:
    """Whether `after` differs from `before` only inside bytes [start, end) of `before`."""
    b, a = before.encode("utf-8"), after.encode("utf-8")
    tail = len(b) - end
    return a[:start] == b[:start] and (tail == 0 or a[-tail:] == b[-tail:]) and len(a) >= start + tail


class TilingRewriter:
    kind: RewriteKind = "tiling"

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm
        self.tried: list[str] = []

    async def propose(
        self, parent: Candidate, parent_evaluation: Evaluation, context: RewriteContext
    ) -> Proposal | Rejection | None:
        view = context.view
        span = editable_span(view)
        if span is None:
            return None
        path, start, end, where = span
        scope = f"--- {path} ({where} is lines {_line(parent.files[path], start)}-"
        scope += f"{_line(parent.files[path], end)}) ---\n{parent.files[path]}"
        profile, label = profile_text(parent_evaluation)
        cases = "\n".join(
            f"- {c.name}: {c.input_shapes} {sorted(set(c.dtypes.values()))}" for c in context.cases
        )
        edited = await ask_for_edits(
            self.llm,
            parent.files,
            [path],
            "tiling",
            "tiling mutant",
            operator=view.name,
            layout=view.layout,
            scope=scope,
            kernel=parent.files[view.files.kernel],
            cases=cases,
            profile=profile,
            profile_label=label,
            tried="; ".join(self.tried) or "none",
            where=where,
            host=path,
        )
        if isinstance(edited, Rejection):
            return edited
        files, reply = edited
        if not confined(parent.files[path], files[path], start, end):
            return Rejection(stage="apply", reason=f"the mutant edits {path} outside {where}")
        self.tried.append(reply[:200])
        return Proposal(
            candidate=Candidate(
                operator=view.name,
                files=files,
                knobs=parent.knobs,
                origin="tiling_rewrite",
                parent=parent.id,
                llm_written=True,
            )
        )


def _line(text: str, byte: int) -> int:
    return text.encode("utf-8")[:byte].count(b"\n") + 1
