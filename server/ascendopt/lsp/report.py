"""Show report: the episode report (report/episode.py) as one HTML page the client shows in a
webview. The page is the one `ascendopt report` writes; the client renders nothing itself."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ascendopt.lsp import protocol
from ascendopt.lsp.index import Folders
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.targets import TargetError, parse_target, resolve
from ascendopt.report import episode as episode_report


def register(ls: AscendServer) -> None:
    @ls.command(protocol.EPISODE_REPORT)
    async def report_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await report(ls, args)


def _folders(ls: AscendServer) -> list[Path]:
    return list(ls.state(Folders).index.folders)


async def report(ls: AscendServer, args: tuple[Any, ...]) -> dict[str, Any]:
    """[{episode}] → that episode; [{uri} | {operatorRoot, name}] → the operator's newest episode.
    Answers {episode, title, html}, or {error} saying what was not found."""
    first = args[0] if args else None
    episode = first.get("episode") if isinstance(first, dict) else None
    if episode:
        folders = [f for f in _folders(ls) if (f / ".ascendopt" / "episodes" / str(episode)).is_dir()]
        if not folders:
            return {"error": f"no episode {episode!r} in this workspace"}
        workspace, name = folders[0], str(episode)
    else:
        try:
            op = await resolve(ls, parse_target(args))
        except TargetError as exc:
            return {"error": str(exc)}
        workspace = ls.workspace_of(op.root)
        found = episode_report.latest(workspace, op.name)
        if found is None:
            return {"error": f"{op.name} has no episode yet: run Optimize first"}
        name = found
    html = await asyncio.to_thread(episode_report.page, workspace, name)
    return {"episode": name, "title": f"Episode {name}", "html": html}
