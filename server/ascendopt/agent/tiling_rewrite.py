"""The paper's host-side LLM mode: the LLM rewrites the tiling program's evolve region (or, without
one, the functions and classes its registered tiling entry reaches, helper classes in headers beside
it included) into a mutant; the episode makes a valid, faster mutant the parent.

Edits are confined to that region: a mutant with a changed line outside it is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from ascendopt.operators.scope import changed_lines_confined, tiling_regions


@dataclass(frozen=True)
class MutantScope:
    """What a tiling mutant may change: byte spans per file, and how the prompt names them."""

    spans: dict[str, list[tuple[int, int, str]]]  # file → (start byte, end byte, name), in order
    where: str

    @property
    def files(self) -> list[str]:
        return list(self.spans)


def editable_span(view: OperatorProject, files: dict[str, str] | None = None) -> MutantScope | None:
    """What a tiling mutant may change: the host evolve region when the user marked one; else the
    tiling program's functions and classes reachable from its registered tiling entry (scope.py)."""
    region = next((k for k in view.knobs if k.kind == "region" and k.side == "host"), None)
    if region is not None:
        rng = region.range
        return MutantScope({rng.file: [(rng.start_byte, rng.end_byte, "evolve region")]}, "the evolve region")
    if view.tiling is None or not view.files.host or view.layout == "kernel_launch":
        return None
    where = f"the function {view.tiling.function} and the functions and classes it reaches"
    files = files if files is not None else view.read_files()
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for r in tiling_regions(view, files):
        spans.setdefault(r.file, []).append((r.start, r.end, r.name))
    if not spans:  # the entry does not parse: the function itself, as discovery found it
        rng = view.tiling.range
        spans[rng.file] = [(rng.start_byte, rng.end_byte, view.tiling.function)]
    return MutantScope(spans, where)


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
        mutant = editable_span(view, parent.files)
        if mutant is None:
            return None
        scope = "\n\n".join(_shown(path, parent.files[path], spans) for path, spans in mutant.spans.items())
        profile, label = profile_text(parent_evaluation)
        cases = "\n".join(
            f"- {c.name}: {c.input_shapes} {sorted(set(c.dtypes.values()))}" for c in context.cases
        )
        edited = await ask_for_edits(
            self.llm,
            parent.files,
            mutant.files,
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
            where=mutant.where,
            host=mutant.files[0],
        )
        if isinstance(edited, Rejection):
            return edited
        files, reply = edited
        for path, spans in mutant.spans.items():
            line = changed_lines_confined(parent.files[path], files[path], [(s, e) for s, e, _ in spans])
            if line is not None:
                reason = f"the mutant edits {path}:{line}, outside {mutant.where}"
                return Rejection(stage="apply", reason=reason)
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


def _shown(path: str, text: str, spans: list[tuple[int, int, str]]) -> str:
    where = ", ".join(f"{name} lines {_line(text, s)}-{_line(text, e)}" for s, e, name in spans)
    return f"--- {path} (editable: {where}) ---\n{text}"


def _line(text: str, byte: int) -> int:
    return text.encode("utf-8")[:byte].count(b"\n") + 1
