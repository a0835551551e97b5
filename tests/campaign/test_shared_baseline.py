"""An operator's baseline is measured once per campaign: a failing one settles the operator's other
strategies unrun, a verified one is taken by their episodes, spent from each budget all the same.
The ledger's side with a fake evaluator (no compiles); the campaign's order with a pool that
records what it is asked to run (the real pool runs in test_shared_baseline_twin.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ascendopt.agent.episode import Episode
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.outcome import Outcome
from ascendopt.agent.service import baseline_evaluations
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.campaign.records import CampaignRecord, CampaignSettings, TaskEntry, TaskResult
from ascendopt.campaign.service import CampaignService
from ascendopt.campaign.tasks import EpisodeTask
from ascendopt.evaluation.records import Evaluation
from ascendopt.journal.events import EvaluationEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase
from ascendopt.report.campaign import build_report, operator_rows, partial_note
from tests.agent.test_budget import FasterWhenChanged


class Counting(FasterWhenChanged):
    """FasterWhenChanged that keeps (candidate, seed) of every evaluation it is asked to run."""

    def __init__(self, base_id: str) -> None:
        super().__init__(base_id)
        self.ran: list[tuple[str, int]] = []

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int,
        profile: bool = True,
    ) -> Evaluation:
        self.ran.append((candidate.id, seed))
        return await super().evaluate(project, candidate, cases, seed=seed, profile=profile)


def _evaluations(ws: Path, episode: str) -> list[EvaluationEvent]:
    events = EpisodeJournal.open(ws, episode).events("evaluation")
    return [e.data for e in events if isinstance(e.data, EvaluationEvent)]


async def _episode(
    project: OperatorProject, evaluator: Counting, ws: Path, episode: str, seed: int, shared: str | None
) -> Outcome:
    settings = EpisodeSettings(budget=7, seed=seed)
    journal = EpisodeJournal.create(ws, episode)
    offered = baseline_evaluations(ws, shared) if shared else {}
    ledger = Ledger(evaluator, journal, settings.budget, shared=offered)  # type: ignore[arg-type]
    return await Episode(project, settings, ledger, journal).run()


async def test_a_shared_baseline_is_spent_from_the_budget_and_not_run_again(add_op: Path) -> None:
    project = load_operator(add_op)
    base = baseline(project).id
    evaluator = Counting(base)
    ws = add_op.parent / "ws"
    first = await _episode(project, evaluator, ws, "lead", 0, None)
    ran_first = list(evaluator.ran)
    assert (base, 0) in ran_first and (base, 1) in ran_first  # its baseline and noise runs

    second = await _episode(project, evaluator, ws, "follower", 0, "lead")
    ran_second = evaluator.ran[len(ran_first) :]
    assert (base, 0) not in ran_second and (base, 1) not in ran_second
    # the same budget, spent the same way: the shared runs count, the search has what the lead had
    assert second.evaluations == first.evaluations == 7
    assert second.message == first.message and len(ran_second) == len(ran_first) - 2
    took = [e for e in _evaluations(ws, "follower") if e.shared_from]
    assert [(e.purpose, e.shared_from) for e in took] == [("baseline", "lead"), ("noise", "lead")]
    lead = {e.key: e.evaluation for e in _evaluations(ws, "lead")}
    assert all(lead[e.key] == e.evaluation for e in took)
    # passed on: an episode that took it shares it in the name of the one that measured it
    assert {origin for _, origin in baseline_evaluations(ws, "follower").values()} == {"lead"}

    # what would defeat it: a baseline measured under other settings (another seed) is not taken
    other = await _episode(project, evaluator, ws, "other", 5, "lead")
    assert (base, 5) in evaluator.ran and other.evaluations == 7
    assert not any(e.shared_from for e in _evaluations(ws, "other"))


class RecordingPool:
    """Runs nothing: answers each task from `verifies` (operator -> does its baseline verify),
    keeping the order it was asked in and how many ran at once."""

    def __init__(self, slots: int, verifies: dict[str, bool]) -> None:
        self.slots = slots
        self.verifies = verifies
        self.asked: list[EpisodeTask] = []
        self.running = 0
        self.most = 0

    async def run(self, task: EpisodeTask) -> TaskResult:
        self.asked.append(task)
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        ok = self.verifies[task.operator]
        return TaskResult(
            message="no gain" if ok else "the operator as it is fails verification (wrong output(s): z)",
            evaluations=6 if ok else 1,
            baseline_correct=ok,
            baseline_us={"c0": 5.0} if ok else {},
        )

    def close(self) -> None:
        pass


def _record(tmp_path: Path, operators: list[str], strategies: list[str]) -> CampaignRecord:
    settings = CampaignSettings(paths=[tmp_path], budget=6, strategies=strategies)  # type: ignore[arg-type]
    tasks = [
        TaskEntry(operator=op, root=tmp_path / op, strategy=s, episode=f"c-{op}-{s}")  # type: ignore[arg-type]
        for op in operators
        for s in strategies
    ]
    return CampaignRecord(id="c", settings=settings, tasks=tasks)


async def test_a_failing_baseline_runs_once_and_settles_the_other_strategies(tmp_path: Path) -> None:
    record = _record(tmp_path, ["broken", "fine"], ["ours", "random", "tpe"])
    pool = RecordingPool(1, {"broken": False, "fine": True})
    service = CampaignService(tmp_path / "ws")
    record = await service.run(record, pool)  # type: ignore[arg-type]

    asked = [(t.operator, t.request.strategy, t.baseline_from) for t in pool.asked]
    assert asked == [
        ("broken", "ours", None),  # the one episode of the broken operator
        ("fine", "ours", None),
        ("fine", "random", "c-fine-ours"),  # takes the lead's verified baseline
        ("fine", "tpe", "c-fine-ours"),
    ]
    broken = [t for t in record.tasks if t.operator == "broken"]
    assert all(t.status == "done" and t.result and not t.result.baseline_correct for t in broken)
    assert [t.settled_unrun for t in broken] == [False, True, True]
    assert [t.result.evaluations for t in broken if t.result] == [1, 0, 0]
    assert len({t.result.message for t in broken if t.result}) == 1  # the same reason for each

    report = build_report(record)
    rows = {(r[0], r[1]): r[5] for r in operator_rows(report)}
    assert rows[("broken", "random")].startswith(
        "not run: the baseline does not verify (measured once, by c-broken-ours): the operator as it is"
    )
    assert not rows[("broken", "ours")].startswith("not run")
    assert partial_note(report) == ""  # all done: settled tasks are done
    assert report.done == report.total == 6
    # the budget the campaign may spend leaves out the tasks settled unrun
    assert service.progress(record, 0.0).budget == 4 * 6


async def test_an_operators_tasks_go_before_the_next_operators_as_slots_free(tmp_path: Path) -> None:
    record = _record(tmp_path, ["a", "b", "c"], ["ours", "random"])
    pool = RecordingPool(2, {"a": True, "b": True, "c": True})
    record = await CampaignService(tmp_path / "ws").run(record, pool)  # type: ignore[arg-type]
    order = [(t.operator, t.request.strategy) for t in pool.asked]
    # a and b lead at once; when a ends its follower goes before c's lead
    assert order[:3] == [("a", "ours"), ("b", "ours"), ("a", "random")]
    assert sorted(order) == sorted((t.operator, t.strategy) for t in record.tasks)
    assert pool.most == 2


async def test_a_lead_that_crashed_leaves_the_others_to_run_on_their_own(tmp_path: Path) -> None:
    class CrashFirst(RecordingPool):
        async def run(self, task: EpisodeTask) -> TaskResult:
            if not self.asked:
                self.asked.append(task)
                raise RuntimeError("episode worker exited 1: MemoryError")
            return await super().run(task)

    record = _record(tmp_path, ["a"], ["ours", "random"])
    pool = CrashFirst(1, {"a": False})
    record = await CampaignService(tmp_path / "ws").run(record, pool)  # type: ignore[arg-type]
    ours, rnd = record.tasks
    assert ours.status == "failed" and "MemoryError" in ours.error
    assert rnd.status == "done" and not rnd.settled_unrun and rnd.baseline_from == ""
    assert partial_note(build_report(record)).startswith("Partial: 1 of 2 tasks done, 1 failed")


async def test_a_campaign_saved_before_baselines_were_shared_resumes(tmp_path: Path) -> None:
    """campaign.json written before `baseline_from` existed: it loads, and its done lead's failing
    baseline settles the pending tasks of the same operator, but for one that had begun its own
    episode (it goes on, continuing its journal, not labelled unrun)."""
    from ascendopt.campaign.store import CampaignStore

    ws = tmp_path / "ws"
    store = CampaignStore(ws, "old")
    store.folder.mkdir(parents=True)

    def task(strategy: str, status: str, result: str) -> str:
        return (
            f'{{"operator": "k", "root": "{tmp_path / "k"}", "strategy": "{strategy}", '
            f'"episode": "old-k-{strategy}", "spec": null, "status": "{status}", "error": "", '
            f'"result": {result}}}'
        )

    failed = '{"message": "fails verification", "evaluations": 1, "baseline_correct": false}'
    tasks = [task("ours", "done", failed), task("random", "pending", "null"), task("tpe", "pending", "null")]
    store.path.write_text(
        '{"v": 1, "id": "old", "created": "2026-12-01T00:00:00Z", "settings": {"paths": ["'
        + str(tmp_path)
        + '"], "budget": 6, "strategies": ["ours", "random", "tpe"], "backend": "cpu-twin", '
        '"soc": null, "seed": 0, "model": null}, "operators": [], "tasks": ['
        + ", ".join(tasks)
        + '], "wall_s": 12.0}',
        encoding="utf-8",
    )
    EpisodeJournal.create(ws, "old-k-tpe")  # begun before the campaign was stopped
    service = CampaignService(ws)
    record = service.load("old")
    pool = RecordingPool(1, {"k": False})
    record = await service.run(record, pool)  # type: ignore[arg-type]
    assert [(t.episode, t.baseline_from) for t in pool.asked] == [("old-k-tpe", None)]
    _, rnd, tpe = record.tasks
    assert rnd.settled_unrun and rnd.baseline_from == "old-k-ours"
    assert not tpe.settled_unrun and tpe.result is not None and tpe.result.evaluations == 1
    assert service.load("old").tasks == record.tasks
