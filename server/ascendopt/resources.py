"""Where the files shipped with the package live (templates, the CPU twin's headers)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def templates_dir() -> Path:
    """templates/operators, from the source tree or from an installed wheel alike."""
    return Path(str(resources.files("ascendopt.templates"))) / "operators"
