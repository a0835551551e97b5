"""The import graph the layout promises: generic evaluation code never names the CPU twin, and the
agent never names a backend package. Read from the source (every import, lazy ones included).
And the strategies: only agent/strategies/ names one (its registry, the one list of names)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


# Strategy names as string constants outside agent/strategies/ that are not strategies.
NOT_A_STRATEGY = {("operators/sample_data.py", "random")}  # numpy.random, read from a reference script


def strategy_names_outside_the_registry() -> dict[str, list[str]]:
    from ascendopt.agent.strategies import STRATEGIES

    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("agent/strategies/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and node.value in STRATEGIES
                and (rel, node.value) not in NOT_A_STRATEGY
            ):
                found.setdefault(rel, []).append(f"{node.lineno}: {node.value!r}")
    return found


def test_no_module_outside_agent_strategies_names_a_strategy() -> None:
    assert strategy_names_outside_the_registry() == {}


def test_the_registry_is_what_the_cli_accepts() -> None:
    import typer

    from ascendopt.agent.settings import EpisodeSettings
    from ascendopt.agent.strategies import STRATEGIES, strategy_class
    from ascendopt.cli.campaign import _strategies

    assert _strategies(",".join(STRATEGIES)) == list(STRATEGIES)
    for name in STRATEGIES:
        assert _strategies(name) == [name] and strategy_class(name).name == name
        assert EpisodeSettings(strategy=name).strategy == name
    with pytest.raises(typer.BadParameter):
        _strategies("greedy")
