"""Every template passes every case on the CPU twin with no sanitizer finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import discover

pytestmark = pytest.mark.slow

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"
NAMES = sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())


@pytest.mark.parametrize("name", NAMES)
async def test_template_passes_every_case_without_findings(name: str) -> None:
    op = discover(TEMPLATES / name).find(name)
    evaluation = await verify(CpuTwinEvaluator(), op, seed=7)
    assert evaluation.status == "ok", [str(i) for i in evaluation.compile_errors] or evaluation.message
    for case in evaluation.cases:
        assert case.status == "passed", (case.name, case.message, [o.model_dump() for o in case.outputs])
        assert case.findings == [], (case.name, [f.model_dump() for f in case.findings])
    assert evaluation.correct
