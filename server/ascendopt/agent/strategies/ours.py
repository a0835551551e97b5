"""`ours`: kernel rewriting (an LLM, with the bank's lessons) alternating with a tiling phase (an
LLM tiling mutant, then the knob search of guided.py: moves the best point's profile asks for, a
cost model fitted on the episode's evaluations, random restarts), the bank's knob lessons tried
first. Accepted kernel rewrites become lessons (banked if the winner
passes the re-check)."""

from __future__ import annotations

from typing_extensions import Self

from ascendopt.agent.kernel_rewrite import KernelRewriter
from ascendopt.agent.lessons import knob_settings
from ascendopt.agent.rewrite import LessonSink, Rewriter
from ascendopt.agent.strategies.base import EpisodeFace, Tools, no_llm
from ascendopt.agent.strategies.guided import GuidedSearch
from ascendopt.agent.strategies.knobs import Assignment, HostSearch, KnobStrategy
from ascendopt.agent.tiling_rewrite import TilingRewriter
from ascendopt.journal.events import RewriteSkipped
from ascendopt.operators.model import Knob


class Ours(KnobStrategy):
    name = "ours"

    def __init__(
        self,
        kernel: Rewriter | None = None,
        tiling: Rewriter | None = None,
        note: str = "",
        llm_missing: bool = False,
        lesson_knobs: list[Assignment] | None = None,
        lessons: LessonSink | None = None,
    ) -> None:
        super().__init__(note, llm_missing, lesson_knobs)
        self.kernel = kernel
        self.tiling = tiling  # the LLM's tiling mutants, one per tiling phase
        self.lessons = lessons  # where accepted kernel rewrites go as lessons
        self.given_up = False  # a whole kernel round was refused before any build

    @property
    def rewrites_kernel(self) -> bool:
        return self.kernel is not None

    @classmethod
    def new_search(cls, knobs: list[Knob], seed: int) -> HostSearch:
        return GuidedSearch(knobs, seed)

    @classmethod
    def wire(cls, tools: Tools) -> Self:
        s, llm, bank = tools.settings, tools.llm, tools.bank
        # Lessons that apply themselves (knob settings) are tried first, with or without an LLM.
        knobs = knob_settings(bank.all(), tools.project)
        tiling = TilingRewriter(llm) if llm is not None else None
        if s.tiling_only:
            return cls(None, tiling, "not asked for (tiling only)", lesson_knobs=knobs)
        if llm is None:
            note = no_llm(" — tiling search and the bank's mechanical lessons only")
            return cls(None, tiling, note, llm_missing=True, lesson_knobs=knobs)
        kernel = KernelRewriter(llm, bank, s.top_k)
        note = f"on: {tools.llm_settings.describe()}"
        return cls(kernel, tiling, note, lesson_knobs=knobs, lessons=bank)

    async def round(self, face: EpisodeFace) -> None:
        if self.kernel is not None and not face.settings.tiling_only and not self.given_up:
            face.phase = "kernel rewriting"
            left, asked = face.budget_left(), 0
            for _ in range(face.settings.kernel_steps):
                if face.budget_left() <= 0 or face.cancelled():
                    break
                asked += 1
                await face.rewrite(self.kernel, lessons=self.lessons)
            if asked and face.budget_left() == left and not face.kernel_stopped:
                # A whole round refused before any build (the audit, the edit format, the endpoint)
                # spends no evaluation, so nothing else would end it: each further round only costs
                # the user's tokens.
                why = f"stopped: the model's last {asked} rewrite(s) were all refused before any build"
                face.note(RewriteSkipped(type="kernel.disabled", reason=why))
                self.given_up = True
        face.phase = "tiling search"
        if self.tiling is not None and face.budget_left() > 0:
            await face.rewrite(self.tiling, lessons=self.lessons)
        await self.tiling_phase(face, face.settings.tiling_steps)
