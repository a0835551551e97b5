"""A campaign resumed after the code changed is planned again: what could not run before and runs
now joins, a baseline that failed runs again under a new episode (the old journal kept), what is
settled stays. Planning only (no episode runs): the records stand in for what episodes returned."""

from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.campaign.records import CampaignSettings, TaskResult
from ascendopt.campaign.service import CampaignService
from tests.conftest import SMALL_SPEC, TEMPLATES


def _done(correct: bool) -> TaskResult:
    return TaskResult(
        message="" if correct else "wrong output(s): z", evaluations=3, baseline_correct=correct
    )


def test_resume_plans_again_keeping_what_is_settled(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(TEMPLATES / "add_custom", lib / "add_custom")
    (lib / "add_custom" / "ascendopt.toml").write_text(SMALL_SPEC)
    shutil.copytree(TEMPLATES / "add_custom", lib / "later")
    (lib / "later" / "ascendopt.toml").unlink(missing_ok=True)
    service = CampaignService(tmp_path / "ws")
    record = service.plan(CampaignSettings(paths=[lib], budget=6, strategies=["ours", "random"]))
    assert [(o.root.name, o.usable) for o in record.operators] == [("add_custom", True), ("later", False)]
    ours, rnd = record.tasks
    ours.status, ours.result = "done", _done(True)
    rnd.status, rnd.result = "done", _done(False)  # its baseline failed (since fixed, say)

    # nothing changed on disk: only the failed baseline is planned again, under a new episode
    again = record.model_copy(deep=True)
    assert service.refresh(again) == 1
    kept, retried = again.tasks
    assert kept.episode == ours.episode and kept.result == ours.result
    assert retried.episode == f"{rnd.episode}-2" and retried.status == "pending" and retried.result is None

    # the operator that had no spec has one now: it joins, with an episode per strategy
    (lib / "later" / "ascendopt.toml").write_text(SMALL_SPEC)
    assert service.refresh(again) == 2
    assert [(t.root.name, t.strategy) for t in again.tasks] == [
        ("add_custom", "ours"),
        ("add_custom", "random"),
        ("later", "ours"),
        ("later", "random"),
    ]
    assert all(o.usable for o in again.operators)
    # the new episodes do not reuse an id (both operators' kernels are named add_custom)
    assert len({t.episode for t in again.tasks}) == 4
    # and the record on disk says the same
    assert service.load(record.id).tasks == again.tasks
