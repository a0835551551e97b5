from __future__ import annotations

import pytest

from ascendopt.evaluation.timing import calibration


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    try:
        calibration.tilesim_dir()
    except calibration.CalibrationError as exc:
        skip = pytest.mark.skip(reason=str(exc))
        for item in items:
            if "evaluation/timing" in str(item.fspath):
                item.add_marker(skip)
