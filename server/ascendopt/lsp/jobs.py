"""Long work in the background: one job per (operator, slot), each with its own cancel event and
work-done progress the client can cancel.

pygls does not stop a running command on `$/cancelRequest`; what reaches us is
`window/workDoneProgress/cancel`, which cancels the future pygls keeps for the token.
We turn that into the job's cancel event, which the service watches.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

T = TypeVar("T")

Slot = Literal["episode", "evaluation", "mining", "campaign"]


@dataclass
class Job:
    key: str  # the operator key
    slot: Slot
    title: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    status: str = "starting"  # the last progress message, for "already running (…)"
    task: asyncio.Task[None] | None = None


class AlreadyRunning(Exception):
    def __init__(self, job: Job) -> None:
        super().__init__(f"{job.title} is already running ({job.status})")
        self.job = job


class JobRegistry:
    def __init__(self) -> None:
        self._jobs: dict[tuple[str, Slot], Job] = {}

    def running(self, key: str, slot: Slot) -> Job | None:
        return self._jobs.get((key, slot))

    def all(self) -> list[Job]:
        return list(self._jobs.values())

    def start(self, key: str, slot: Slot, title: str, work: Callable[[Job], Awaitable[None]]) -> Job:
        """Run `work(job)` as a task; AlreadyRunning if this operator's slot is busy."""
        if (current := self._jobs.get((key, slot))) is not None:
            raise AlreadyRunning(current)
        job = Job(key=key, slot=slot, title=title)
        self._jobs[(key, slot)] = job

        async def run() -> None:
            try:
                await work(job)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The handler reports to the user; this keeps the traceback for the output channel.
                log.exception("%s failed", title)
            finally:
                self._jobs.pop((key, slot), None)

        job.task = asyncio.create_task(run(), name=title)
        return job

    async def stop_all(self) -> None:
        jobs = self.all()
        for job in jobs:
            job.cancel.set()
        tasks = [j.task for j in jobs if j.task is not None]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=5)
            for t in pending:
                t.cancel()


class WorkDone:
    """A server-initiated work-done progress bound to a job's cancel event.

    Without client support for `window.workDoneProgress` every call is a no-op: the work still
    runs, and its result still arrives by notification.
    """

    def __init__(self, ls: LanguageServer, job: Job) -> None:
        self._ls = ls
        self._job = job
        self._token: str | None = None

    async def begin(self, message: str, *, cancellable: bool = True) -> None:
        self._job.status = message
        caps = self._ls.client_capabilities.window
        if not (caps and caps.work_done_progress):
            return
        token = f"ascendopt-{uuid.uuid4().hex[:12]}"
        try:
            await self._ls.work_done_progress.create_async(token)
        except Exception:
            log.warning("client refused a progress token; continuing without progress")
            return
        self._token = token
        loop = asyncio.get_running_loop()
        self._ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=self._job.title, message=message, cancellable=cancellable, percentage=0
            ),
        )
        future = self._ls.work_done_progress.tokens[token]
        future.add_done_callback(lambda f: f.cancelled() and loop.call_soon_threadsafe(self._job.cancel.set))

    def report(self, message: str, percentage: int | None = None) -> None:
        self._job.status = message
        if self._token is not None:
            self._ls.work_done_progress.report(
                self._token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    def end(self, message: str) -> None:
        self._job.status = message
        if self._token is not None:
            self._ls.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=message))
            self._ls.work_done_progress.tokens.pop(self._token, None)
            self._token = None


async def unless_cancelled(job: Job, work: Awaitable[T]) -> asyncio.Task[T] | None:
    """Run `work` until it finishes or the job is cancelled (then it is cancelled too and None
    comes back); the finished task otherwise, so its exception or result can be taken."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(job.cancel.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if not task.done():
        task.cancel()
        return None
    return task
