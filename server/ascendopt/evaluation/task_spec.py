"""A benchmark task's answer with no spec of its own: its spec derived from the task (operators/task.py)
after running the task's oracle once, sandboxed, on every case of its `test_cases.csv` (seed 0).

Nothing is written into the checkout: the spec lives in this process's temporary folder
(`with_task_spec`), or where the user or a campaign puts it (`init-spec --out`, the campaign's folder)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import TypeVar

from ascendopt.evaluation.oracle import OracleCase, OracleError, run_oracle
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import SpecError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import OracleSpec, parse_spec
from ascendopt.operators.spec_init import SpecDraft
from ascendopt.operators.task import (
    TaskSpecError,
    read_test_cases,
    refusal,
    task_of,
    task_spec_text,
    typed_columns,
)

T = TypeVar("T")


async def derive_task_spec(op: OperatorProject) -> SpecDraft:
    """The spec's text for the answer `op` of a benchmark task; TaskSpecError saying why not."""
    task = task_of(op.root)
    if task is None:
        raise TaskSpecError(
            f"{op.root} is not a benchmark task's answer (<task>/answer/<n>/ with validation/)"
        )
    why = refusal(op)
    if why is not None:
        raise TaskSpecError(why)
    try:
        rows = read_test_cases(task.cases)
    except SpecError as exc:
        raise TaskSpecError(str(exc.issues[0])) from exc
    oracle = OracleSpec(module=str(task.module), prepare=str(task.prepare))
    typed = list(zip([line for line, _ in rows], typed_columns([row for _, row in rows]), strict=True))
    keys = [str(row.get("case_id", line)) for line, row in typed]
    try:
        got = await run_oracle(
            op.root, oracle, [(k, row, 0) for k, (_, row) in zip(keys, typed, strict=True)], values=False
        )
    except OracleError as exc:
        raise TaskSpecError(str(exc)) from exc
    records: dict[str, object] = {k: v.record if isinstance(v, OracleCase) else v for k, v in got.items()}
    return task_spec_text(op, task, typed, records)


async def with_task_spec(op: OperatorProject) -> tuple[OperatorProject, SpecDraft]:
    """`op` as `--spec` with the spec derived from its task would load it; TaskSpecError saying why
    not. The spec is written to this process's temporary folder, never the checkout: loading it as a
    spec file gives the knobs the domains its shapes and SoC allow (a spec set on the loaded
    operator would not), and candidates materialised from `op` load it the same way."""
    draft = await derive_task_spec(op)
    task = task_of(op.root)
    assert task is not None
    try:
        parse_spec(draft.text, task.root / "validation" / f"{op.name}.derived.ascendopt.toml")
    except SpecError as exc:
        raise TaskSpecError(f"the derived spec does not validate: {exc.issues[0].message}") from exc
    path = Path(tempfile.mkdtemp(prefix="task-spec-")) / f"{task.name}-{op.name}.ascendopt.toml"
    path.write_text(draft.text, encoding="utf-8")
    return load_operator(op.root, op.name, path), draft


def run_sync(coro: Coroutine[object, object, T]) -> T:
    """Run `coro` to its end from sync code, inside a running event loop or not."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
