"""One kernel step: diagnose → retrieve lessons → rewrite (search/replace) → evaluate → accept or not.

Every rejection is journaled with its reason; an accepted rewrite becomes a provisional lesson
with its measured before/after, which reaches the experience bank only if the episode's winner
passes the final re-check.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from ascendopt.agent.edits import EditRejected, apply_blocks, parse_blocks
from ascendopt.agent.lessons import diagnosis_of, format_lessons
from ascendopt.agent.llm import LLMClient, LLMUnavailable
from ascendopt.agent.prompts import prompt
from ascendopt.agent.scoring import durations
from ascendopt.agent.suggestion import make_suggestion
from ascendopt.evaluation.records import Evaluation
from ascendopt.experience.records import CodeDiff, ExperienceEntry
from ascendopt.experience.retrieval import LessonRetriever
from ascendopt.operators.candidate import Candidate

if TYPE_CHECKING:
    from ascendopt.agent.episode import Episode


MAX_LLM_FAILURES = 3


class KernelRewriter:
    def __init__(
        self, llm: LLMClient, retriever: LessonRetriever | None, top_k: int, bank_writer: object | None = None
    ) -> None:
        self.llm = llm
        self.retriever = retriever
        self.top_k = top_k
        self.bank_writer = bank_writer  # has .add(ExperienceEntry) when lessons should be kept
        self.tried: list[str] = []
        self.failures = 0  # consecutive LLM failures; after MAX_LLM_FAILURES the episode stops asking

    async def step(self, episode: Episode) -> Candidate | None:
        if self.failures >= MAX_LLM_FAILURES:
            return None
        parent, parent_eval = episode.best, episode.best_eval
        assert parent_eval is not None
        project = episode.project
        editable = [p for p in (project.files.kernel, project.files.host, project.files.tiling_data) if p]
        sources = "\n\n".join(f"--- {p} ---\n{parent.files[p]}" for p in editable if p in parent.files)
        profile, label = profile_text(parent_eval)
        findings = "; ".join(f"{f.kind} at {f.file}:{f.line}" for f in parent_eval.findings()) or "none"
        system = {"role": "system", "content": prompt("system")}
        try:
            reply = await self.llm.chat(
                [
                    system,
                    {
                        "role": "user",
                        "content": prompt(
                            "diagnose",
                            operator=project.name,
                            layout=project.layout,
                            sources=sources,
                            profile=profile,
                            profile_label=label,
                            findings=findings,
                            tried="; ".join(self.tried) or "none",
                        ),
                    },
                ],
                "diagnose",
            )
        except LLMUnavailable as exc:
            self._failed(episode, exc)
            return None
        self.failures = 0
        bottleneck, change = _parse_diagnosis(reply)
        self.tried.append(bottleneck)
        diagnosis = diagnosis_of(project, parent_eval, parent.files, bottleneck)
        lessons = self.retriever.retrieve(diagnosis, self.top_k) if self.retriever and self.top_k else []
        episode.journal.append(
            "kernel.diagnosis",
            {"bottleneck": bottleneck, "change": change, "lessons": [lesson.id for lesson in lessons]},
        )
        episode.progress(f"rewriting: {bottleneck[:60]}")
        try:
            reply = await self.llm.chat(
                [
                    system,
                    {
                        "role": "user",
                        "content": prompt(
                            "rewrite",
                            operator=project.name,
                            layout=project.layout,
                            sources=sources,
                            profile=profile,
                            profile_label=label,
                            bottleneck=bottleneck,
                            change=change,
                            lessons=format_lessons(lessons),
                        ),
                    },
                ],
                "rewrite",
            )
        except LLMUnavailable as exc:
            self._failed(episode, exc)
            return None
        try:
            files = apply_blocks(parent.files, parse_blocks(reply), editable)
        except EditRejected as exc:
            episode.journal.append("kernel.rejected", {"reason": str(exc), "stage": "apply"})
            return None
        candidate = Candidate(
            operator=project.name,
            files=files,
            knobs=parent.knobs,
            origin="kernel_rewrite",
            parent=parent.id,
            llm_written=True,
        )
        evaluation = await episode.try_rewrite(candidate, "kernel")
        if evaluation is None:
            return None
        episode.kernel_base = candidate
        episode.journal.append("kernel.accepted", {"candidate": candidate.id, "bottleneck": bottleneck})
        self._offer_lesson(episode, parent, parent_eval, candidate, evaluation, bottleneck, change)
        return candidate

    def _failed(self, episode: Episode, exc: LLMUnavailable) -> None:
        self.failures += 1
        episode.journal.append("kernel.skipped", {"reason": str(exc)})
        if self.failures >= MAX_LLM_FAILURES:
            episode.kernel_note = f"stopped after {self.failures} failed LLM calls: {exc}"
            episode.journal.append("kernel.disabled", {"reason": episode.kernel_note})

    def _offer_lesson(
        self,
        episode: Episode,
        slow: Candidate,
        slow_eval: Evaluation,
        fast: Candidate,
        fast_eval: Evaluation,
        bottleneck: str,
        change: str,
    ) -> None:
        if self.bank_writer is None:
            return
        diff = make_suggestion(
            operator=episode.project.name,
            root=episode.project.root,
            episode="-",
            candidate_id=fast.id,
            base_files=slow.files,
            proposed_files=fast.files,
            speedups=[],
            geomean=1.0,
            summary="",
        )
        project = episode.project
        kernel_diff = "".join(c.unified_diff() for c in diff.changes if c.path == project.files.kernel)
        tiling_diff = (
            "".join(c.unified_diff() for c in diff.changes if c.path != project.files.kernel) or None
        )
        slow_us, fast_us = durations(slow_eval), durations(fast_eval)
        kind = (
            fast_eval.cases[0].profile.kind if fast_eval.cases and fast_eval.cases[0].profile else "estimate"
        )
        entry = ExperienceEntry(
            title=change[:120] or bottleneck[:120],
            family="episode.kernel_rewrite",
            bottleneck=bottleneck,
            summary=change,
            code_diff=CodeDiff(kernel=kernel_diff, tiling=tiling_diff),
            timing="measured" if kind == "measured" else "estimated",
            slow_us=sum(slow_us.values()) if slow_us else None,
            fast_us=sum(fast_us.values()) if fast_us else None,
            operator=project.name,
            layout=project.layout,
            provenance="episode",
            backend=fast_eval.backend,
        )
        # banked only if the winner passes the re-check
        episode.provisional_lesson(entry, self.bank_writer)  # type: ignore[arg-type]


def profile_text(ev: Evaluation) -> tuple[str, str]:
    lines, label = [], "not profiled"
    for c in ev.cases:
        if c.profile is None:
            continue
        label = c.profile.source
        pipes = ", ".join(f"{p.pipe} {p.time_us:.2f} us ({p.ratio:.0%})" for p in c.profile.pipes)
        lines.append(
            f"- case {c.name}: {c.profile.duration_us:.2f} us, {c.profile.bound}-bound; {pipes}; "
            f"hot lines {', '.join(c.profile.hot_lines[:3])}"
        )
    return "\n".join(lines) or "(none)", label


def _parse_diagnosis(reply: str) -> tuple[str, str]:
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match:
        try:
            data = json.loads(match.group(0))
            return str(data.get("bottleneck", "")).strip() or reply.strip()[:200], str(data.get("change", ""))
        except json.JSONDecodeError:
            pass
    return reply.strip()[:300], ""
