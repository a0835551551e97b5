"""Keeping up with the workspace: settings at initialize, the operator index built in the background,
re-discovery of an operator when its files are saved or change on disk, and re-verification when
the last run had problems (so fixed diagnostics clear)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types

from ascendopt.lsp import diagnostics, edit_checks, evaluate, logs, protocol, settings
from ascendopt.lsp.buffers import Documents
from ascendopt.lsp.index import WATCHED_SUFFIXES, Folders, op_key
from ascendopt.lsp.locations import path_to_uri, uri_to_path
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.settings import Configuration
from ascendopt.operators.discovery import operator_root_of
from ascendopt.operators.model import OperatorProject
from ascendopt.redact import LLM_KEY

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.2  # a save also arrives as a watched-file change: handle both once


def register(ls: AscendServer) -> None:
    @ls.feature(types.INITIALIZE)
    def initialize(ls: AscendServer, params: types.InitializeParams) -> None:
        config = ls.state(Configuration)
        config.settings, problems = settings.from_initialization_options(params.initialization_options)
        if config.settings.api_key is not None:
            logs.register_secret(config.settings.api_key.get_secret_value())
        logs.register_secret(LLM_KEY.read())  # the environment's key (taken out of the environment)
        for problem in problems:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=problem))

    @ls.feature(types.INITIALIZED)
    async def initialized(ls: AscendServer, params: types.InitializedParams) -> None:
        ls.background(index_workspace(ls, _workspace_folders(ls)))
        await _register_watchers(ls)
        try:
            await pull_configuration(ls)
        finally:
            ls.state(Configuration).configured.set()

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: AscendServer, params: types.DidChangeConfigurationParams) -> None:
        await pull_configuration(ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(ls: AscendServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for gone in params.event.removed:
            if (path := uri_to_path(gone.uri)) is not None:
                ls.state(Folders).index.drop_folder(path)
        added = [p for f in params.event.added if (p := uri_to_path(f.uri)) is not None]
        await index_workspace(ls, added)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: AscendServer, params: types.DidSaveTextDocumentParams) -> None:
        if (path := uri_to_path(params.text_document.uri)) is not None:
            schedule_refresh(ls, path)

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AscendServer, params: types.DidOpenTextDocumentParams) -> None:
        if (path := uri_to_path(params.text_document.uri)) is not None:
            index_open_document(ls, path)
            unchecked = [
                op
                for op in ls.state(Folders).index.owner_of(path)
                if op_key(op) not in ls.state(edit_checks.EditChecks).results
                and op_key(op) not in ls.state(edit_checks.EditChecks).tasks
            ]
            edit_checks.schedule(ls, unchecked)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AscendServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.state(Documents).outlines.forget(params.text_document.uri)
        # Diagnostic ranges were cut to the buffer's lines; the disk's may differ.
        diagnostics.publish(ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: AscendServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is not None and (
                path.suffix in WATCHED_SUFFIXES or change.type == types.FileChangeType.Deleted
            ):
                schedule_refresh(ls, path)

    @ls.feature(types.SHUTDOWN)
    async def shutdown(ls: AscendServer, params: None) -> None:
        for handle in ls.state(Documents).pending_refresh.values():
            handle.cancel()
        ls.state(Documents).pending_refresh.clear()
        for task in ls.state(edit_checks.EditChecks).tasks.values():
            task.cancel()
        await ls.jobs.stop_all()
        await ls.evaluators.close()


def _workspace_folders(ls: AscendServer) -> list[Path]:
    folders = [p for f in ls.workspace.folders.values() if (p := uri_to_path(f.uri)) is not None]
    if not folders and ls.workspace.root_path:
        folders = [Path(ls.workspace.root_path).resolve()]
    return folders


def index_open_document(ls: AscendServer, path: Path) -> None:
    """Open documents first: while the workspace is still being indexed, discover the one operator
    holding an opened file on its own, so its lenses need not wait for the whole workspace."""
    if ls.state(Folders).indexed.is_set() or ls.state(Folders).index.owner_of(path):
        return
    root = operator_root_of(path, ls.state(Folders).index.folder_of(path))
    if root is None or root in ls.state(Documents).early:
        return
    ls.state(Documents).early[root] = asyncio.ensure_future(_index_early(ls, root))


async def _index_early(ls: AscendServer, root: Path) -> None:
    try:
        found = await asyncio.to_thread(ls.discover, root)
    except Exception:
        log.exception("indexing %s failed", root)
        return
    if ls.state(Folders).indexed.is_set():
        return  # the full index came first
    ls.state(Folders).index.set_early(root, found)
    diagnostics.publish(ls)
    evaluate.refresh_lenses(ls)


async def index_workspace(ls: AscendServer, folders: list[Path]) -> None:
    """Discover every operator in `folders` off the event loop, then publish what was found."""
    for folder in folders:
        ls.state(Folders).index.declare(folder)
    for folder in folders:
        try:
            found = await asyncio.to_thread(ls.discover, folder)
        except Exception:
            log.exception("indexing %s failed", folder)
            continue
        ls.state(Folders).index.set_folder(folder, found)
    ls.state(Folders).indexed.set()
    diagnostics.publish(ls)
    evaluate.refresh_lenses(ls)
    notify_index(ls)
    edit_checks.schedule(ls, edit_checks.with_open_files(ls, ls.state(Folders).index.operators()))


def notify_index(ls: AscendServer) -> None:
    """What the index holds now (the VS Code client shows it in its language status item)."""
    params = protocol.IndexedParams(
        folders=[str(f) for f in ls.state(Folders).index.folders],
        operators=[
            protocol.IndexedOperator(
                name=op.name, root=str(op.root), kernel=path_to_uri(op.root / op.files.kernel)
            )
            for op in ls.state(Folders).index.operators()
        ],
    )
    ls.protocol.notify(protocol.INDEXED, params.wire())


async def pull_configuration(ls: AscendServer) -> None:
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=settings.SECTION)])
        )
    except Exception:
        log.warning("workspace/configuration failed; keeping the settings from initialize")
        return
    config = ls.state(Configuration)
    specs = config.settings.specs
    config.settings, problems = settings.with_configuration(config.settings, answer[0] if answer else None)
    ls.evaluators.settings_changed(config.settings)  # another backend: the old one's connections close
    if config.settings.specs != specs:  # other specs outside the tree: every operator may have another
        ls.background(index_workspace(ls, list(ls.state(Folders).index.folders)))
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=problem))
    log.info("settings: %s", config.settings.public())


async def _register_watchers(ls: AscendServer) -> None:
    caps = ls.client_capabilities.workspace
    dyn = caps.did_change_watched_files if caps else None
    if not (dyn and dyn.dynamic_registration):
        return  # the client watches on its own (the VS Code extension does) or not at all
    glob = "**/*.{" + ",".join(s.lstrip(".") for s in WATCHED_SUFFIXES) + "}"
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=glob)]
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="ascendopt-watch",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception:
        log.warning("the client refused file watching; re-indexing on save only")


def schedule_refresh(ls: AscendServer, path: Path) -> None:
    """Re-discover the operator owning `path` (or the whole folder for a new one), debounced."""
    owners = ls.state(Folders).index.owner_of(path)
    roots = {op.root for op in owners}
    if not roots and (folder := ls.state(Folders).index.folder_of(path)) is not None:
        roots = {folder}
    loop = asyncio.get_running_loop()
    for root in roots:
        key = str(root)
        if (handle := ls.state(Documents).pending_refresh.pop(key, None)) is not None:
            handle.cancel()
        ls.state(Documents).pending_refresh[key] = loop.call_later(DEBOUNCE_S, _spawn, ls, root)


def _spawn(ls: AscendServer, root: Path) -> None:
    ls.background(refresh_root(ls, root))


async def refresh_root(ls: AscendServer, root: Path) -> None:
    ls.state(Documents).pending_refresh.pop(str(root), None)
    before = {op_key(op) for op in ls.state(Folders).index.operators()}
    found = await asyncio.to_thread(ls.discover, root)
    if root in ls.state(Folders).index.folders:
        ls.state(Folders).index.set_folder(root, found)
        removed: list[OperatorProject] = []
        current = found.operators
    else:
        removed, current = ls.state(Folders).index.replace_root(root, found)
    for op in removed:
        if not any(op_key(o) == op_key(op) for o in current):
            ls.state(Runs).last_runs.pop(op_key(op), None)
            ls.state(Runs).last_profiles.pop(op_key(op), None)
    diagnostics.publish(ls)
    evaluate.refresh_lenses(ls)
    if {op_key(op) for op in ls.state(Folders).index.operators()} != before:
        notify_index(ls)
    edit_checks.schedule(ls, edit_checks.with_open_files(ls, current))
    # Fixed (or not): re-run the last Verify/Profile of operators whose last run left problems.
    await asyncio.gather(*(evaluate.reverify(ls, op) for op in current), return_exceptions=True)
