"""One evaluator per workspace folder and backend setting, for every Verify, Profile, Mine and episode.

An SSH backend's evaluator holds connections; making one per request would open fresh
connections every time and never close them. Here each workspace keeps the evaluator of its
current (backend, SoC) setting; when the setting changes, the old one is closed as soon as the
work still using it has finished, and every one is closed when the server shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.lsp.settings import Settings

log = logging.getLogger(__name__)

EvaluatorFactory = Callable[[Settings, Path], Evaluator]  # settings, workspace folder


@dataclass(eq=False)
class _Entry:
    key: tuple[str, str | None]  # (backend, soc)
    evaluator: Evaluator
    users: int = 0
    retired: bool = False
    closed: bool = False


def _key(settings: Settings) -> tuple[str, str | None]:
    return (settings.backend, settings.soc)


class Evaluators:
    def __init__(self, factory: EvaluatorFactory) -> None:
        self._factory = factory
        self._current: dict[Path, _Entry] = {}
        self._retired: set[_Entry] = set()  # still in use: closed when the last use ends
        self._closing: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def use(self, settings: Settings, workspace: Path) -> AsyncIterator[Evaluator]:
        """The workspace's evaluator for `settings`, kept open until this use ends.

        Raises what the factory raises (a bad backend string or remote settings file)."""
        entry = self._current.get(workspace)
        if entry is None or entry.key != _key(settings):
            if entry is not None:
                self._retire(workspace)
            entry = _Entry(key=_key(settings), evaluator=self._factory(settings, workspace))
            self._current[workspace] = entry
        entry.users += 1
        try:
            yield entry.evaluator
        finally:
            entry.users -= 1
            if entry.retired and entry.users == 0:
                self._close_later(entry)

    def settings_changed(self, settings: Settings) -> None:
        """Retire every evaluator made for another backend or SoC (closed once unused)."""
        for workspace, entry in list(self._current.items()):
            if entry.key != _key(settings):
                self._retire(workspace)

    def _retire(self, workspace: Path) -> None:
        entry = self._current.pop(workspace)
        entry.retired = True
        if entry.users == 0:
            self._close_later(entry)
        else:
            self._retired.add(entry)

    def _close_later(self, entry: _Entry) -> None:
        self._retired.discard(entry)
        if entry.closed:
            return
        entry.closed = True
        task = asyncio.ensure_future(self._close(entry))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    @staticmethod
    async def _close(entry: _Entry) -> None:
        try:
            await entry.evaluator.close()
        except Exception:
            log.exception("closing the %s evaluator failed", entry.key[0])

    async def close(self) -> None:
        """Close every evaluator, in use or not (at shutdown, once the jobs have been stopped)."""
        for workspace in list(self._current):
            self._retire(workspace)
        for entry in list(self._retired):
            self._close_later(entry)
        if self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)
