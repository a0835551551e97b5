"""The build context of an operator project: every file its build reads, as the layout lays it out.

An msOpGen project's build reads `build.sh`, `CMakePresets.json`, `CMakeLists.txt`, `cmake/`,
`scripts/`, `framework/`, and the sources and headers under `op_host/` and `op_kernel/`; a
kernel-launch sample's reads `CMakeLists.txt`, `cmake/*.cmake`, `main.cpp`, the kernel, any local
header (`data_utils.h`, `*_tiling.h`) and `scripts/`. Both are "the operator folder minus what a
build or a run writes": what is left is what the CPU twin compiles against and what the SSH
backend uploads.
"""

from __future__ import annotations

import os
from pathlib import Path

from ascendopt.operators.model import Layout

# Written by builds, runs, tools and version control: never part of what a build reads.
SKIP_DIRS = frozenset(
    {
        ".ascendopt",
        ".git",
        ".svn",
        ".hg",
        ".venv",
        "venv",
        "__pycache__",
        "node_modules",
        "build",
        "build_out",
        "out",
        "output",
        "kernel_meta",
        "CMakeFiles",
    }
)
# What a build reads, by name or suffix; data (`*.bin`), logs and binaries are left out.
BUILD_NAMES = frozenset({"CMakeLists.txt", "CMakePresets.json", "Makefile", "makefile"})
BUILD_SUFFIXES = frozenset(
    {
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".inc",
        ".inl",
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".asc",
        ".cmake",
        ".sh",
        ".py",
        ".json",
        ".toml",
        ".ini",
        ".cfg",
        ".yaml",
        ".yml",
        ".temp",  # msOpGen's cmake/util/*.temp code templates (replay_codegen.py reads them)
    }
)
MAX_FILE_BYTES = 2_000_000  # a source bigger than this is generated data, not something to upload


def project_files(root: Path, layout: Layout) -> dict[str, Path]:
    """Relative POSIX path → absolute path of every file the operator's build reads.

    `layout` is the discovered layout; every layout we know keeps its build inside the operator
    folder, so it decides nothing yet beyond documenting what the folder is (a CANN open-repo
    operator's repo-level headers are outside `root` and are not included).
    """
    del layout  # one rule for every layout today; kept in the signature for layouts that differ
    root = root.resolve()
    found: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        here = Path(dirpath)
        for name in sorted(filenames):
            path = here / name
            if name not in BUILD_NAMES and path.suffix not in BUILD_SUFFIXES:
                continue
            try:
                if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                    continue
            except OSError:
                continue
            found[path.relative_to(root).as_posix()] = path
    return found
