"""The kernel rewriter: diagnose → retrieve lessons → rewrite (search/replace) → a proposal.

The episode evaluates the proposal and accepts it or not (agent/rewrite.py); an accepted
rewrite becomes a provisional lesson with its measured before/after (`lesson_entry`), which
reaches the experience bank only if the episode's winner passes the final re-check.
"""

from __future__ import annotations

import re

from ascendopt.agent.lessons import diagnosis_of, format_lessons
from ascendopt.agent.llm import LLMClient
from ascendopt.agent.prompt_fit import PromptFile, fit_for, hot_lines, rank_scope, sources_block
from ascendopt.agent.rewrite import (
    LessonDraft,
    Proposal,
    Rejection,
    RewriteContext,
    RewriteKind,
    ask,
    ask_for_edits,
    profile_text,
)
from ascendopt.evaluation.records import Evaluation
from ascendopt.experience.records import CodeDiff, ExperienceEntry
from ascendopt.experience.retrieval import LessonRetriever
from ascendopt.journal.events import DiagnosisEvent
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.files import files_diff
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.scope import ScopeFile, editable_paths, rewrite_scope
from ascendopt.untrusted import Unreadable, loads, shorten

MAX_LLM_FAILURES = 3


class KernelRewriter:
    kind: RewriteKind = "kernel"

    def __init__(self, llm: LLMClient, retriever: LessonRetriever | None, top_k: int) -> None:
        self.llm = llm
        self.retriever = retriever
        self.top_k = top_k
        self.tried: list[str] = []
        self.failures = 0  # consecutive LLM failures; after MAX_LLM_FAILURES the episode stops asking

    async def propose(
        self, parent: Candidate, parent_evaluation: Evaluation, context: RewriteContext
    ) -> Proposal | Rejection | None:
        if self.failures >= MAX_LLM_FAILURES:
            return None
        project = context.project
        scope = rewrite_scope(project, parent.files)
        editable = editable_paths(scope)
        # The scope's files in the order the profile says matter; what does not fit the context is named.
        files = rank_scope(scope, parent.files, project.files.kernel, hot_lines(parent_evaluation))
        profile, label = profile_text(parent_evaluation)
        findings = "; ".join(f"{f.kind} at {f.file}:{f.line}" for f in parent_evaluation.findings()) or "none"
        shown = {"operator": project.name, "layout": project.layout}
        shown |= {"profile": profile, "profile_label": label}
        asked = {"findings": findings, "tried": "; ".join(self.tried) or "none"}
        shown["sources"] = self._sources("diagnose", files, **shown, **asked)
        reply = await ask(self.llm, "diagnose", "diagnose", **shown, **asked)
        if isinstance(reply, Rejection):
            return self._failed(reply)
        diagnosed = _parse_diagnosis(reply)
        if isinstance(diagnosed, Rejection):
            return self._failed(diagnosed)
        self.failures = 0
        bottleneck, change = diagnosed
        self.tried.append(bottleneck)
        diagnosis = diagnosis_of(project, parent_evaluation, parent.files, bottleneck)
        lessons = self.retriever.retrieve(diagnosis, self.top_k) if self.retriever and self.top_k else []
        context.note(
            DiagnosisEvent(bottleneck=bottleneck, change=change, lessons=[lesson.id for lesson in lessons])
        )
        context.progress(f"rewriting: {bottleneck[:60]}")
        told = {"bottleneck": bottleneck, "change": change, "lessons": format_lessons(lessons)}
        shown["sources"] = self._sources("rewrite", files, **shown, **told)
        edited = await ask_for_edits(self.llm, parent.files, editable, "rewrite", "rewrite", **shown, **told)
        if isinstance(edited, Rejection):
            return self._failed(edited) if edited.stage == "llm" else _read_only_refusal(edited, scope)
        candidate = Candidate(
            operator=project.name,
            files=edited[0],
            knobs=parent.knobs,
            origin="kernel_rewrite",
            parent=parent.id,
            llm_written=True,
        )
        return Proposal(
            candidate=candidate,
            bottleneck=bottleneck,
            lesson=LessonDraft(bottleneck=bottleneck, change=change),
        )

    def _sources(self, template: str, files: list[PromptFile], **values: str) -> str:
        """The files for `template`'s prompt, fitted to the model's context (prompt_fit.py)."""
        return sources_block(fit_for(self.llm.settings, template, files, **values))

    def _failed(self, rejection: Rejection) -> Rejection:
        self.failures += 1
        if self.failures >= MAX_LLM_FAILURES:
            rejection.stop = f"stopped after {self.failures} failed LLM calls: {rejection.reason}"
        return rejection


_EDITS_FILE = re.compile(r"^block (\d+) edits (\S+), which is not")


def _read_only_refusal(rejection: Rejection, scope: list[ScopeFile]) -> Rejection:
    """The file guard's refusal of an edit to a file shown read-only, told as such."""
    match = _EDITS_FILE.match(rejection.reason)
    shown = {f.path: f for f in scope if not f.editable}
    if match is None or match.group(2) not in shown:
        return rejection
    f = shown[match.group(2)]
    reason = (
        f"block {match.group(1)} edits {f.path}, a {f.label.split(',')[0]} outside the operator folder "
        "(shared by other operators): shown read-only, never edited"
    )
    return rejection.model_copy(update={"reason": reason})


def lesson_entry(
    project: OperatorProject,
    slow: Candidate,
    slow_eval: Evaluation,
    fast: Candidate,
    fast_eval: Evaluation,
    draft: LessonDraft,
) -> ExperienceEntry:
    """An accepted rewrite as a lesson, with the measured before/after of the whole operator."""
    kernel = project.files.kernel

    def kernel_side(path: str) -> bool:  # the entry and the headers beside it
        return path == kernel or path.startswith("op_kernel/")

    slow_us, fast_us = slow_eval.durations(), fast_eval.durations()
    return ExperienceEntry(
        title=draft.change[:120] or draft.bottleneck[:120],
        family="episode.kernel_rewrite",
        bottleneck=draft.bottleneck,
        summary=draft.change,
        code_diff=CodeDiff(
            kernel=files_diff(slow.files, fast.files, kernel_side),
            tiling=files_diff(slow.files, fast.files, lambda p: not kernel_side(p)) or None,
        ),
        timing="measured" if fast_eval.timing_kind == "measured" else "estimated",
        slow_us=sum(slow_us.values()) if slow_us else None,
        fast_us=sum(fast_us.values()) if fast_us else None,
        operator=project.name,
        layout=project.layout,
        provenance="episode",
        backend=fast_eval.backend,
    )


def _parse_diagnosis(reply: str) -> tuple[str, str] | Rejection:
    """(bottleneck, change) from the reply's JSON object, or from its text when it holds no JSON; a
    Rejection when its JSON does not parse (deep nesting, a huge number) or is not an object."""
    text = reply.strip()
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match is None and not text.startswith("["):
        return shorten(text, 300), ""
    try:
        data = loads(match.group(0) if match else text)
    except Unreadable as exc:
        return Rejection(stage="llm", reason=f"unreadable diagnosis: {exc}")
    if not isinstance(data, dict):
        return Rejection(stage="llm", reason="unreadable diagnosis: not a JSON object")
    bottleneck, change = data.get("bottleneck"), data.get("change")
    bottleneck = bottleneck.strip() if isinstance(bottleneck, str) else ""
    return shorten(bottleneck or text, 300), shorten(change if isinstance(change, str) else "", 2000)
