"""The paper's host-side LLM mode: the LLM rewrites the tiling program's evolve region (or, without
one, the whole tiling function) into a mutant; a valid, faster mutant becomes the parent.

Edits are confined to that region: a block that touches anything else is rejected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascendopt.agent.edits import EditRejected, apply_blocks, parse_blocks
from ascendopt.agent.kernel_rewrite import profile_text
from ascendopt.agent.llm import LLMClient, LLMUnavailable
from ascendopt.agent.prompts import prompt
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject

if TYPE_CHECKING:
    from ascendopt.agent.episode import Episode


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
    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm
        self.tried: list[str] = []

    async def step(self, episode: Episode) -> Candidate | None:
        parent, parent_eval = episode.best, episode.best_eval
        assert parent_eval is not None
        view = episode.view(parent)
        span = editable_span(view)
        if span is None:
            return None
        path, start, end, where = span
        scope = f"--- {path} ({where} is lines {_line(parent.files[path], start)}-"
        scope += f"{_line(parent.files[path], end)}) ---\n{parent.files[path]}"
        profile, label = profile_text(parent_eval)
        cases = "\n".join(
            f"- {c.name}: {c.input_shapes} {sorted(set(c.dtypes.values()))}" for c in episode.cases
        )
        try:
            reply = await self.llm.chat(
                [
                    {"role": "system", "content": prompt("system")},
                    {
                        "role": "user",
                        "content": prompt(
                            "tiling",
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
                        ),
                    },
                ],
                "tiling mutant",
            )
        except LLMUnavailable as exc:
            episode.journal.append("tiling.skipped", {"reason": str(exc)})
            return None
        try:
            files = apply_blocks(parent.files, parse_blocks(reply), [path])
        except EditRejected as exc:
            episode.journal.append("tiling.rejected", {"reason": str(exc), "stage": "apply"})
            return None
        if not confined(parent.files[path], files[path], start, end):
            episode.journal.append(
                "tiling.rejected", {"reason": f"the mutant edits {path} outside {where}", "stage": "apply"}
            )
            return None
        self.tried.append(reply[:200])
        candidate = Candidate(
            operator=view.name,
            files=files,
            knobs=parent.knobs,
            origin="host_search",
            parent=parent.id,
            llm_written=True,
        )
        if await episode.try_rewrite(candidate, "tiling") is None:
            return None
        episode.kernel_base = candidate  # knob search continues from the mutant
        episode.journal.append("tiling.accepted", {"candidate": candidate.id})
        return candidate


def _line(text: str, byte: int) -> int:
    return text.encode("utf-8")[:byte].count(b"\n") + 1
