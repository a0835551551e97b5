"""Templates from the editor: the list (one line each) and a copy into a folder the user picked;
the walkthrough's first step opens one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ascendopt.lsp import protocol
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.templates import TemplateError, copy_template, list_templates


def register(ls: AscendServer) -> None:
    @ls.command(protocol.LIST_TEMPLATES)
    async def templates(ls: AscendServer, *args: Any) -> list[dict[str, str]]:
        return [t.model_dump() for t in await asyncio.to_thread(list_templates)]

    @ls.command(protocol.COPY_TEMPLATE)
    async def copy(ls: AscendServer, *args: Any) -> dict[str, str]:
        arg = args[0] if args and isinstance(args[0], dict) else {}
        name, to = arg.get("name"), arg.get("to")
        if not isinstance(name, str) or not isinstance(to, str):
            return {"status": "error", "message": "copyTemplate needs {name, to}"}
        try:
            dest = await asyncio.to_thread(copy_template, name, Path(to))
        except (TemplateError, OSError) as exc:
            return {"status": "error", "message": str(exc)}
        return {"status": "ok", "path": str(dest)}
