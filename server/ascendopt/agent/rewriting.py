"""The episode's rewrite step: ask a rewriter (the LLM's kernel or tiling rewrite) for a proposal,
journal what it says, have the episode judge the candidate, and keep an accepted one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascendopt.agent.kernel_rewrite import lesson_entry
from ascendopt.agent.rewrite import LessonSink, Rejection, RewriteContext, Rewriter
from ascendopt.journal.events import RewriteAccepted, RewriteRejected, RewriteSkipped
from ascendopt.operators.candidate import Candidate

if TYPE_CHECKING:
    from ascendopt.agent.episode import Episode


async def rewrite_step(
    episode: Episode, rewriter: Rewriter, from_baseline: bool, lessons: LessonSink | None
) -> Candidate | None:
    """Ask `rewriter` for a rewrite of the best candidate (or of the baseline: best-of-n's
    independent samples); the episode judges it. An accepted rewrite becomes the kernel the tiling
    search tunes (and, with a lesson and a sink for it, a provisional lesson). A rewriter that gives
    up says why: the episode's kernel-rewriting note becomes that."""
    parent, parent_eval = (
        (episode.base, episode.base_eval) if from_baseline else (episode.best, episode.best_eval)
    )
    assert parent_eval is not None
    kind = rewriter.kind
    context = RewriteContext(
        project=episode.project,
        view=episode.view(parent),
        cases=episode.cases,
        note=episode.journal.append,
        progress=episode.progress,
    )
    proposal = await rewriter.propose(parent, parent_eval, context)
    if proposal is None:
        return None
    if isinstance(proposal, Rejection):
        if proposal.stage == "llm":
            episode.journal.append(RewriteSkipped(type=f"{kind}.skipped", reason=proposal.reason))
        else:
            episode.journal.append(
                RewriteRejected(type=f"{kind}.rejected", reason=proposal.reason, stage="apply")
            )
        if proposal.stop:
            episode.kernel_note = proposal.stop
            episode.kernel_stopped = kind == "kernel"
            episode.journal.append(RewriteSkipped(type=f"{kind}.disabled", reason=proposal.stop))
        return None
    candidate = proposal.candidate
    evaluation, accepted = await episode.judge_rewrite(candidate, kind)
    if evaluation is None or not accepted:
        return None
    episode.kernel_base = candidate
    episode.journal.append(
        RewriteAccepted(type=f"{kind}.accepted", candidate=candidate.id, bottleneck=proposal.bottleneck)
    )
    if proposal.lesson is not None and lessons is not None:
        entry = lesson_entry(episode.project, parent, parent_eval, candidate, evaluation, proposal.lesson)
        episode.provisional_lesson(entry, lessons)
    return candidate
