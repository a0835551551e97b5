"""What the server knows about the workspace's operators: one Discovery per workspace folder,
refreshed per operator root as files change. Pure bookkeeping; discovery itself is the
operators service and runs in a worker thread (see sync.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ascendopt.lsp.feature import FeatureState
from ascendopt.operators.discovery import Discovery
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import OperatorProject

WATCHED_SUFFIXES = (".cpp", ".h", ".hpp", ".cc", ".toml", ".py")


def op_key(op: OperatorProject) -> str:
    return f"{op.root}::{op.name}"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class WorkspaceIndex:
    def __init__(self) -> None:
        self._folders: dict[Path, Discovery] = {}
        # Operators of open documents, discovered on their own before their folder's full index
        # is in (by operator root); dropped once the folder holding them is indexed.
        self._early: dict[Path, Discovery] = {}
        self._owners: dict[Path, list[OperatorProject]] | None = None  # file → operators; per change

    @property
    def folders(self) -> list[Path]:
        return list(self._folders)

    def declare(self, folder: Path) -> None:
        """A workspace folder whose index is still being built: paths inside it belong to it."""
        self._folders.setdefault(folder, Discovery())
        self._owners = None

    def set_folder(self, folder: Path, discovery: Discovery) -> None:
        self._folders[folder] = discovery
        self._owners = None
        for root in [r for r in self._early if _inside(r, folder)]:
            del self._early[root]

    def set_early(self, root: Path, discovery: Discovery) -> None:
        self._early[root] = discovery
        self._owners = None

    def has_root(self, root: Path) -> bool:
        return any(op.root == root for op in self.operators())

    def drop_folder(self, folder: Path) -> None:
        self._folders.pop(folder, None)
        self._owners = None

    def folder_of(self, path: Path) -> Path | None:
        """The innermost indexed workspace folder holding `path`."""
        holders = [f for f in self._folders if _inside(path, f)]
        return max(holders, key=lambda f: len(f.parts)) if holders else None

    def operators(self) -> list[OperatorProject]:
        indexed = [op for d in self._folders.values() for op in d.operators]
        roots = {op.root for op in indexed}
        early = [op for d in self._early.values() for op in d.operators if op.root not in roots]
        return indexed + early

    def loose_issues(self) -> list[Issue]:
        """Problems discovery could not pin on one operator (their `file` is absolute)."""
        return [i for d in self._folders.values() for i in d.issues]

    def get(self, key: str) -> OperatorProject | None:
        return next((op for op in self.operators() if op_key(op) == key), None)

    def find(self, root: Path, name: str | None = None) -> OperatorProject | None:
        here = [op for op in self.operators() if op.root == root and (name is None or op.name == name)]
        return here[0] if len(here) == 1 else None

    def owner_of(self, path: Path) -> list[OperatorProject]:
        """Operators that own `path`: one of their files first, else the innermost root holding it."""
        if self._owners is None:
            # Asked on every lens, hover and code action: one map per index change, not a scan.
            owners: dict[Path, list[OperatorProject]] = {}
            for op in self.operators():
                for rel in dict.fromkeys(op.files.all()):
                    owners.setdefault(op.root / rel, []).append(op)
                if op.external_spec is not None:  # kept outside the tree (`ascendopt.specs`)
                    owners.setdefault(op.external_spec, []).append(op)
            self._owners = owners
        exact = self._owners.get(path)
        if exact:
            return list(exact)
        ops = self.operators()
        holders = [op for op in ops if _inside(path, op.root)]
        if not holders:
            return []
        deepest = max(len(op.root.parts) for op in holders)
        return [op for op in holders if len(op.root.parts) == deepest]

    def replace_root(
        self, root: Path, found: Discovery
    ) -> tuple[list[OperatorProject], list[OperatorProject]]:
        """Swap the operators rooted at `root` for a fresh discovery of it; returns (removed, added)."""
        folder = self.folder_of(root)
        if folder is None:
            return [], []
        d = self._folders[folder]
        removed = [op for op in d.operators if op.root == root]
        added = [op for op in found.operators if op.root == root]
        d.operators = sorted(
            [op for op in d.operators if op.root != root] + added, key=lambda o: (str(o.root), o.name)
        )
        self._owners = None
        return removed, added


class Folders(FeatureState):
    """The workspace folders' operators (written by sync.py: indexing, re-indexing on change)."""

    def __init__(self) -> None:
        self.index = WorkspaceIndex()
        self.indexed = asyncio.Event()  # set once every folder has been indexed
