"""Campaign numbers from hand-made records: geomean, fast_p, budget curves."""

from __future__ import annotations

import math
from pathlib import Path

from ascendopt.campaign.metrics import summarize
from ascendopt.campaign.records import CampaignRecord, CampaignSettings, CurvePoint, TaskEntry, TaskResult


def _task(op: str, strategy: str, speedup: float | None, correct: bool = True, curve=()) -> TaskEntry:
    return TaskEntry(
        operator=op,
        root=Path("/x") / op,
        strategy=strategy,  # type: ignore[arg-type]
        episode=f"e-{op}-{strategy}",
        status="done",
        result=TaskResult(
            message="",
            evaluations=len(curve) or 6,
            baseline_correct=correct,
            speedup=speedup,
            curve=[CurvePoint(evaluations=n, best_speedup=b) for n, b in curve],
        ),
    )


def test_geomean_counts_no_suggestion_as_one_and_fast_p_counts_every_operator() -> None:
    record = CampaignRecord(
        id="c",
        settings=CampaignSettings(paths=[Path("/x")], budget=4, strategies=["ours"]),
        tasks=[
            _task("a", "ours", 2.5, curve=[(1, 1.0), (2, 2.0), (3, 2.6), (4, 2.6)]),
            _task("b", "ours", None, curve=[(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0)]),
            _task("c", "ours", 1.3),
            _task("d", "ours", None, correct=False),  # baseline fails: not correct, still counted
        ],
    )
    (s,) = summarize(record)
    assert s.operators == 4 and s.correct == 3 and s.improved == 2
    assert math.isclose(s.geomean or 0, (2.5 * 1.0 * 1.3) ** (1 / 3))
    # more than p times faster, of all four: b (no suggestion, 1.0) is correct but not fast_1
    assert s.fast_p == {"1": 0.5, "1.2": 0.5, "2": 0.25}
    # the curve: geomean over correct operators of the best found within n evaluations
    assert [n for n, _ in s.curve] == [1, 2, 3, 4]
    assert math.isclose(s.curve[0][1], 1.0)
    assert math.isclose(s.curve[2][1], (2.6 * 1.0 * 1.0) ** (1 / 3))


def test_strategies_are_summarised_apart() -> None:
    record = CampaignRecord(
        id="c",
        settings=CampaignSettings(paths=[Path("/x")], budget=4, strategies=["ours", "random"]),
        tasks=[_task("a", "ours", 2.0), _task("a", "random", None)],
    )
    ours, rnd = summarize(record)
    assert (ours.strategy, ours.geomean, rnd.strategy, rnd.geomean) == ("ours", 2.0, "random", 1.0)


def test_reports_show_the_winning_diff_and_what_did_not_count(tmp_path: Path) -> None:
    from ascendopt.report.campaign import write_reports

    task = _task("a", "ours", 1.5, curve=[(1, 1.0), (2, 1.5)])
    assert task.result is not None
    task.result.patch = "--- a/op_host/a.cpp\n+++ b/op_host/a.cpp\n@@ -1 +1 @@\n-x = [k] < 1\n+x = [k] < 2\n"
    task.result.rejected = {"does not compile": 3}
    record = CampaignRecord(
        id="c", settings=CampaignSettings(paths=[Path("/x")], budget=4, strategies=["ours"]), tasks=[task]
    )
    write_reports(record, tmp_path)
    md, page = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    assert f"```diff\n{task.result.patch}```" in md
    assert "| a | ours | does not compile | 3 |" in md
    assert "x = [k] &lt; 2" in page and "does not compile" in page


def test_a_campaign_in_progress_counts_only_operators_every_strategy_finished() -> None:
    pending = _task("b", "random", None)
    pending.status, pending.result = "pending", None
    running = _task("c", "ours", None)
    running.status, running.result = "running", None  # left so by an interrupted run
    record = CampaignRecord(
        id="c",
        settings=CampaignSettings(paths=[Path("/x")], budget=4, strategies=["ours", "random"]),
        tasks=[
            _task("a", "ours", 2.0),
            _task("a", "random", None),
            _task("b", "ours", 3.0),  # random has not run b yet: b counts for neither
            pending,
            running,
            _task("c", "random", 1.5),
        ],
    )
    ours, rnd = summarize(record)
    assert (ours.operators, ours.geomean, ours.unsettled) == (1, 2.0, 2)
    assert (rnd.operators, rnd.geomean, rnd.unsettled) == (1, 1.0, 2)
    assert ours.fast_p["1"] == 1.0 and rnd.fast_p["1"] == 0.0  # pending ones are not in the denominator
    # a failed task is finished: it counts (as not correct), and settles its operator
    running.status, running.error = "failed", "backend unreachable"
    pending.status, pending.result = "done", TaskResult(message="", evaluations=6, baseline_correct=True)
    ours, rnd = summarize(record)
    assert (ours.operators, ours.correct, ours.failed, ours.unsettled) == (3, 2, 1, 0)
    assert rnd.operators == 3 and rnd.unsettled == 0
