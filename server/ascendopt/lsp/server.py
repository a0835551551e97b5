"""The language server instance: every piece of state lives here (no module globals), so several
servers (tests, TCP sessions) never share anything."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pygls.lsp.server import LanguageServer

from ascendopt.agent.suggestion import Suggestion
from ascendopt.evaluation.records import Evaluation
from ascendopt.lsp.buffers import BufferOutlines
from ascendopt.lsp.episodes import EpisodeService, ServiceFactory
from ascendopt.lsp.evaluators import EvaluatorFactory, Evaluators
from ascendopt.lsp.index import WorkspaceIndex
from ascendopt.lsp.jobs import JobRegistry
from ascendopt.lsp.settings import Settings
from ascendopt.operators.discovery import Discovery, discover
from ascendopt.workspace import find_workspace_root

log = logging.getLogger(__name__)

CONFIGURATION_WAIT_S = 5.0


def _version() -> str:
    try:
        return version("ascendopt")
    except PackageNotFoundError:
        return "0+unknown"


class LastRun(BaseModel):
    """The last Verify/Profile of one operator: what was asked, and what came back."""

    action: Literal["verify", "profile"]
    case: str | None = None
    evaluation: Evaluation


class AscendServer(LanguageServer):
    def __init__(self, service_factory: ServiceFactory, evaluator_factory: EvaluatorFactory) -> None:
        super().__init__("ascendopt", _version())
        self.settings = Settings()
        self.index = WorkspaceIndex()
        self.outlines = BufferOutlines()  # function spans of open documents, per version
        self.early: dict[Path, asyncio.Future[None]] = {}  # open documents' operators, found first
        self.indexed = asyncio.Event()
        self.configured = asyncio.Event()  # set once workspace/configuration has been read (or skipped)
        self.jobs = JobRegistry()
        self.last_runs: dict[str, LastRun] = {}  # by operator key
        self.last_profiles: dict[str, Evaluation] = {}  # by operator key; outlives a later Verify
        self.suggestions: dict[str, Suggestion] = {}  # offered and not yet decided, by id
        self.decided: dict[str, str] = {}  # id → "accepted"/"rejected" this session: decide once
        self.published: set[str] = set()  # URIs that carry our diagnostics now
        self.pending_refresh: dict[str, asyncio.TimerHandle] = {}  # debounced re-index/re-verify
        self._service_factory = service_factory
        self._services: dict[Path, EpisodeService] = {}
        self.evaluators = Evaluators(evaluator_factory)  # one per workspace folder and backend
        self._background: set[asyncio.Future[Any]] = set()

    def service_for(self, workspace: Path) -> EpisodeService:
        """One episode service per workspace folder: it owns that folder's .ascendopt/."""
        if workspace not in self._services:
            self._services[workspace] = self._service_factory(workspace)
        return self._services[workspace]

    def discover(self, root: Path) -> Discovery:
        """`discover` with the specs the user keeps outside the workspace (`ascendopt.specs`)."""
        return discover(root, self.settings.spec_paths(self.index.folder_of(root) or root))

    async def current_settings(self) -> Settings:
        """The settings, after the first workspace/configuration answer (a client slow to answer
        gets a few seconds, then the initializationOptions apply)."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.configured.wait(), CONFIGURATION_WAIT_S)
        return self.settings

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
        return find_workspace_root(op_root, fallback=self.index.folder_of(op_root) or op_root)
