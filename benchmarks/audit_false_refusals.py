"""False refusals of the static audit (evaluation/audit.py) on real operators: must be 0.

    PYTHONPATH=server:. .venv/bin/python benchmarks/audit_false_refusals.py [--max-operators N] FOLDER ...

Finds every operator under each folder (as `ascendopt discover` does) and audits its C/C++ files
against (a) themselves and (b) no-op changes, one file at a time: a comment line added, a blank line
removed, every line re-indented, two adjacent independent declarations swapped (where there are
such). None of these changes what the code does, so every refusal printed is a false one.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ascendopt.evaluation.audit import AuditRefusal, audit_change
from ascendopt.operators.discovery import discover

CPP = (".c", ".cc", ".cpp", ".cxx", ".asc", ".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")
_DECL = re.compile(
    r"^[ \t]*(?:const(?:expr)? )?(?:u?int(?:8|16|32|64)_t|float|int|bool|auto) \w+ = [^;{}()]*;[ \t]*$"
)


def _comment_added(text: str) -> str | None:
    lines = text.split("\n")
    at = len(lines) // 2
    while at < len(lines) and not lines[at].rstrip().endswith((";", "{", "}")):
        at += 1
    return (
        "\n".join([*lines[: at + 1], "// a note, audit probe", *lines[at + 1 :]]) if at < len(lines) else None
    )


def _blank_removed(text: str) -> str | None:
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines) if not line.strip()), None)
    return None if at is None else "\n".join(lines[:at] + lines[at + 1 :])


def _reindented(text: str) -> str:
    return "\n".join(
        ("  " + line if line.strip() and not line.endswith("\\") else line) for line in text.split("\n")
    )


def _swapped(text: str) -> str | None:
    """The first two adjacent simple declarations whose initialisers do not name each other, swapped."""
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if _DECL.match(a) and _DECL.match(b):
            name_a = a.split("=")[0].split()[-1]
            if not re.search(rf"\b{re.escape(name_a)}\b", b.split("=", 1)[1]):
                return "\n".join([*lines[:i], b, a, *lines[i + 2 :]])
    return None


NOOPS: dict[str, Callable[[str], str | None]] = {
    "comment": _comment_added,
    "blank": _blank_removed,
    "reindent": _reindented,
    "swap": _swapped,
}


def _operators(folder: Path, cap: int) -> Iterator[tuple[str, dict[str, str]]]:
    found = discover(folder)
    for project in found.operators[:cap]:
        try:
            files = project.read_files()
        except (OSError, UnicodeDecodeError):
            continue
        yield str(project.root.relative_to(folder)), files


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--max-operators", type=int, default=300, help="per folder (discovery order)")
    args = parser.parse_args()
    rows, refused = [], []
    for folder in args.folders:
        start = time.perf_counter()
        ops = n_files = audits = bad = 0
        for name, files in _operators(folder.resolve(), args.max_operators):
            ops += 1
            sources = [p for p in files if p.endswith(CPP)]
            n_files += len(sources)
            variants = [("self", files)]
            for path in sources:
                for noop, change in NOOPS.items():
                    new = change(files[path])
                    if new is not None and new != files[path]:
                        variants.append((f"{noop} {path}", {**files, path: new}))
            for what, candidate in variants:
                audits += 1
                found: list[AuditRefusal] = audit_change(files, candidate)
                bad += len(found)
                refused += [f"{folder.name}/{name} [{what}] {r.text()}" for r in found]
        rows.append((folder.name, ops, n_files, audits, bad, time.perf_counter() - start))
    print(f"{'folder':16} {'operators':>9} {'files':>6} {'audits':>7} {'refused':>8} {'seconds':>8}")
    for folder_name, ops, n_files, audits, bad, secs in rows:
        print(f"{folder_name:16} {ops:9d} {n_files:6d} {audits:7d} {bad:8d} {secs:8.1f}")
    total = [sum(r[i] for r in rows) for i in (1, 2, 3, 4)]
    print(f"{'total':16} {total[0]:9d} {total[1]:6d} {total[2]:7d} {total[3]:8d}")
    for line in refused:
        print(line)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
