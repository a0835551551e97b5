"""`init-spec`, for the CLI and the editor alike: a starting ascendopt.toml drafted from the operator
(operators/spec_init.py) or, for a benchmark task's answer, from its task (task_spec.py); every case
pre-checked on this machine (the tiling program must take it, the kernel's buffers must fit the UB:
precheck.py) and a refused case left commented out with why, then written; and the next step, the
reference it needs (or the oracle that makes one unnecessary)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.evaluation.cpu_twin.precheck import precheck_spec
from ascendopt.evaluation.task_spec import derive_task_spec
from ascendopt.operators.issues import SpecError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import drop_case, reference_signature, starting_spec
from ascendopt.operators.task import task_of

# What reference.py holds when the draft does not validate yet (no signature to give).
ANY_REFERENCE = "a NumPy function of the inputs, attrs as keywords, returning the outputs"


class WrittenSpec(BaseModel):
    path: Path
    notes: list[str]  # where each part came from, cases left out, the pre-check's verdict
    reference: Path  # the file the spec's `reference` names
    reference_exists: bool
    signature: str  # the `def` line the reference must have (or what it must be, when unknown)
    oracle: str | None = None  # what checks the outputs when no reference is needed

    def next_step(self, shown: Callable[[Path], str]) -> str:
        if self.oracle is not None:
            return f"next: nothing to write: {self.oracle} is the oracle"
        step = "check that {} has" if self.reference_exists else "write {} with"
        return f"next: {step.format(shown(self.reference))} {self.signature}"


async def write_starting_spec(op: OperatorProject, target: Path, external: bool) -> WrittenSpec:
    """Draft, pre-check and write the spec at `target` (overwriting it: the caller asks first).
    `external`: kept outside the operator folder (`--out`), its reference beside it.
    TaskSpecError when `op` is a benchmark task's answer whose task gives no spec."""
    draft = await derive_task_spec(op) if task_of(op.root) is not None else starting_spec(op)
    text = draft.text
    try:
        spec = parse_spec(text, target)
    except SpecError as exc:  # a draft with a TODO the schema refuses: written for the user to fix
        spec = None
        draft.notes.append(f"the draft does not validate yet: {exc}")
    if spec is not None:
        refused, unchecked = await precheck_spec(
            op.model_copy(update={"spec": spec, "external_spec": target if external else None})
        )
        for case, why in refused.items():
            text = drop_case(text, case, why)
            draft.notes.append(f"case {case} left out: the operator refuses it ({why})")
        if unchecked:
            draft.notes.append(f"pre-check: {unchecked}")
        if not refused and (not unchecked or "kernel launch" in unchecked):
            draft.notes.append(f"pre-check: the operator takes every case ({', '.join(draft.case_names)})")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    oracle = None
    if spec is not None and spec.oracle is not None:
        oracle = "the task's Model" if spec.oracle.kind == "kernelbench" else "the sample's golden generator"
    elif spec is not None:
        oracle = draft.oracle  # a repository's golden function is the reference
    if external and oracle is None:
        draft.notes.append(
            f"the reference goes beside it ({target.parent / 'reference.py'}); "
            f"run the other commands with --spec {target}"
        )
    ref = target.parent / (spec.reference.partition(":")[0] if spec is not None else "reference.py")
    return WrittenSpec(
        path=target,
        notes=draft.notes,
        reference=ref,
        reference_exists=ref.exists(),
        signature=reference_signature(spec) if spec is not None else ANY_REFERENCE,
        oracle=oracle,
    )
