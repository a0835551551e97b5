"""Show experience: the lessons in the workspace's bank, for the client to list (the VS Code
extension renders them; other clients get the JSON)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from ascendopt.experience.bank import Bank
from ascendopt.experience.records import ExperienceEntry
from ascendopt.experience.schema import SchemaError
from ascendopt.lsp import protocol
from ascendopt.lsp.index import Folders
from ascendopt.lsp.locations import uri_to_path
from ascendopt.lsp.server import AscendServer
from ascendopt.workspace import find_workspace_root


def register(ls: AscendServer) -> None:
    @ls.command(protocol.SHOW_EXPERIENCE)
    async def show_experience(ls: AscendServer, *args: Any) -> dict[str, Any]:
        first = args[0] if args and isinstance(args[0], dict) else {}
        where = workspace_of(ls, first)
        if where is None:
            return {"lessons": [], "message": "no workspace folder"}
        family = first.get("family") if isinstance(first.get("family"), str) else None
        limit = int(first.get("limit", 50))
        try:
            lessons = await asyncio.to_thread(_lessons, where, family, limit)
        except SchemaError as exc:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=str(exc)))
            return {"lessons": [], "message": str(exc)}
        return {"workspace": str(where), "count": len(lessons), "lessons": lessons}


def workspace_of(ls: AscendServer, arg: dict[str, Any]) -> Path | None:
    path = None
    if isinstance(arg.get("operatorRoot"), str):
        path = Path(arg["operatorRoot"]).resolve()
    elif isinstance(arg.get("uri"), str):
        path = uri_to_path(arg["uri"])
    if path is not None:
        return ls.workspace_of(path)
    folders = ls.state(Folders).index.folders
    return find_workspace_root(folders[0]) if folders else None


def newest_lessons(workspace: Path, family: str | None, limit: int) -> list[ExperienceEntry]:
    """The bank's lessons, newest first (the list the editor shows, here and in the sidebar)."""
    with Bank.open(workspace) as bank:
        entries = bank.all(family)
    return sorted(entries, key=lambda e: e.created, reverse=True)[:limit]


def _lessons(workspace: Path, family: str | None, limit: int) -> list[dict[str, Any]]:
    newest = newest_lessons(workspace, family, limit)
    return [
        {
            "id": e.id,
            "title": e.title,
            "family": e.family,
            "bottleneck": e.bottleneck,
            "bound": e.bound,
            "timing": e.timing,
            "slowUs": e.slow_us,
            "fastUs": e.fast_us,
            "provenance": e.provenance,
            "operator": e.operator,
        }
        for e in newest
    ]
