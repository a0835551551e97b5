"""A campaign over a benchmark's tasks, from hand-made records: per task (verified or why not,
baseline, best, the change), by level, the paper's figures beside ours, and the paper's subset."""

from __future__ import annotations

import math
from pathlib import Path

from ascendopt.campaign.metrics import by_level, level_of, task_label
from ascendopt.campaign.paper import PAPER
from ascendopt.campaign.records import (
    CampaignRecord,
    CampaignSettings,
    OperatorEntry,
    TaskEntry,
    TaskResult,
)
from ascendopt.report.campaign import build_report, paper_rows, paper_subset, task_table, write_reports

BENCH = Path("/bench/tasks")


def _root(level: str, task: str) -> Path:
    return BENCH / level / "Cat" / task / "answer" / "0"


def _task(level: str, task: str, strategy: str, speedup: float | None, correct: bool = True) -> TaskEntry:
    return TaskEntry(
        operator=task.lower(),
        root=_root(level, task),
        strategy=strategy,  # type: ignore[arg-type]
        episode=f"e-{task}-{strategy}",
        status="done",
        result=TaskResult(
            message="no gain" if correct else "wrong output(s): y",
            evaluations=5,
            baseline_correct=correct,
            speedup=speedup,
            baseline_us={"c0": 10.0, "c1": 2.5} if correct else {},
            kind="estimate",
            kernel_rewriting="skipped",
            change=f"tile 1 → {speedup}" if speedup else "",
        ),
    )


def _record() -> CampaignRecord:
    ops = [("level1", "Alpha"), ("level1", "Beta"), ("level2", "Gamma"), ("level2", "Delta")]
    operators = [
        OperatorEntry(name=t.lower(), root=_root(lv, t), layout="msopgen", usable=True) for lv, t in ops
    ]
    operators.append(
        OperatorEntry(
            name="eps",
            root=_root("level2", "Eps"),
            layout="msopgen",
            usable=False,
            reason="no spec: list output(s) y",
        )
    )
    tasks = [
        _task("level1", "Alpha", "ours", 1.5),
        _task("level1", "Alpha", "random", 1.1),
        _task("level1", "Beta", "ours", None),
        _task("level1", "Beta", "random", 2.5),
        _task("level2", "Gamma", "ours", 1.3),
        _task("level2", "Gamma", "random", None),
        _task("level2", "Delta", "ours", None, correct=False),
        _task("level2", "Delta", "random", None, correct=False),
    ]
    settings = CampaignSettings(paths=[BENCH], budget=12, strategies=["ours", "random"])
    return CampaignRecord(id="c", settings=settings, operators=operators, tasks=tasks)


def test_level_and_label_come_from_the_task_path() -> None:
    assert level_of(_root("level3", "Mm")) == "level3"
    assert task_label(_root("level3", "Mm")) == "level3/Cat/Mm"
    # outside a benchmark: no level, the folder as it is
    assert level_of(Path("/lib/add_custom")) == ""
    assert task_label(Path("/lib/add_custom")) == "/lib/add_custom"


def test_geomean_and_fast_p_per_level_then_overall() -> None:
    levels = by_level(_record())
    assert [lv.level for lv in levels] == ["level1", "level2", "overall"]
    l1_ours, l1_random = levels[0].strategies
    assert math.isclose(l1_ours.geomean or 0, math.sqrt(1.5 * 1.0))
    assert math.isclose(l1_random.geomean or 0, math.sqrt(1.1 * 2.5))
    assert l1_random.fast_p == {"1": 1.0, "1.2": 0.5, "2": 0.5}
    l2_ours = levels[1].strategies[0]
    # Delta's baseline fails: outside the geomean, inside fast_p's denominator
    assert (l2_ours.correct, l2_ours.operators, l2_ours.geomean) == (1, 2, 1.3)
    assert l2_ours.fast_p["1"] == 0.5
    overall_ours = levels[2].strategies[0]
    assert overall_ours.operators == 4 and math.isclose(overall_ours.geomean or 0, (1.5 * 1.3) ** (1 / 3))
    # not a benchmark: no level table
    plain = _record()
    for t in plain.tasks:
        t.root = Path("/lib") / t.operator
    assert by_level(plain) == []


def test_each_task_once_verified_or_why_not_with_baseline_best_and_change() -> None:
    rows = {r[0]: r for r in task_table(build_report(_record()))}
    assert rows["level1/Cat/Alpha"] == ["level1/Cat/Alpha", "yes", "12.50", "1.500x", "ours", "tile 1 → 1.5"]
    assert rows["level1/Cat/Beta"][3:5] == ["2.500x", "random"]
    assert rows["level2/Cat/Delta"][1:4] == ["no: wrong output(s): y", "", "-"]
    assert rows["level2/Cat/Eps"][1] == "no spec: list output(s) y"
    assert len(rows) == 5


def test_the_paper_beside_ours_labelled_and_its_subset_unavailable_without_a_list() -> None:
    report = build_report(_record())
    rows = {r[0]: r[1:] for r in paper_rows(report)}
    assert rows["geomean level1"][0] == "1.240x" and rows["geomean overall"][0] == "1.210x"
    assert rows["faster (fast_1.0)"][0] == "53%"
    assert rows["tiling search only: geomean"] == [
        "1.020x",
        rows["geomean overall"][1],
        rows["geomean overall"][2],
    ]
    assert report.tiling_only == ["ours", "random"]
    assert PAPER.operators is None and report.paper_subset is not None
    assert "unavailable" in report.paper_subset.note and not report.paper_subset.strategies


def test_a_published_list_makes_the_subset_reported_apart() -> None:
    listed = PAPER.model_copy(update={"operators": frozenset({"Alpha", "Gamma", "Zeta"})})
    subset = paper_subset(_record(), listed)
    assert subset.tasks == 2
    ours = subset.strategies[0]
    assert ours.operators == 2 and math.isclose(ours.geomean or 0, math.sqrt(1.5 * 1.3))


def test_reports_carry_the_level_table_the_paper_and_each_task(tmp_path: Path) -> None:
    write_reports(_record(), tmp_path)
    md, page = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for text in (md, page):
        assert "By benchmark level" in text and "Beside the paper" in text and "Per task" in text
        assert "910B2" in text and "twin estimate" in text and "unavailable" in text
    assert "| level2/Cat/Eps | no spec: list output(s) y |" in md
