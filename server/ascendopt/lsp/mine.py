"""Mine experience from the editor: the rewind miner in the background, lessons into the bank."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from ascendopt.evaluation.backends import BackendError
from ascendopt.evaluation.remote.settings import SettingsError
from ascendopt.experience.bank import Bank
from ascendopt.experience.miner import MinedStep, RewindMiner
from ascendopt.lsp import output, protocol
from ascendopt.lsp.experience import workspace_of
from ascendopt.lsp.index import op_key
from ascendopt.lsp.jobs import AlreadyRunning, Job, WorkDone, unless_cancelled
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.settings import Configuration
from ascendopt.lsp.targets import TargetError, parse_target, resolve


def register(ls: AscendServer) -> None:
    @ls.command(protocol.MINE)
    async def mine_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        try:
            op = await resolve(ls, parse_target(args))
        except TargetError as exc:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=str(exc)))
            return {"status": "error", "message": str(exc)}
        await ls.current_settings()
        workspace = workspace_of(ls, {"operatorRoot": str(op.root)}) or op.root
        result: dict[str, Any] = {"status": "cancelled"}

        async def work(job: Job) -> None:
            progress = WorkDone(ls, job)
            await progress.begin("rewinding: de-optimizing one step at a time")

            def step(s: MinedStep) -> None:
                progress.report(f"{s.deoptimization}: {'kept' if s.kept else s.reason}")

            try:
                async with ls.evaluators.use(ls.state(Configuration).settings, workspace) as evaluator:
                    with output.to_channel(ls):
                        task = await unless_cancelled(job, RewindMiner(evaluator, on_step=step).mine(op))
            except (BackendError, SettingsError) as exc:
                progress.end("cannot run")
                error = types.ShowMessageParams(type=types.MessageType.Error, message=str(exc))
                ls.window_show_message(error)
                result.update(status="error", message=str(exc))
                return
            if task is None:
                progress.end("cancelled")
                return
            report = task.result()
            added = await asyncio.to_thread(_store, workspace, report.lessons)
            message = f"{op.name}: {added} new lesson(s) from {report.evaluations} evaluations"
            progress.end(message)
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
            result.update(status="ok", lessons=added, steps=[s.model_dump() for s in report.steps])

        try:
            job = ls.jobs.start(op_key(op), "mining", f"Mine {op.name}", work)
        except AlreadyRunning as exc:
            return {"status": "already-running", "message": str(exc)}
        assert job.task is not None
        await job.task
        return result


def _store(workspace: Any, lessons: list[Any]) -> int:
    with Bank.open(workspace) as bank:
        return bank.add_many(lessons)
