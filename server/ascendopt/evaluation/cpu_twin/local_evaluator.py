"""The CPU twin as an Evaluator: the twin toolchain on this machine's runner.

Build with g++, run every case sandboxed, compare with the reference (the comparison
itself lives in `toolchain_evaluator.py`, shared with the SSH backends).
"""

from __future__ import annotations

import os

from ascendopt.evaluation.cpu_twin.build import Builder
from ascendopt.evaluation.cpu_twin.twin_toolchain import CpuTwinToolchain, profile_from_trace
from ascendopt.evaluation.pool import local_pool
from ascendopt.evaluation.runner import LocalRunner
from ascendopt.evaluation.sandbox import Limits
from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator

__all__ = ["CpuTwinEvaluator", "profile_from_trace"]


class CpuTwinEvaluator(ToolchainEvaluator):
    name = "cpu-twin"

    def __init__(
        self,
        builder: Builder | None = None,
        limits: Limits | None = None,
        soc: str | None = None,
        parallel: int | None = None,
    ) -> None:
        self.builder = builder or Builder()
        self.limits = limits or Limits()
        self.soc = soc
        self.parallel = parallel or max(1, os.cpu_count() or 1)
        runner = self.builder.runner if isinstance(self.builder.runner, LocalRunner) else LocalRunner()
        toolchain = CpuTwinToolchain(self.limits, soc, self.parallel, builders={runner.name: self.builder})
        super().__init__("cpu-twin", toolchain, local_pool(runner, self.parallel), self.parallel)
