"""Which operator a command means: `{uri}` (any of its files) or `{operatorRoot, name}`.

Commands always run on a fresh discovery of that operator's root, so a Verify right after a save
never uses a spec or knob list the debounced re-index has not caught up with yet.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ascendopt.lsp.index import Folders
from ascendopt.lsp.locations import uri_to_path
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.model import OperatorProject


class TargetError(ValueError):
    pass


class Target(BaseModel):
    """The first argument of every operator command, as sent by lenses, actions and clients."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    uri: str | None = None
    operator_root: str | None = Field(default=None, alias="operatorRoot")
    name: str | None = None
    case: str | None = None  # Verify/Profile: one case by name or index


def parse_target(args: tuple[Any, ...]) -> Target:
    if not args:
        raise TargetError("expected an argument {uri} or {operatorRoot, name}")
    first = args[0]
    if isinstance(first, str):
        return Target(uri=first)
    if not isinstance(first, dict):
        raise TargetError("expected an argument {uri} or {operatorRoot, name}")
    target = Target.model_validate(first)
    if target.uri is None and target.operator_root is None:
        raise TargetError("expected an argument {uri} or {operatorRoot, name}")
    return target


async def resolve(ls: AscendServer, target: Target) -> OperatorProject:
    if target.operator_root is not None:
        root, name = Path(target.operator_root).resolve(), target.name
    else:
        path = uri_to_path(target.uri or "")
        if path is None:
            raise TargetError(f"not a file URI: {target.uri}")
        owners = [op for op in ls.state(Folders).index.owner_of(path) if target.name in (None, op.name)]
        if len(owners) > 1:
            raise TargetError(
                f"{path.name} belongs to several operators ({', '.join(o.name for o in owners)}); name one"
            )
        if owners:
            root, name = owners[0].root, owners[0].name
        else:
            # Not indexed (yet): look in the file's folder and the one above (op_kernel/x.cpp).
            root, name = path.parent, target.name
            for candidate in (path.parent, path.parent.parent):
                found = await asyncio.to_thread(ls.discover, candidate)
                hit = [op for op in found.operators if any(op.root / f == path for f in op.files.all())]
                if hit:
                    root, name = hit[0].root, hit[0].name
                    break
    return await fresh(ls, root, name)


async def fresh(ls: AscendServer, root: Path, name: str | None) -> OperatorProject:
    """Re-discover `root` now, update the index with it, and return the named operator."""
    found = await asyncio.to_thread(ls.discover, root)
    ls.state(Folders).index.replace_root(root, found)
    here = [op for op in found.operators if op.root == root and name in (None, op.name)]
    if len(here) == 1:
        return here[0]
    if not here:
        raise TargetError(f"no AscendC operator {name or ''} at {root}".replace("  ", " "))
    raise TargetError(f"{root} holds several operators ({', '.join(o.name for o in here)}); name one")
