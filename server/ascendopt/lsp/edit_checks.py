"""Edit-time checks, with no run asked for (issue 29): for every operator with a file open, the
kernel's UB budget at the spec's largest case and the host tiling over the spec's cases and shapes
around them (evaluation/cpu_twin/edit_check.py, the tiling pre-check's computation), re-checked
after a save. An overflow is a diagnostic on the InitBuffer that did not fit, a refused shape one on
its case's line in the spec; a hover on `InitBuffer` gives that buffer and the total against the
SoC's UB."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

from ascendopt.evaluation.cpu_twin.edit_check import EditCheck, UbBudget, edit_check
from ascendopt.lsp.feature import FeatureState
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.locations import path_to_uri
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import SPEC_FILE
from ascendopt.operators.toml_lines import TomlLineIndex
from ascendopt.report.blocks import md_literal, md_table

log = logging.getLogger(__name__)
SOURCE = "ascendopt (edit-time pre-check)"
_INIT_BUFFER = re.compile(r"\bInitBuffer\s*\(")


class EditChecks(FeatureState):
    def __init__(self) -> None:
        self.results: dict[str, EditCheck] = {}  # op key → its last check
        self.tasks: dict[str, asyncio.Task[None]] = {}  # op key → the check under way


def kib(n: int) -> str:
    return f"{n / 1024:.1f} KiB"


def schedule(ls: AscendServer, ops: list[OperatorProject]) -> None:
    """Check these operators again in the background, each replacing its check under way."""
    for op in ops:
        key = op_key(op)
        if (task := ls.state(EditChecks).tasks.pop(key, None)) is not None:
            task.cancel()
        if op.spec is None:
            ls.state(EditChecks).results.pop(key, None)
            continue
        ls.state(EditChecks).tasks[key] = asyncio.ensure_future(_check(ls, op))


def with_open_files(ls: AscendServer, ops: list[OperatorProject]) -> list[OperatorProject]:
    """Those operators one of whose files is open: what a user edits is checked, not a whole repo."""
    open_uris = set(ls.workspace.text_documents)
    return [op for op in ops if any(path_to_uri(op.root / f) in open_uris for f in op.files.all())]


async def _check(ls: AscendServer, op: OperatorProject) -> None:
    from ascendopt.lsp import diagnostics  # publishes what this feature found; imported here: acyclic

    key = op_key(op)
    try:
        result = await edit_check(op)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("edit-time check of %s failed", op.name)
        return
    finally:
        if ls.state(EditChecks).tasks.get(key) is asyncio.current_task():
            ls.state(EditChecks).tasks.pop(key, None)
    ls.state(EditChecks).results[key] = result
    diagnostics.publish(ls)


def issues(ls: AscendServer, op: OperatorProject) -> list[Issue]:
    """What the operator's last edit-time check found, on the lines it is about."""
    result = ls.state(EditChecks).results.get(op_key(op))
    if result is None:
        return []
    out = []
    if result.ub is not None and result.ub.overflow is not None:
        o = result.ub.overflow
        out.append(
            Issue(
                file=o.file,
                line=o.line,
                code="twin.ub_overflow",
                message=f"{budget_line(result.ub)}: {o.message}",
            )
        )
    spec_path = op.external_spec or op.root / (op.files.spec or SPEC_FILE)
    try:
        index = TomlLineIndex(spec_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        index = TomlLineIndex("")
    names = [c.name for c in op.spec.cases] if op.spec else []
    for v in result.refused:
        if (
            result.ub is not None
            and result.ub.overflow is not None
            and v.case == result.ub.case
            and not v.around
        ):
            continue  # said on the InitBuffer's line
        line = index.line_of(("cases", names.index(v.case), "name")) if v.case in names else 1
        shapes = ", ".join(f"{k} = {s}" for k, s in v.shapes.items())
        what = f"a shape near case {v.case} ({shapes})" if v.around else f"case {v.case}"
        out.append(
            Issue(
                file=str(spec_path),
                line=line,
                severity="warning" if v.around else "error",
                code="tiling-refuses",
                message=f"the operator refuses {what}: {v.refused}",
            )
        )
    return out


def budget_line(ub: UbBudget) -> str:
    share = f" ({ub.total / ub.capacity:.0%})" if ub.capacity else ""
    return (
        f"UB at case {ub.case}: {len(ub.buffers)} InitBuffer(s), "
        f"{kib(ub.total)} of {kib(ub.capacity)}{share} on {ub.soc}"
    )


def hover_markdown(ls: AscendServer, path: Path, line: int, text: str) -> str | None:
    """On a line that calls `InitBuffer`: that buffer's UB and the total (1-based `line`)."""
    if not _INIT_BUFFER.search(text):
        return None
    for op in ls.state(Folders).index.owner_of(path):
        result = ls.state(EditChecks).results.get(op_key(op))
        if result is None or result.ub is None:
            running = op_key(op) in ls.state(EditChecks).tasks
            return "UB budget: being computed (the tiling pre-check)…" if running else None
        ub = result.ub
        here = [b for b in ub.buffers if (op.root / b.file).resolve() == path.resolve() and b.line == line]
        # Paths, case names and the twin's words rendered as they are (`add_custom.cpp`'s `_`s).
        rows = [f"**{md_literal(budget_line(ub))}** (CPU twin, block 0, the spec's largest case)", ""]
        if here:
            rows.append(
                f"this InitBuffer: {kib(sum(b.bytes for b in here))} ({'TQue' if here[0].queue else 'TBuf'})"
            )
        if ub.overflow is not None:
            o = ub.overflow
            rows.append("overflow: " + md_literal(f"{o.file}:{o.line}: {o.message}"))
        rows += ["", md_table(["buffer", "UB"], [[f"{b.file}:{b.line}", kib(b.bytes)] for b in ub.buffers])]
        return "\n".join(rows)
    return None
