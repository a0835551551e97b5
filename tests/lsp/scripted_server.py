"""A language server for tests whose episodes are scripted (test-only; not the optimizer).

`ScriptedEpisodes` stands in for the episode service behind the server's runner seam, so that
progress, cancel, concurrency and the suggestion flow can be tested in seconds: it evaluates
nothing. It reports one progress step per unit of budget, then proposes a fixed paired edit
(BUFFER_NUM 2 → 3 in the tiling program and in the kernel) built with `make_suggestion`, and
journals decisions to `.ascendopt/scripted-decisions.jsonl` so tests can read them back.

Run: python tests/lsp/scripted_server.py   (ASCENDOPT_SCRIPTED_STEP_S sets the step time)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.agent.episode import Progress
from ascendopt.agent.suggestion import CaseSpeedup, Suggestion, make_suggestion
from ascendopt.lsp import logs
from ascendopt.lsp.app import build_server
from ascendopt.lsp.episodes import Decision, ProgressLike
from ascendopt.lsp.settings import Settings
from ascendopt.operators.model import OperatorProject

STEP_S = float(os.environ.get("ASCENDOPT_SCRIPTED_STEP_S", "0.05"))
DECISIONS = Path(".ascendopt") / "scripted-decisions.jsonl"


class ScriptedOutcome(BaseModel):
    """An episode's end as the server reads it (lsp/episodes.py OutcomeLike): no outcome record."""

    episode: str
    operator: str
    suggestion: Suggestion | None
    message: str
    cancelled: bool = False


class ScriptedEpisodes:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._suggestions: dict[str, Suggestion] = {}
        self._count = 0

    async def optimize(
        self,
        project: OperatorProject,
        *,
        settings: Settings,
        evaluator: object,  # unused: the script evaluates nothing
        tiling_only: bool,
        on_progress: Callable[[ProgressLike], None],
        cancel: asyncio.Event,
        resume: str | None = None,
    ) -> ScriptedOutcome:
        self._count += 1
        episode = resume or f"scripted-{project.name}-{self._count}"
        base = project.read_files()
        budget = settings.budget
        for used in range(1, budget + 1):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(cancel.wait(), STEP_S)
            if cancel.is_set():
                return ScriptedOutcome(
                    episode=episode,
                    operator=project.name,
                    suggestion=None,
                    message=f"cancelled after {used - 1}/{budget} evaluations",
                    cancelled=True,
                )
            on_progress(
                Progress(
                    episode=episode,
                    operator=project.name,
                    used=used,
                    budget=budget,
                    phase="tiling search",
                    best_speedup=1.0 + used / 100,
                    message="",
                )
            )
        files = [project.files.host] if tiling_only else [project.files.host, project.files.kernel]
        proposed = {f: base[f].replace("BUFFER_NUM = 2", "BUFFER_NUM = 3") for f in files if f}
        suggestion = make_suggestion(
            operator=project.name,
            root=project.root,
            episode=episode,
            candidate_id=f"cand-{self._count}",
            base_files=base,
            proposed_files=proposed,
            speedups=[
                CaseSpeedup(
                    case="small-tail",
                    baseline_us=2.0,
                    candidate_us=1.5,
                    speedup=1.33,
                    noise=0.0,
                    kind="estimate",
                )
            ],
            geomean=1.33,
            summary="scripted: triple buffering",
        )
        self._suggestions[suggestion.id] = suggestion
        return ScriptedOutcome(
            episode=episode, operator=project.name, suggestion=suggestion, message=suggestion.summary
        )

    def load_suggestion(self, suggestion_id: str) -> Suggestion:
        return self._suggestions[suggestion_id]

    def record_decision(self, suggestion_id: str, decision: Decision) -> None:
        path = self.workspace / DECISIONS
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"suggestion": suggestion_id, "decision": decision}) + "\n")


def main() -> None:
    verbose = "--verbose" in sys.argv
    logs.configure(logging.DEBUG if verbose else logging.INFO, None, verbose=verbose)
    build_server(service_factory=ScriptedEpisodes).start_io()


if __name__ == "__main__":
    main()
