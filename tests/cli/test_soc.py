"""`--soc` reaches the build as well as the timing model: one evaluation is compiled, run and timed for
the one SoC it resolved (operators/soc.py), not compiled for the spec's and timed for the option's.

Real g++ builds of the add_custom template, its spec saying Ascend310P3 and its kernel refusing to
compile unless for a 910B (`__CCE_AICORE__ == 220`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.cpu_twin.build import PCH_HEADER, Builder
from ascendopt.evaluation.records import Evaluation

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]

runner = CliRunner()

GUARD = """\
#if !defined(__CCE_AICORE__) || __CCE_AICORE__ != 220
#error "compiled for another SoC than the evaluation's"
#endif
"""


def test_soc_reaches_the_compile_and_the_timing(add_op: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = add_op / "ascendopt.toml"
    spec.write_text(spec.read_text().replace('soc = "Ascend910B4"', 'soc = "Ascend310P3"'))
    kernel = add_op / "op_kernel" / "add_custom.cpp"
    kernel.write_text(GUARD + kernel.read_text())
    argvs: list[list[str]] = []
    cached = Builder._cached

    async def recording(self: Builder, key: str, suffix: str, argv: list[str], *rest: Any, **kw: Any) -> str:
        argvs.append(list(argv))
        return await cached(self, key, suffix, argv, *rest, **kw)

    monkeypatch.setattr(Builder, "_cached", recording)

    result = runner.invoke(app, ["profile", str(add_op), "--soc", "Ascend910B1", "--json"])

    assert result.exit_code == 0, result.output
    ev = Evaluation.model_validate_json(result.stdout)
    # the compile: the kernel object was built with Ascend910B1's macros, never the spec's 310P ones
    [kernel_argv] = [a for a in argvs if "-DASCENDOPT_TWIN_KERNEL" in a and "-c" in a]
    assert {"-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201"} <= set(kernel_argv)
    # and so was the precompiled header it used (the same macros, or g++ would not use it)
    [pch_argv] = [a for a in argvs if "c++-header" in a and any(x.endswith(PCH_HEADER) for x in a)]
    assert {"-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201"} <= set(pch_argv)
    assert not [a for a in argvs if "-D__CCE_AICORE__=200" in a or "-D__NPU_ARCH__=2002" in a]
    assert ev.status == "ok" and ev.correct, result.output  # the #error guard did not fire
    # the run: the tiling program was told Ascend910B1's 48 vector cores (910B4 has 40, 310P the default 40)
    big = next(c for c in ev.cases if c.name == "big")
    assert big.block_dim == 48
    # the timing: Ascend910B1's calibration, and the hardware line says so
    assert ev.hardware.endswith("platform model Ascend910B1")
    assert all(c.profile is not None and "Ascend910B1 model" in c.profile.source for c in ev.cases)

