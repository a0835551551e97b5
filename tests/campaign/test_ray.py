"""Campaign episodes as Ray tasks on a real two-node local Ray cluster (ray.cluster_utils):
the campaign completes, and a node removed mid-campaign costs nothing twice: its episode is
retried on the other node and continues its journal."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest

from ascendopt.campaign.pools import RayPool
from ascendopt.campaign.records import CampaignSettings
from ascendopt.campaign.service import CampaignService
from ascendopt.journal.store import EpisodeJournal
from tests.conftest import SMALL_SPEC, TEMPLATES

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

pytestmark = pytest.mark.slow


def _evaluations(ws: Path, episode: str) -> list[str]:
    try:
        return [e.data.key for e in EpisodeJournal.open(ws, episode).events("evaluation")]
    except KeyError:
        return []


async def test_two_node_campaign_survives_a_node_removed_mid_run(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    for name in ("add_custom", "mul_custom"):
        shutil.copytree(TEMPLATES / name, lib / name)
    (lib / "add_custom" / "ascendopt.toml").write_text(SMALL_SPEC)
    ws = tmp_path / "ws"
    service = CampaignService(ws)
    record = service.plan(CampaignSettings(paths=[lib], budget=8, strategies=["ours"], seed=2))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    victim = cluster.add_node(num_cpus=1)
    try:
        cluster.wait_for_nodes()
        pool = RayPool(cluster.address)
        assert pool.slots == 2
        run = asyncio.ensure_future(service.run(record, pool))
        # Both episodes running, one per node: remove the second node once both have spent some.
        deadline = time.monotonic() + 240
        while not all(len(_evaluations(ws, t.episode)) >= 2 for t in record.tasks):
            assert time.monotonic() < deadline, "episodes did not start on the Ray cluster"
            assert not run.done(), run.exception() if run.done() else None
            await asyncio.sleep(0.5)
        cluster.remove_node(victim)
        record = await asyncio.wait_for(run, timeout=600)
        pool.close()
    finally:
        cluster.shutdown()
    assert all(t.status == "done" for t in record.tasks), [t.error for t in record.tasks]
    # The episode that was on the removed node started twice: Ray retried it, and it continued.
    starts = sorted(len(EpisodeJournal.open(ws, t.episode).events("start")) for t in record.tasks)
    assert starts == [1, 2]
    for t in record.tasks:
        keys = _evaluations(ws, t.episode)
        assert len(keys) == len(set(keys)), "an evaluation was journaled twice"
        assert t.result is not None and t.result.evaluations == len(keys) <= 8


async def test_a_cancelled_campaign_stops_its_ray_tasks(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(TEMPLATES / "add_custom", lib / "add_custom")
    (lib / "add_custom" / "ascendopt.toml").write_text(SMALL_SPEC)
    ws = tmp_path / "ws"
    service = CampaignService(ws)
    record = service.plan(CampaignSettings(paths=[lib], budget=8, strategies=["ours"]))
    (task,) = record.tasks
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        pool = RayPool(cluster.address)
        try:
            run = asyncio.ensure_future(service.run(record, pool))
            deadline = time.monotonic() + 240
            while not _evaluations(ws, task.episode):
                assert time.monotonic() < deadline, "the episode did not start on the Ray cluster"
                await asyncio.sleep(0.2)
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            spent = _evaluations(ws, task.episode)
            await asyncio.sleep(5)  # a task left running on the cluster journals its next evaluation
            assert _evaluations(ws, task.episode) == spent
        finally:
            pool.close()
    finally:
        cluster.shutdown()
    assert 1 <= len(spent) < 8
