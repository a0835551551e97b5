"""What to build and run for a candidate: the Toolchain seam (CPU twin's g++ harness, or CANN).

A toolchain never compares results: inputs are generated and outputs compared with the
NumPy reference locally (`toolchain_evaluator.py`), whatever machine ran the operator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, Field

from ascendopt.evaluation.records import Finding, Profile
from ascendopt.evaluation.runner import Runner
from ascendopt.evaluation.tensors import encode_inputs
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import ResolvedCase

Combo = tuple[tuple[str, str], ...]  # sorted (tensor, dtype) pairs: one build per combination


def combo_of(case: ResolvedCase) -> Combo:
    return tuple(sorted(case.dtypes.items()))


@dataclass(frozen=True)
class Slot:
    """Where one evaluation runs: a runner and, on an NPU host, the device it owns meanwhile."""

    runner: Runner
    host: str  # "local" or the host's name in settings
    device: int | None = None


@dataclass(frozen=True)
class CaseJob:
    """One case of one evaluation, as a toolchain is asked to run it. Paths are the runner's."""

    project: OperatorProject
    case: ResolvedCase
    inputs: dict[str, np.ndarray]
    output_shapes: dict[str, list[int]]  # from the reference: what the operator must write
    work: str  # the case's own folder
    src_dir: str  # the candidate's sources
    profile: bool
    soc: Soc  # the evaluation's SoC, as its build was compiled for (Toolchain.soc_for)
    # `inputs` as their files' bytes when the caller keeps them (an episode encodes a case's inputs once)
    raw_inputs: Mapping[str, bytes] | None = None
    # What an integer division by zero in the kernel gives on the CPU twin (x86 traps; the NPU's result is
    # undefined): a case that divides by zero runs again with another value (twin_toolchain.run_case).
    divide_value: int = 0

    def input_bytes(self) -> Mapping[str, bytes]:
        """Each input instance's file bytes."""
        return self.raw_inputs if self.raw_inputs is not None else encode_inputs(self.case, self.inputs)


class CaseOutcome(BaseModel):
    """What running one case produced, before the local comparison."""

    outputs: dict[str, bytes] = Field(default_factory=dict)  # raw little-endian, as written on the device
    findings: list[Finding] = Field(default_factory=list)
    block_dim: int | None = None
    tiling_key: int | None = None
    ub_bytes_per_block: int | None = None
    profile: Profile | None = None
    seconds: float = 0.0
    error: str | None = None


class Toolchain(Protocol):
    name: str  # "cpu-twin", "cann"
    sandboxed: bool  # its commands run in the sandbox (Limits.confine) where the runner has one

    def case_parallel(self, slot: Slot) -> int:
        """How many cases of one evaluation may run at once on `slot` (1 on an NPU device)."""
        ...

    def soc_for(self, slot: Slot, project: OperatorProject) -> Soc:
        """The evaluation's SoC (operators/soc.py `resolve_soc`): resolved once per evaluation and handed
        to `hardware`, `build` and every case, so what is compiled is what is run and timed."""
        ...

    def hardware(self, slot: Slot, soc: Soc) -> str:
        """What runs the operator, in words (goes into Evaluation.hardware)."""
        ...

    async def build(
        self,
        slot: Slot,
        project: OperatorProject,
        candidate: Candidate,
        src_dir: str,
        combos: list[Combo],
        soc: Soc,
    ) -> dict[Combo, Any]:
        """One runnable artifact per dtype combination, compiled for `soc`; raises CompileError
        (operators/issues.py) with the user's lines."""
        ...

    async def run_case(self, slot: Slot, artifact: Any, job: CaseJob) -> CaseOutcome:
        """Run one case with `artifact` (from `build`) and bring back its outputs raw."""
        ...
