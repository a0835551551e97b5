"""Which folder is the workspace (the one holding `.ascendopt/`: bank, episodes, campaigns).

One rule for the CLI and the language server, so that `optimize` run in an operator's folder and
`experience list` run from its parent use the same bank: walk up from where the work is to the
nearest folder that already holds `.ascendopt/`, or else the nearest VCS root; else the folder
given (the editor's workspace folder, or where the command was pointed).
"""

from __future__ import annotations

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
