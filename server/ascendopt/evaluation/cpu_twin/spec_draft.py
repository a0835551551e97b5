"""`init-spec`, for the CLI and the editor alike: a starting ascendopt.toml drafted from the operator
(operators/spec_init.py), every case pre-checked on this machine (the tiling program must take it,
the kernel's buffers must fit the UB: precheck.py) and a refused case left commented out with why,
then written; and the next step, the reference it needs."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ascendopt.evaluation.cpu_twin.precheck import precheck_spec
from ascendopt.operators.issues import SpecError
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import drop_case, reference_signature, starting_spec

# What reference.py holds when the draft does not validate yet (no signature to give).
ANY_REFERENCE = "a NumPy function of the inputs, attrs as keywords, returning the outputs"


class WrittenSpec(BaseModel):
    path: Path
    notes: list[str]  # where each part came from, cases left out, the pre-check's verdict
    reference: Path  # the file the spec's `reference` names
    reference_exists: bool
    signature: str  # the `def` line the reference must have (or what it must be, when unknown)


async def write_starting_spec(op: OperatorProject, target: Path, external: bool) -> WrittenSpec:
    """Draft, pre-check and write the spec at `target` (overwriting it: the caller asks first).
    `external`: kept outside the operator folder (`--out`), its reference beside it."""
    draft = starting_spec(op)
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
    if external:
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
    )
