"""The episodes recorded in a workspace, newest first, as one line each: what the editor's sidebar
lists. Reads each episode's summary.json (written when it ends); an episode without one is running
or was interrupted."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from ascendopt.journal.store import episodes_dir


class EpisodeListing(BaseModel):
    id: str
    operator: str
    ended: bool
    cancelled: bool = False
    message: str = ""
    best_speedup: float | None = None
    evaluations: int = 0


def recent_episodes(workspace: Path, limit: int = 20) -> list[EpisodeListing]:
    folder = episodes_dir(workspace)
    if not folder.is_dir():
        return []
    out = []
    for d in sorted((p for p in folder.iterdir() if p.is_dir()), key=lambda p: p.name, reverse=True)[:limit]:
        try:
            raw = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = None
        if not isinstance(raw, dict):
            out.append(EpisodeListing(id=d.name, operator=_operator_of(d.name), ended=False))
            continue
        out.append(
            EpisodeListing(
                id=d.name,
                operator=str(raw.get("operator") or _operator_of(d.name)),
                ended=True,
                cancelled=bool(raw.get("cancelled")),
                message=str(raw.get("message") or ""),
                best_speedup=raw.get("best_speedup")
                if isinstance(raw.get("best_speedup"), (int, float))
                else None,
                evaluations=int(raw.get("evaluations") or 0),
            )
        )
    return out


def _operator_of(episode_id: str) -> str:
    """`20260101-120000-add_custom-a1b2c3` → `add_custom` (agent/service.py new_episode_id)."""
    parts = episode_id.split("-")
    return "-".join(parts[2:-1]) if len(parts) >= 4 else episode_id
