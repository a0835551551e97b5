"""The language server instance: every piece of state hangs off it (no module globals), so several
servers (tests, TCP sessions) never share anything. Each feature keeps its own state
(`state(Type)`, feature.py); the server itself holds only what every feature shares by design:
the job registry (one Cancel for every kind of job), the evaluators (one per folder and backend)
and the episode services."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeVar, cast

from pygls.lsp.server import LanguageServer

from ascendopt.lsp.episodes import EpisodeService, ServiceFactory
from ascendopt.lsp.evaluators import EvaluatorFactory, Evaluators
from ascendopt.lsp.feature import FeatureState
from ascendopt.lsp.index import Folders
from ascendopt.lsp.jobs import JobRegistry
from ascendopt.lsp.settings import Configuration, Settings
from ascendopt.operators.discovery import Discovery, discover
from ascendopt.workspace import find_workspace_root

log = logging.getLogger(__name__)

S = TypeVar("S", bound=FeatureState)


def _version() -> str:
    try:
        return version("ascendopt")
    except PackageNotFoundError:
        return "0+unknown"


class AscendServer(LanguageServer):
    def __init__(self, service_factory: ServiceFactory, evaluator_factory: EvaluatorFactory) -> None:
        super().__init__("ascendopt", _version())
        self._features: dict[type[FeatureState], FeatureState] = {}
        self.jobs = JobRegistry()
        self._service_factory = service_factory
        self._services: dict[Path, EpisodeService] = {}
        self.evaluators = Evaluators(evaluator_factory)  # one per workspace folder and backend
        self._background: set[asyncio.Future[Any]] = set()

    def state(self, kind: type[S]) -> S:
        """The state of one feature, made on first use (feature.py)."""
        state = self._features.get(kind)
        if state is None:
            state = self._features[kind] = kind()
        return cast(S, state)

    def service_for(self, workspace: Path) -> EpisodeService:
        """One episode service per workspace folder: it owns that folder's .ascendopt/."""
        if workspace not in self._services:
            self._services[workspace] = self._service_factory(workspace)
        return self._services[workspace]

    def discover(self, root: Path) -> Discovery:
        """`discover` with the specs the user keeps outside the workspace (`ascendopt.specs`)."""
        index = self.state(Folders).index
        return discover(root, self.state(Configuration).settings.spec_paths(index.folder_of(root) or root))

    async def current_settings(self) -> Settings:
        """The settings, after the first workspace/configuration answer (a client slow to answer
        gets a few seconds, then the initializationOptions apply)."""
        return await self.state(Configuration).current()

    def background(self, work: Awaitable[Any]) -> None:
        """Run `work` without awaiting it, keeping a reference so the task is not collected early."""
        future = asyncio.ensure_future(work)
        self._background.add(future)
        future.add_done_callback(self._finished)

    def _finished(self, future: asyncio.Future[Any]) -> None:
        self._background.discard(future)
        if not future.cancelled() and (exc := future.exception()) is not None:
            log.error("background work failed", exc_info=exc)

    def workspace_of(self, op_root: Path) -> Path:
        """Where the operator's `.ascendopt/` is: the CLI's rule (`ascendopt.workspace`), falling back
        to the editor's folder holding it (its own root when outside every folder)."""
        index = self.state(Folders).index
        return find_workspace_root(op_root, fallback=index.folder_of(op_root) or op_root)
