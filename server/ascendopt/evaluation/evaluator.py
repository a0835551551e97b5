"""The one seam every backend implements: evaluate a candidate on a list of cases."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


@runtime_checkable
class Evaluator(Protocol):
    """Build, verify on every case, and (when `profile`) measure a candidate.

    Implementations: the CPU twin (local g++), SSH hosts, CANN. The agent never
    knows which one it has. `seed` chooses the random inputs; a new seed gives
    fresh inputs for the re-check before a speedup is reported.

    An evaluator holds resources (SSH connections): whoever makes it closes it,
    with `close()` or `async with`. One may be used for many evaluations, at once.
    """

    name: str

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int = 0,
        profile: bool = False,
    ) -> Evaluation: ...

    async def close(self) -> None:
        """Release connections and finish background cleanup; using it again reopens them."""
        ...
