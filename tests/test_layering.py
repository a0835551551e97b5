"""The import graph the layout promises: the packages stand in floors and every import runs down (or
stays on its floor); generic evaluation code never names the CPU twin; the agent never names a
backend package; the journal is read in journal/; child-process plumbing is on the ground floor and
confinement stays in evaluation/; one module names the SoCs. Read from the source (every import,
lazy ones included).
And the strategies: only agent/strategies/ names one (its registry, the one list of names)."""

from __future__ import annotations

import ast
import re
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

    assert _strategies([",".join(STRATEGIES)]) == list(STRATEGIES)
    for name in STRATEGIES:
        assert _strategies([name]) == [name] and strategy_class(name).name == name
        assert EpisodeSettings(strategy=name).strategy == name
    with pytest.raises(typer.BadParameter):
        _strategies(["greedy"])


# Lowest first. A module imports only from its own floor or one below; the faces (cli/, lsp/) are at
# the top, the ground floor's modules import nothing of the package's.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("processes", "redact", "untrusted", "resources", "scratch", "workspace"),
    ("operators",),
    ("evaluation",),
    ("experience",),
    ("journal",),
    ("agent",),
    ("campaign",),
    ("report",),
    ("lsp",),
    ("cli", "__main__"),
)
GROUND = FLOORS[0]


def _floor(top: str) -> int:
    return next(i for i, names in enumerate(FLOORS) if top in names)


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "ascendopt" and len(parts) > 1 else None


def upward_imports() -> dict[str, list[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        top = rel.split("/")[0].removesuffix(".py")
        if top == "__init__":
            continue
        mine = _floor(top)
        bad = sorted(m for m in imports_of(path) if (t := _top(m)) is not None and _floor(t) > mine)
        if bad:
            found[rel] = bad
    return found


def test_every_package_has_a_floor() -> None:
    tops = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    tops.discard("__pycache__")
    assert sorted(tops - {"__init__"} - {t for names in FLOORS for t in names}) == []


def test_every_import_runs_down() -> None:
    assert upward_imports() == {}


def test_the_ground_floor_imports_nothing_of_the_package() -> None:
    for name in GROUND:
        assert {m for m in imports_of(PACKAGE / f"{name}.py") if m.startswith("ascendopt")} == set(), name


def test_the_journal_is_read_in_journal() -> None:
    """journal/view.py reads an episode's journal back; the reports and the campaign import it from there
    and nothing of theirs is imported back (report/journal_view.py ran upward into campaign/)."""
    assert offenders("journal", ("ascendopt.campaign", "ascendopt.report", "ascendopt.agent")) == {}
    assert not (PACKAGE / "report" / "journal_view.py").exists()
    assert "ascendopt.journal.view" in imports_of(PACKAGE / "campaign" / "tasks.py")


def test_the_faces_write_the_reports() -> None:
    """The campaign service runs the campaign; the CLI and the editor write its reports."""
    assert offenders("campaign", ("ascendopt.report",)) == {}
    assert "ascendopt.report.campaign" in imports_of(PACKAGE / "cli" / "campaign.py")
    assert "ascendopt.report.campaign" in imports_of(PACKAGE / "lsp" / "campaign.py")


def test_confinement_stays_in_evaluation_and_process_plumbing_is_on_the_ground_floor() -> None:
    skip = ("evaluation", "__pycache__")
    outside = [d.name for d in PACKAGE.iterdir() if d.is_dir() and d.name not in skip]
    assert "campaign" in outside
    for folder in outside:
        assert offenders(folder, ("ascendopt.evaluation.sandbox",)) == {}, folder
    assert "ascendopt.processes" in imports_of(PACKAGE / "campaign" / "pools.py")
    sandbox = (PACKAGE / "evaluation" / "sandbox.py").read_text(encoding="utf-8")
    assert not re.search(r"^(async )?def (read_to_end|wait_exit)\b|^class OutputTail\b", sandbox, re.M)


def test_one_module_names_the_socs() -> None:
    """operators/soc.py holds the one SoC table: no other module spells a SoC name as a value."""
    named = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "operators/soc.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and re.fullmatch(r"Ascend\d{3}[\w-]*", value):
                named.setdefault(rel, []).append(value)
    assert named == {}


def test_the_floor_check_sees_an_upward_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from ascendopt.campaign.records import CurvePoint\n")
    assert any(_floor(t) > _floor("journal") for m in imports_of(probe) if (t := _top(m)))
