"""The one seam every backend implements: evaluate a candidate on a list of cases."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from ascendopt.evaluation.records import Evaluation, TilingCheck
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


@runtime_checkable
class Evaluator(Protocol):
    """Build, verify on every case, and (when `profile`) measure a candidate.

    Implementations: the CPU twin here (cpu_twin/local_evaluator.py), and a toolchain (twin or
    CANN) on a pool of machines (toolchain_evaluator.py); evaluation/backends.py picks one from
    a backend string. The agent never knows which one it has. `seed` chooses the random
    inputs; a new seed gives fresh inputs for the re-check before a speedup is reported.

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


# A candidate's tiling program run alone on every case, before an evaluation is spent on it
# (evaluation/backends.py makes one; the episode only calls it).
Precheck = Callable[[Candidate], Awaitable[TilingCheck]]
