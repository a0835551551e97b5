"""Reading an operator's C++ sources: the folders discovery never walks, the size past which a
file is no operator source, the suffixes of kernel files."""

from __future__ import annotations

from pathlib import Path

from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue

SKIP_DIRS = {".git", ".ascendopt", ".venv", "node_modules", "build", "build_out", "__pycache__", "out"}
MAX_SOURCE_BYTES = 2_000_000
KERNEL_SUFFIXES = (".cpp", ".cc", ".cxx", ".asc")


def read_source(path: Path, issues: list[Issue]) -> CppSource | None:
    """`path` parsed, or None with the reason in `issues` (unreadable, not UTF-8, too large)."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            issues.append(
                Issue(file=str(path), message="file is too large to be an operator source; skipped")
            )
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        issues.append(Issue(file=str(path), message=f"cannot read: {exc}"))
        return None
    return CppSource.parse(path.name, text)


def relative(src: CppSource, root: Path, path: Path) -> CppSource:
    """`src` named by its path relative to the operator root."""
    src.path = str(path.relative_to(root))
    return src
