from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ascendopt.experience.bank import Bank
from ascendopt.experience.records import CodeDiff, ExperienceEntry

HERE = Path(__file__).parent
LABELLED = HERE / "labelled_queries.json"


def entry(**kw: Any) -> ExperienceEntry:
    """A plausible mined lesson; keyword arguments override any field."""
    fields: dict[str, Any] = {
        "title": "Double-buffer the copy queues",
        "family": "kernel.pipeline.double_buffer",
        "bottleneck": "copy-in and compute serialised",
        "bound": "memory",
        "code_diff": CodeDiff(
            kernel="--- a/k.cpp\n+++ b/k.cpp\n@@ -1 +1 @@\n-BUFFER_NUM = 1;\n+BUFFER_NUM = 2;\n"
        ),
        "timing": "estimated",
        "slow_us": 12.5,
        "fast_us": 8.0,
        "evidence_before": {"mte2_ratio": 0.8, "vec_ratio": 0.3},
        "evidence_after": {"mte2_ratio": 0.95, "vec_ratio": 0.45},
        "operator": "add_custom",
        "layout": "msopgen",
        "dtypes": ["float16"],
        "keywords": ["BUFFER_NUM"],
        "provenance": "rewind",
        "backend": "cpu-twin",
        "soc": "Ascend910B4",
    }
    fields.update(kw)
    return ExperienceEntry(**fields)


@pytest.fixture
def make_entry() -> Callable[..., ExperienceEntry]:
    return entry


@pytest.fixture
def bank(tmp_path: Path) -> Iterator[Bank]:
    """An empty bank (no seeds), so tests see exactly what they add."""
    with Bank.open(tmp_path, seed=False) as b:
        yield b
