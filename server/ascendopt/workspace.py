"""Which folder is the workspace (the one holding `.ascendopt/`: bank, episodes, campaigns).

One rule for the CLI and the language server, so that `optimize` run in an operator's folder and
`experience list` run from its parent use the same bank: walk up from where the work is to the
nearest folder that already holds `.ascendopt/`, or else the nearest VCS root; else the folder
given (the editor's workspace folder, or where the command was pointed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

STATE_DIR = ".ascendopt"
# A folder holding one of these is a repository's root: the walk stops there, so that a stray
# `.ascendopt/` above a checkout (in the home folder, say) never captures the repository's work.
VCS_MARKERS = (".git", ".hg", ".svn", ".jj")


def find_workspace_root(start: Path, fallback: Path | None = None) -> Path:
    """The innermost folder at or above `start` holding an existing `.ascendopt/` folder or a VCS
    root, whichever comes first on the way up; `fallback` (default: `start`) when none does.
    `start` may be a file: the walk begins at its folder."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / STATE_DIR).is_dir():
            return folder
        if any((folder / marker).exists() for marker in VCS_MARKERS):
            return folder
    return (fallback or here).resolve()


def _state_file() -> Path:
    """Where `optimize` records which workspace it used for the folder it ran from: outside every
    project (`$XDG_STATE_HOME/ascendopt/`, default `~/.local/state/ascendopt/`)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ascendopt" / "workspaces.json"


RECORD_LIMIT = 500  # folders remembered; the oldest are forgotten first


def _records() -> dict[str, str]:
    try:
        data = json.loads(_state_file().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remember_workspace(folder: Path, workspace: Path) -> None:
    """Record that a command writing the bank, run from `folder`, used `workspace` (best effort: an
    unwritable state folder loses the record, never the run)."""
    records = _records()
    key = str(folder.resolve())
    records.pop(key, None)
    records[key] = str(workspace.resolve())
    kept = dict(list(records.items())[-RECORD_LIMIT:])
    path = _state_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(kept, indent=1))
        tmp.replace(path)
    except OSError:
        pass


def remembered_workspace(folder: Path) -> Path | None:
    """The workspace the last `optimize` run from `folder` used, if recorded and still there."""
    found = _records().get(str(folder.resolve()))
    if found is None or not (Path(found) / STATE_DIR).is_dir():
        return None
    return Path(found)


def choose_workspace(start: Path, *, cwd: Path | None = None) -> tuple[Path, str]:
    """The workspace and why, in words for the `bank:` line: the one the last `optimize` from `cwd`
    used (when `cwd` is given: read-only commands), else `find_workspace_root(start)`."""
    if cwd is not None and (found := remembered_workspace(cwd)) is not None:
        return found, "the last `ascendopt optimize` run from this folder used it"
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / STATE_DIR).is_dir():
            return folder, f"the nearest {STATE_DIR}/ at or above {here}"
        if any((folder / marker).exists() for marker in VCS_MARKERS):
            return folder, f"the repository holding {here}"
    return here, f"no {STATE_DIR}/ or repository at or above {here}"
