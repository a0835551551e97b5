"""`best-of-n`: a comparison baseline, the LLM alone. Independent kernel rewrites of the baseline
(our rewrite prompt, no lessons retrieved or written) until the budget is spent, the best correct
one kept; no tiling search."""

from __future__ import annotations

from typing_extensions import Self

from ascendopt.agent.kernel_rewrite import KernelRewriter
from ascendopt.agent.rewrite import Rewriter
from ascendopt.agent.strategies.base import EpisodeFace, SearchStrategy, Tools, no_llm
from ascendopt.journal.events import ConvergedEvent

IDLE_LIMIT = 3  # rewrites in a row that spent no evaluation (no edit, edit did not apply): stop


class BestOfN(SearchStrategy):
    name = "best-of-n"

    def __init__(self, kernel: Rewriter | None, note: str = "", llm_missing: bool = False) -> None:
        super().__init__(note, llm_missing)
        self.kernel = kernel

    @property
    def rewrites_kernel(self) -> bool:
        return self.kernel is not None

    @classmethod
    def wire(cls, tools: Tools) -> Self:
        if tools.llm is None:
            return cls(None, no_llm(f": the {cls.name} baseline has nothing to run"), llm_missing=True)
        return cls(
            KernelRewriter(tools.llm, None, 0), f"{cls.name} baseline: {tools.llm_settings.describe()}"
        )

    async def search(self, face: EpisodeFace) -> None:
        idle = 0
        face.phase = "best-of-n rewriting"
        while self.kernel is not None and face.budget_left() > 0 and not face.cancelled():
            left = face.budget_left()
            await face.rewrite(self.kernel, from_baseline=True)
            idle = idle + 1 if face.budget_left() == left else 0
            if idle >= IDLE_LIMIT:
                face.note(ConvergedEvent(message=f"no evaluable rewrite {IDLE_LIMIT} times running"))
                return
            face.progress(f"{face.tried} rewrites judged")
