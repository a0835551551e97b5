"""A campaign over benchmark-task look-alikes (benchmark_task_style.py): the tasks' specs derived
`jobs` at a time with the same plan as one after another, and an operator whose baseline fails runs
one episode for all its strategies while one that verifies is measured once and shared."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ascendopt.campaign import service as campaign_service
from ascendopt.campaign.pools import LocalPool
from ascendopt.campaign.records import CampaignRecord, CampaignSettings, OperatorEntry
from ascendopt.campaign.service import CampaignService
from ascendopt.journal.events import EvaluationEvent, StartEvent
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec_init import SpecDraft
from ascendopt.report.campaign import build_report, write_reports
from tests.operators.benchmark_task_style import ADD_MODULE, ADD_PREPARE, add_task, make_task, scale_task

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)


def _benchmark(root: Path) -> Path:
    add_task(root / "a")
    add_task(root / "b", expr="left - right")  # the same task and kernel names; its Model disagrees
    scale_task(root / "a")
    # a case list without its header: no spec, the reason naming the file
    make_task(root / "c", "add_custom", ADD_MODULE.format(expr="left + right"), ADD_PREPARE, "[4];float16\n")
    return root


def _plan(record: CampaignRecord, tasks: Path) -> list[tuple[str, str, bool, str, str]]:
    def spec(o: OperatorEntry) -> str:
        return o.spec.read_text(encoding="utf-8") if o.spec else ""

    return [
        (o.name, o.root.relative_to(tasks).as_posix(), o.usable, o.reason, spec(o)) for o in record.operators
    ]


@needs_torch
def test_task_specs_are_derived_jobs_at_a_time_with_the_same_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = _benchmark(tmp_path / "tasks")
    real = campaign_service.derive_task_spec
    at_once = {"now": 0, "most": 0}

    async def counted(op: OperatorProject) -> SpecDraft:
        at_once["now"] += 1
        at_once["most"] = max(at_once["most"], at_once["now"])
        try:
            return await real(op)
        finally:
            at_once["now"] -= 1

    monkeypatch.setattr(campaign_service, "derive_task_spec", counted)
    settings = CampaignSettings(paths=[tasks], budget=4, strategies=["ours", "random"])
    serial = CampaignService(tmp_path / "ws1").plan(settings, jobs=1)
    assert at_once["most"] == 1
    at_once["most"] = 0
    concurrent = CampaignService(tmp_path / "ws2").plan(settings, jobs=3)
    assert at_once["most"] == 3  # four answers to derive, three at once

    plan = _plan(concurrent, tasks)
    assert plan == _plan(serial, tasks)
    answers = {root: (usable, reason, spec) for _, root, usable, reason, spec in plan if "answer" in root}
    assert sorted(answers) == [
        "a/level1/Cat/TaskAddCustom/answer/0",
        "a/level1/Cat/TaskMulsCustom/answer/0",
        "b/level1/Cat/TaskAddCustom/answer/0",
        "c/level1/Cat/TaskAddCustom/answer/0",
    ]
    # the two TaskAddCustom answers have a spec each, each naming its own task's Model
    for where in ("a", "b"):
        usable, _, spec = answers[f"{where}/level1/Cat/TaskAddCustom/answer/0"]
        assert usable and str(tasks / where / "level1" / "Cat" / "TaskAddCustom" / "validation") in spec
    usable, reason, _ = answers["c/level1/Cat/TaskAddCustom/answer/0"]
    assert not usable and "test_cases.csv" in reason
    # the report's per-task table: one row per task (its answer), the skeletons under "Not run"
    report = build_report(concurrent)
    assert sorted(r.task for r in report.tasks) == sorted(f"level1/Cat/{r.split('/')[3]}" for r in answers)
    assert sum("skeleton" in why for _, _, why in report.not_run) == 3  # TaskMulsCustom has none
    assert [(t.root.relative_to(tasks).parts[0], t.strategy) for t in concurrent.tasks] == [
        (t.root.relative_to(tasks).parts[0], t.strategy) for t in serial.tasks
    ]


def _evaluations(ws: Path, episode: str) -> list[EvaluationEvent]:
    events = EpisodeJournal.open(ws, episode).events("evaluation")
    return [e.data for e in events if isinstance(e.data, EvaluationEvent)]


@pytest.mark.slow
@needs_torch
async def test_a_failing_baseline_runs_one_episode_and_a_verified_one_is_shared(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    add_task(tasks / "a")
    add_task(tasks / "b", expr="left - right")
    ws = tmp_path / "ws"
    service = CampaignService(ws)
    settings = CampaignSettings(paths=[tasks], budget=6, strategies=["ours", "random", "tpe"])
    record = service.plan(settings, jobs=2)
    pool = LocalPool(2)
    try:
        record = await service.run(record, pool)
    finally:
        pool.close()
    assert all(t.status == "done" for t in record.tasks), [t.error for t in record.tasks]
    good = [t for t in record.tasks if "/a/" in str(t.root)]
    bad = [t for t in record.tasks if "/b/" in str(t.root)]

    # the failing baseline: one episode ran, the other two strategies are settled by it, unrun
    ran = [t for t in bad if (episodes_dir(ws) / t.episode).is_dir()]
    assert len(ran) == 1 and not ran[0].settled_unrun
    lead = ran[0]
    assert lead.result is not None and "fails verification" in lead.result.message
    for t in bad:
        assert t.result is not None and not t.result.baseline_correct
        assert t.result.message == lead.result.message
        if t is not lead:
            assert t.settled_unrun and t.baseline_from == lead.episode and t.result.evaluations == 0

    # the verified baseline: measured by the first episode, taken (not run again) by the others,
    # each of which counts it in the same budget
    first, *others = good
    assert first.baseline_from == "" and all(t.baseline_from == first.episode for t in others)
    measured = {
        e.key: e.evaluation for e in _evaluations(ws, first.episode) if e.purpose in ("baseline", "noise")
    }
    for t in good:
        assert t.result is not None and t.result.baseline_correct
        evaluations = _evaluations(ws, t.episode)
        assert t.result.evaluations == len(evaluations) <= 6
        starts = [e.data for e in EpisodeJournal.open(ws, t.episode).events("start")]
        assert [s.settings["budget"] for s in starts if isinstance(s, StartEvent)] == [6]
        taken = [e for e in evaluations if e.shared_from]
        if t is first:
            assert not taken
        else:
            assert [(e.purpose, e.shared_from) for e in taken] == [
                ("baseline", first.episode),
                ("noise", first.episode),
            ]
            assert all(measured[e.key] == e.evaluation for e in taken)

    folder = ws / ".ascendopt" / "campaigns" / record.id
    write_reports(record, folder, ws)
    md = " ".join((folder / "report.md").read_text().split())
    assert f"not run: the baseline does not verify (measured once, by {lead.episode})" in md
    assert "An operator's baseline is measured once" in md and "Partial" not in md
