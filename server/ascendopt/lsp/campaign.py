"""Run a campaign from the editor: every operator in the workspace, one background job with
cancellable progress (operators done, evaluations, best, ETA); the report's path at the end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pydantic import BaseModel, Field, ValidationError

from ascendopt.agent.strategies import DEFAULT_STRATEGY, Strategy
from ascendopt.campaign.pools import LocalPool
from ascendopt.campaign.records import CampaignSettings
from ascendopt.campaign.service import CampaignProgress, CampaignService
from ascendopt.campaign.store import CampaignStore
from ascendopt.lsp import protocol
from ascendopt.lsp.index import Folders
from ascendopt.lsp.jobs import AlreadyRunning, Job, WorkDone, unless_cancelled
from ascendopt.lsp.server import AscendServer
from ascendopt.report.campaign import partial_note, write_reports
from ascendopt.workspace import find_workspace_root

LOCAL_JOBS = 2  # episodes (and benchmark tasks planned) at once in the editor's campaign: a core each


class CampaignArgs(BaseModel):
    """The command's optional argument: {paths?, budget?, strategies?}; defaults from settings."""

    paths: list[Path] = Field(default_factory=list)
    budget: int | None = Field(default=None, ge=4)
    strategies: list[Strategy] = Field(
        default_factory=lambda: list[Strategy]([DEFAULT_STRATEGY]), min_length=1
    )


def register(ls: AscendServer) -> None:
    @ls.command(protocol.CAMPAIGN)
    async def campaign_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        try:
            parsed = CampaignArgs.model_validate(args[0] if args and isinstance(args[0], dict) else {})
        except ValidationError as exc:
            message = f"campaign: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            return {"status": "error", "message": message}
        settings = await ls.current_settings()
        folders = parsed.paths or list(ls.state(Folders).index.folders)
        if not folders:
            return {"status": "error", "message": "campaign: no workspace folder"}
        service = CampaignService(find_workspace_root(folders[0]))
        # Planning discovers every operator under the folders: disk work kept off the event loop.
        record = await asyncio.to_thread(
            service.plan,
            CampaignSettings(
                paths=folders,
                budget=parsed.budget or max(settings.budget, 4),
                strategies=parsed.strategies,
                backend=settings.backend,
                soc=settings.soc,
            ),
            LOCAL_JOBS,
        )

        async def work(job: Job) -> None:
            progress = WorkDone(ls, job)
            await progress.begin(f"{len(record.tasks)} episode(s) over {len(folders)} folder(s)")

            def on_progress(p: CampaignProgress) -> None:
                best = f"best {p.best_speedup:.2f}x" if p.best_speedup else "best -"
                eta = f" · ETA {int(p.eta_s // 60)}:{int(p.eta_s % 60):02d}" if p.eta_s is not None else ""
                progress.report(
                    f"{p.done}/{p.total} done · {p.failed} failed · {p.evaluations}/{p.budget} evaluations"
                    f" · {best}{eta}",
                    min(100, int(100 * p.evaluations / max(p.budget, 1))),
                )

            task = await unless_cancelled(job, service.run(record, LocalPool(LOCAL_JOBS), on_progress))
            if task is None:
                done = sum(1 for t in record.tasks if t.status == "done")
                message = (
                    f"campaign {record.id} cancelled, partial: {done} of {len(record.tasks)} tasks done; "
                    "run it again to continue"
                )
                progress.end(message)
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
                return
            folder = CampaignStore(service.workspace, record.id).folder
            report = write_reports(task.result(), folder, service.workspace)
            path = folder / "report.html"
            lines = [
                f"{s.strategy}: {s.correct}/{s.operators} correct, {s.improved} improved, geomean "
                f"{s.geomean:.3f}x"
                if s.geomean
                else f"{s.strategy}: none correct"
                for s in report.strategies
            ]
            message = f"campaign {record.id}: " + "; ".join(lines) + f" — report {path}"
            if partial := partial_note(report):  # a task that crashed runs again on the next run
                message += f" ({partial})"
            progress.end(message)
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
            ls.protocol.notify(
                protocol.CAMPAIGN_ENDED, {"campaign": record.id, "report": str(path), "summary": lines}
            )

        try:
            ls.jobs.start(f"campaign:{folders[0]}", "campaign", f"Campaign {record.id}", work)
        except AlreadyRunning as exc:
            return {"status": "already-running", "message": str(exc)}
        return {"status": "started", "campaign": record.id, "tasks": len(record.tasks)}
