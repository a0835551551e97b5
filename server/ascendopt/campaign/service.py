"""The campaign service: what `ascendopt campaign` and the editor's campaign command call.

It plans (every operator under the paths, one task per usable operator and strategy), runs the
tasks on a pool with bounded parallelism and keeps campaign.json current after every task (the one
writer); the faces write the reports (report/campaign.py `write_reports`). A campaign run again by id
is planned again first (`refresh`: what verifies now joins), then skips what is done and continues
what was running.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.agent.settings import EpisodeSettings
from ascendopt.campaign.pools import TaskPool
from ascendopt.campaign.records import (
    CampaignRecord,
    CampaignSettings,
    OperatorEntry,
    TaskEntry,
    TaskResult,
)
from ascendopt.campaign.store import CampaignStore, new_campaign_id
from ascendopt.campaign.tasks import EpisodeTask, progress_of
from ascendopt.evaluation.task_spec import derive_task_spec, run_sync
from ascendopt.journal.store import episodes_dir
from ascendopt.operators.discovery import discover
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.task import TaskSpecError, skeleton_of, task_of

PROGRESS_INTERVAL_S = 1.0


class CampaignProgress(BaseModel):
    campaign: str
    done: int
    running: int
    failed: int
    total: int
    evaluations: int
    budget: int  # evaluations the whole campaign may spend
    best_speedup: float | None  # best search-time speedup of any task so far
    elapsed_s: float
    eta_s: float | None


class CampaignService:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def plan(self, settings: CampaignSettings, jobs: int = 1) -> CampaignRecord:
        """`jobs`: benchmark tasks whose spec is derived at once (each runs the task's Python)."""
        record = CampaignRecord(id=new_campaign_id(), settings=settings)
        store = CampaignStore(self.workspace, record.id)
        record.operators = self._operators(settings, store.folder / "specs", {}, jobs)
        record.tasks = self._tasks(record, {})
        store.save(record)
        return record

    def refresh(self, record: CampaignRecord, jobs: int = 1) -> int:
        """Plan a campaign again over its paths before it resumes, keeping what is settled, so a
        campaign run again after the code changed takes in what changed: an operator not run before
        is looked at again (a spec derived, an error gone), an episode whose baseline did not verify
        runs again under a new id (its journal keeps the failure), new operators join; episodes done
        with a verified baseline, and those still to finish, are kept. Returns the episodes added."""
        store = CampaignStore(self.workspace, record.id)
        known = {(o.root, o.name): o for o in record.operators if o.usable}
        before = {t.episode for t in record.tasks}
        record.operators = self._operators(record.settings, store.folder / "specs", known, jobs)
        record.tasks = self._tasks(record, {(t.root, t.operator, t.strategy): t for t in record.tasks})
        store.save(record)
        return sum(1 for t in record.tasks if t.episode not in before)

    def _operators(
        self,
        settings: CampaignSettings,
        specs: Path,
        known: dict[tuple[Path, str], OperatorEntry],
        jobs: int,
    ) -> list[OperatorEntry]:
        """Every operator under the paths, each usable or saying why not; `known` usable entries are
        taken as they are (their specs already derived). The benchmark tasks' specs are derived
        `jobs` at a time (each runs the task's Python in the sandbox: most of a benchmark's planning)."""
        entries: list[OperatorEntry | OperatorProject] = []  # a project: looked at below
        seen: set[tuple[Path, str]] = set()
        for path in settings.paths:
            found = discover(path)
            for op in found.operators:
                if (op.root, op.name) in seen:
                    continue
                seen.add((op.root, op.name))
                entries.append(known.get((op.root, op.name), op))
            for issue in found.issues:
                entries.append(
                    OperatorEntry(
                        name="?", root=Path(issue.file), layout="?", usable=False, reason=str(issue)
                    )
                )
        derive = [e for e in entries if isinstance(e, OperatorProject) and self._derives(e)]
        derived = iter(run_sync(self._task_specs(derive, specs, jobs)))
        return [
            e
            if isinstance(e, OperatorEntry)
            else self._entry(e, next(derived) if self._derives(e) else (None, ""))
            for e in entries
        ]

    @staticmethod
    def _derives(op: OperatorProject) -> bool:
        """A benchmark task's answer with no spec of its own: its spec comes from the task."""
        return skeleton_of(op.root) is None and op.spec is None and task_of(op.root) is not None

    @staticmethod
    def _entry(op: OperatorProject, derived: tuple[Path | None, str]) -> OperatorEntry:
        """`op` usable, or why not; `derived`: the spec from its benchmark task, or why there is none."""
        errors = [i for i in op.issues if i.severity == "error"]
        spec_file, reason = derived
        if skeleton_of(op.root) is not None:
            reason = "a benchmark task's skeleton (question/): listed, not run"
        elif op.spec is None and task_of(op.root) is None:
            reason = "no ascendopt.toml (run `ascendopt init-spec`)"
        if errors and not reason:
            reason = str(errors[0])
        return OperatorEntry(
            name=op.name, root=op.root, layout=op.layout, usable=not reason, reason=reason, spec=spec_file
        )

    @classmethod
    async def _task_specs(
        cls, ops: list[OperatorProject], folder: Path, jobs: int
    ) -> list[tuple[Path | None, str]]:
        """`_task_spec` of each of `ops`, at most `jobs` at once, in their order."""
        slots = asyncio.Semaphore(max(1, jobs))

        async def one(op: OperatorProject) -> tuple[Path | None, str]:
            async with slots:
                return await cls._task_spec(op, folder)

        return list(await asyncio.gather(*(one(op) for op in ops)))

    def _tasks(self, record: CampaignRecord, old: dict[tuple[Path, str, str], TaskEntry]) -> list[TaskEntry]:
        """One task per usable operator and strategy: the `old` one where it is settled or still to
        finish, else a new one (a new episode id: a failed baseline's journal is kept)."""
        taken = {t.episode for t in old.values()}
        named: dict[str, int] = {}  # kernel names repeat across a library (benchmark tasks, samples)
        tasks: list[TaskEntry] = []
        for entry in record.operators:
            if not entry.usable:
                continue
            named[entry.name] = named.get(entry.name, 0) + 1
            label = entry.name if named[entry.name] == 1 else f"{entry.name}-{named[entry.name]}"
            for strategy in record.settings.strategies:
                task = old.get((entry.root, entry.name, strategy))
                if task is not None and (task.result is None or task.result.baseline_correct):
                    tasks.append(task)
                    continue
                episode, n = f"{record.id}-{label}-{strategy}", 1
                while episode in taken:
                    n += 1
                    episode = f"{record.id}-{label}-{strategy}-{n}"
                taken.add(episode)
                tasks.append(
                    TaskEntry(
                        operator=entry.name,
                        root=entry.root,
                        strategy=strategy,
                        episode=episode,
                        spec=entry.spec,
                    )
                )
        return tasks

    @staticmethod
    async def _task_spec(op: OperatorProject, folder: Path) -> tuple[Path | None, str]:
        """(the spec derived from `op`'s benchmark task, written in the campaign's folder, "") or
        (None, why there is none): the task's own files are never written to."""
        try:
            draft = await derive_task_spec(op)
        except TaskSpecError as exc:
            return None, f"no spec: its benchmark task gives none: {exc}"
        task = task_of(op.root)
        assert task is not None
        # Task names repeat across benchmarks and answers (answer/0, answer/1): the folder tells them apart.
        where = hashlib.sha256(str(op.root).encode()).hexdigest()[:8]
        path = folder / f"{task.name}-{op.name}-{where}.ascendopt.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(draft.text, encoding="utf-8")
        return path, ""

    def load(self, campaign_id: str) -> CampaignRecord:
        return CampaignStore(self.workspace, campaign_id).load()

    async def run(
        self,
        record: CampaignRecord,
        pool: TaskPool,
        on_progress: Callable[[CampaignProgress], None] | None = None,
    ) -> CampaignRecord:
        """Run every task not done yet. An operator's baseline is measured once: its first task to
        run leads, and when it ends the operator's other tasks take its baseline (`_shared`). As
        slots free up, the task that comes first in the campaign goes first, so an operator's tasks
        go before the next operator's. Cancel the awaiting task to stop: running episodes stop
        (their journals keep what they spent) and stay pending for the next run of the campaign."""
        store = CampaignStore(self.workspace, record.id)
        started = time.monotonic()
        wall_before = record.wall_s
        spent_before = sum(t.result.evaluations for t in record.tasks if t.result)
        todo = [t for t in record.tasks if t.status != "done"]
        s = record.settings
        known = {(t.root, t.operator) for t in record.tasks if t.status == "done"}
        ready: list[tuple[int, TaskEntry]] = []  # (its place in the campaign, the task)
        after_lead: dict[tuple[Path, str], list[tuple[int, TaskEntry]]] = {}  # released when it ends
        for rank, t in enumerate(todo):
            key = (t.root, t.operator)
            if key in after_lead:
                after_lead[key].append((rank, t))
            else:
                ready.append((rank, t))
                if key not in known:  # no task of it done: this one leads
                    after_lead[key] = []
        heapq.heapify(ready)
        changed = asyncio.Condition()

        async def one(task: TaskEntry) -> None:
            task.status, task.error = "running", ""
            store.save(record)
            request = EpisodeSettings(
                budget=s.budget,
                seed=s.seed,
                backend=s.backend,
                soc=s.soc,
                model=s.model,
                strategy=task.strategy,
            )
            job = EpisodeTask(
                workspace=self.workspace,
                root=task.root,
                operator=task.operator,
                episode=task.episode,
                request=request,
                spec=task.spec,
                baseline_from=task.baseline_from or None,
            )
            try:
                task.result = await pool.run(job)
                task.status = "done"
            except Exception as exc:  # one operator's failure is its row, not the campaign's end
                task.status, task.error = "failed", f"{type(exc).__name__}: {exc}"
            record.wall_s = wall_before + time.monotonic() - started

        async def worker() -> None:
            while True:
                async with changed:  # wait while only tasks behind a running lead are left
                    await changed.wait_for(lambda: bool(ready) or not any(after_lead.values()))
                    if not ready:
                        return
                    _, task = heapq.heappop(ready)
                if not self._shared(record, task):
                    await one(task)
                store.save(record)
                async with changed:
                    for item in after_lead.pop((task.root, task.operator), []):
                        heapq.heappush(ready, item)
                    changed.notify_all()

        reporter = asyncio.ensure_future(self._report_progress(record, started, spent_before, on_progress))
        try:
            await asyncio.gather(*(worker() for _ in range(pool.slots)))
        except asyncio.CancelledError:
            # Cancelling this run cancels each task (a local one terminates its process); what they
            # spent is in their journals, and they run again, continuing, with the campaign.
            for t in record.tasks:
                if t.status == "running":
                    t.status = "pending"
            raise
        finally:
            reporter.cancel()
            record.wall_s = wall_before + time.monotonic() - started
            store.save(record)
        if on_progress:
            on_progress(self.progress(record, started, spent_before))
        return record

    def _shared(self, record: CampaignRecord, task: TaskEntry) -> bool:
        """Take the baseline another strategy's finished episode of the same operator measured:
        one that did not verify settles `task` with the same reason, run by none (True), unless
        `task` has begun its own episode (a campaign from before baselines were shared: it goes on,
        replaying its journal); one that did is handed to `task`'s episode, whose ledger spends its
        baseline and noise runs from the same budget as ever without running them again."""
        source = next(
            (
                t
                for t in record.tasks
                if (t.root, t.operator) == (task.root, task.operator)
                and t is not task
                and t.status == "done"
                and t.result is not None
                and not t.settled_unrun
            ),
            None,
        )
        if source is None or source.result is None:
            task.baseline_from = ""
            return False
        if not source.result.baseline_correct and (episodes_dir(self.workspace) / task.episode).is_dir():
            task.baseline_from = ""
            return False
        task.baseline_from = source.episode
        if source.result.baseline_correct:
            return False
        task.status, task.error = "done", ""
        task.result = TaskResult(message=source.result.message, evaluations=0, baseline_correct=False)
        return True

    def progress(self, record: CampaignRecord, started: float, spent_before: int = 0) -> CampaignProgress:
        """Where the campaign stands; the ETA extrapolates this run's evaluation rate."""
        spent, best = 0, None
        for t in record.tasks:
            if t.result is not None:
                used, top = t.result.evaluations, max((p.best_speedup for p in t.result.curve), default=None)
            elif t.status == "running":
                used, top = progress_of(self.workspace, t.episode)
            else:
                continue
            spent += used
            if top is not None and (best is None or top > best):
                best = top
        total_budget = sum(record.settings.budget for t in record.tasks if not t.settled_unrun)
        elapsed = time.monotonic() - started
        rate = max(spent - spent_before, 0) / elapsed if elapsed > 0 else 0.0
        return CampaignProgress(
            campaign=record.id,
            done=sum(1 for t in record.tasks if t.status == "done"),
            running=sum(1 for t in record.tasks if t.status == "running"),
            failed=sum(1 for t in record.tasks if t.status == "failed"),
            total=len(record.tasks),
            evaluations=spent,
            budget=total_budget,
            best_speedup=best,
            elapsed_s=elapsed,
            eta_s=(total_budget - spent) / rate if rate > 0 else None,
        )

    async def _report_progress(
        self,
        record: CampaignRecord,
        started: float,
        spent_before: int,
        on_progress: Callable[[CampaignProgress], None] | None,
    ) -> None:
        if on_progress is None:
            return
        while True:
            on_progress(self.progress(record, started, spent_before))
            await asyncio.sleep(PROGRESS_INTERVAL_S)
