"""Evaluations kept on disk by candidate identity: the same candidate is never evaluated twice."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import ValidationError

from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


def evaluation_key(
    backend: str, candidate: Candidate, cases: list[ResolvedCase], seed: int, profile: bool
) -> str:
    payload = json.dumps(
        {
            "backend": backend,
            "candidate": candidate.id,
            "cases": [c.model_dump() for c in cases],
            "seed": seed,
            "profile": profile,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


class CachedEvaluator:
    """Wraps any Evaluator; results live in `<folder>/<key>.json` (e.g. `.ascendopt/evaluations/`).

    Only finished evaluations are stored (compile errors included: they are facts about the
    candidate); an evaluation that crashed on infrastructure is not.
    """

    def __init__(self, inner: Evaluator, folder: Path) -> None:
        self.inner = inner
        self.folder = folder
        self.name = inner.name
        self.hits = 0
        self.misses = 0

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int = 0,
        profile: bool = False,
    ) -> Evaluation:
        key = evaluation_key(self.name, candidate, cases, seed, profile)
        path = self.folder / f"{key}.json"
        if path.exists():
            try:
                cached = Evaluation.model_validate_json(path.read_text(encoding="utf-8"))
            except (ValidationError, ValueError):
                path.unlink(missing_ok=True)  # an older or torn record: evaluate again
            else:
                self.hits += 1
                return cached
        self.misses += 1
        result = await self.inner.evaluate(project, candidate, cases, seed=seed, profile=profile)
        if result.status in ("ok", "compile_error"):
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(result.model_dump_json(), encoding="utf-8")
            tmp.replace(path)
        return result

    async def close(self) -> None:
        await self.inner.close()
