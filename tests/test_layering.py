"""The import graph the layout promises: generic evaluation code never names the CPU twin, and the
agent never names a backend package. Read from the source (every import, lazy ones included)."""

from __future__ import annotations

import ast
from pathlib import Path

import ascendopt

PACKAGE = Path(ascendopt.__file__).resolve().parent
BACKENDS = ("ascendopt.evaluation.cpu_twin", "ascendopt.evaluation.cann", "ascendopt.evaluation.remote")
# The one module whose job is to map a backend string to a backend (and so names them all).
COMPOSITION_ROOT = "evaluation/backends.py"


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def offenders(folder: str, forbidden: tuple[str, ...], skip: tuple[str, ...] = ()) -> dict[str, list[str]]:
    found = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in skip or any(rel.startswith(s.rstrip("/") + "/") for s in skip):
            continue
        bad = sorted(m for m in imports_of(path) if m.startswith(forbidden))
        if bad:
            found[rel] = bad
    return found


def test_generic_evaluation_code_never_imports_the_cpu_twin() -> None:
    assert (
        offenders(
            "evaluation", ("ascendopt.evaluation.cpu_twin",), skip=("evaluation/cpu_twin", COMPOSITION_ROOT)
        )
        == {}
    )


def test_the_agent_never_imports_a_backend_package() -> None:
    assert offenders("agent", BACKENDS) == {}


def test_the_check_sees_an_import_when_there_is_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ascendopt.evaluation.cpu_twin.build import Builder\n")
    assert "ascendopt.evaluation.cpu_twin.build" in imports_of(probe)
