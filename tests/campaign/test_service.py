"""A real campaign on the CPU twin: two operators x two strategies in a local process pool,
operators without a spec listed with the reason, reports written from it, resume spends nothing twice."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from ascendopt.agent.settings import EpisodeSettings
from ascendopt.campaign.pools import LocalPool
from ascendopt.campaign.records import CampaignSettings
from ascendopt.campaign.service import CampaignProgress, CampaignService
from ascendopt.campaign.tasks import EpisodeTask
from ascendopt.journal.store import EpisodeJournal
from ascendopt.report.campaign import write_reports
from tests.conftest import SMALL_SPEC, TEMPLATES

pytestmark = pytest.mark.slow


@pytest.fixture
def library(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    shutil.copytree(TEMPLATES / "add_custom", lib / "add_custom")
    (lib / "add_custom" / "ascendopt.toml").write_text(SMALL_SPEC)
    shutil.copytree(TEMPLATES / "mul_custom", lib / "mul_custom")
    shutil.copytree(TEMPLATES / "exp_custom", lib / "no_spec")
    (lib / "no_spec" / "ascendopt.toml").unlink()
    return lib


async def test_campaign_runs_reports_and_resumes_without_spending_twice(
    library: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    service = CampaignService(ws)
    record = service.plan(CampaignSettings(paths=[library], budget=6, strategies=["ours", "random"], seed=1))
    skipped = [o for o in record.operators if not o.usable]
    assert [(o.name, "ascendopt.toml" in o.reason) for o in skipped] == [("exp_custom", True)]
    assert sorted((t.operator, t.strategy) for t in record.tasks) == [
        ("add_custom", "ours"),
        ("add_custom", "random"),
        ("mul_custom", "ours"),
        ("mul_custom", "random"),
    ]
    seen: list[CampaignProgress] = []
    pool = LocalPool(2)
    try:
        record = await service.run(record, pool, on_progress=seen.append)
    finally:
        pool.close()
    assert all(t.status == "done" for t in record.tasks), [t.error for t in record.tasks]
    for t in record.tasks:
        assert t.result is not None and t.result.baseline_correct
        assert 0 < t.result.evaluations <= 6
        assert t.result.curve and t.result.curve[-1].evaluations == t.result.evaluations
    assert seen[-1].done == 4 and seen[-1].evaluations == sum(t.result.evaluations for t in record.tasks)

    folder = ws / ".ascendopt" / "campaigns" / record.id
    assert not (folder / "report.html").exists()  # the service runs; the faces write the reports
    write_reports(record, folder, ws)
    html = (folder / "report.html").read_text()
    # the budget curve and each operator's search inline (nothing fetched), each linking its episode report
    body = html.split("<body>")[1].replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert '<svg class="ao-chart' in html and "http" not in body
    assert html.count('">episode report</a>') == 4
    assert all((ws / ".ascendopt" / "episodes" / t.episode / "report.html").is_file() for t in record.tasks)
    for op in ("add_custom", "mul_custom"):
        assert op in html and op in (folder / "report.md").read_text()
    assert "exp_custom" in (folder / "report.md").read_text()  # listed under "Not run"
    assert (folder / "budget_curve.png").read_bytes().startswith(b"\x89PNG")

    # A crash after an episode ended but before campaign.json said so: the rerun replays it.
    task = record.tasks[0]
    before = len(EpisodeJournal.open(ws, task.episode).events("evaluation"))
    first = task.result
    assert first is not None
    service_again = CampaignService(ws)
    reloaded = service_again.load(record.id)
    reloaded.tasks[0].status, reloaded.tasks[0].result = "running", None
    pool = LocalPool(1)
    try:
        again = await service_again.run(reloaded, pool)
    finally:
        pool.close()
    assert again.tasks[0].status == "done" and again.tasks[0].result is not None
    assert again.tasks[0].result.speedup == first.speedup
    assert len(EpisodeJournal.open(ws, task.episode).events("evaluation")) == before


async def test_cancel_stops_running_episodes_and_a_rerun_continues_them(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker that ignored its scratch folder would leave its candidate copies here when killed.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    ws = tmp_path / "ws"
    service = CampaignService(ws)
    record = service.plan(CampaignSettings(paths=[library / "add_custom"], budget=8, strategies=["ours"]))
    (task,) = record.tasks
    run = asyncio.ensure_future(service.run(record, LocalPool(1)))
    while not _evaluations(ws, task.episode):
        assert not run.done()
        await asyncio.sleep(0.2)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    record = service.load(record.id)
    assert record.tasks[0].status == "pending" and record.tasks[0].result is None
    spent = _evaluations(ws, task.episode)
    assert 1 <= len(spent) < 8
    await asyncio.sleep(3)  # a worker left running would journal its next evaluation meanwhile
    assert _evaluations(ws, task.episode) == spent
    assert not list(tmp.iterdir())

    record = await service.run(service.load(record.id), LocalPool(1))
    keys = _evaluations(ws, task.episode)
    assert record.tasks[0].status == "done" and keys[: len(spent)] == spent
    assert len(keys) == len(set(keys)) and record.tasks[0].result is not None
    assert record.tasks[0].result.evaluations == len(keys)


def _evaluations(ws: Path, episode: str) -> list[str]:
    try:
        return [e.data.key for e in EpisodeJournal.open(ws, episode).events("evaluation")]
    except KeyError:
        return []


async def test_a_worker_that_fails_says_why(tmp_path: Path) -> None:
    task = EpisodeTask(
        workspace=tmp_path / "ws",
        root=tmp_path / "nowhere",
        operator="add_custom",
        episode="e1",
        request=EpisodeSettings(budget=4),  # the least an episode runs with (the settings check it)
    )
    with pytest.raises(RuntimeError, match=r"episode worker exited 1: KeyError: .*no operator"):
        await LocalPool(1).run(task)
