"""The final re-check's extra shapes: fresh shapes inside the spec's shape domain, and the rule
that one counts against a candidate only where the baseline is correct on it.

Two kinds are drawn from the spec's cases: tails (the smallest case grown by a row, its last
dim given a remainder of each alignment the domain allows below a 32-byte block: 1, 2, 4, …
elements) and one shape larger than every case (the largest case with its first dim doubled,
capped by the domain's `max_elements` and by a time budget). A kernel that is only right on the
sizes the search saw (say, one that stops early above the largest tested size) fails one of them.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import OperatorSpec, ResolvedCase

BLOCK_BYTES = 32  # a DataCopy moves whole 32-byte blocks (FIELD-NOTES)
MAX_EXTRA_ELEMENTS = 1 << 23  # time budget: no extra shape above 8 Mi elements per input


class ExtraShape(BaseModel):
    """One extra shape the re-check considered, and what became of it."""

    name: str
    shape: list[int] | None = None
    why: str  # why it was drawn, or why not
    verdict: str = "not drawn"  # not drawn | counted | skipped (baseline wrong) | failed

    def line(self) -> str:
        shape = "x".join(map(str, self.shape)) if self.shape else "-"
        return f"{self.name} [{shape}]: {self.verdict} ({self.why})"


def extra_shapes(
    spec: OperatorSpec, cases: list[ResolvedCase], fixed_by: str | None = None
) -> tuple[list[ResolvedCase], list[ExtraShape]]:
    """The fresh cases to add to the re-check, and a note on every shape considered. `fixed_by`: why the
    operator runs only at its cases' shapes whatever its spec says (a sample whose main.cpp fixes them)."""
    notes: list[ExtraShape] = []
    if not cases:
        return [], notes
    if fixed_by:
        return [], [ExtraShape(name="extra shapes", why=fixed_by)]
    domain = spec.domain
    if domain.fixed:
        return [], [ExtraShape(name="extra shapes", why="the spec's domain fixes the shapes (domain.fixed)")]
    if any(len({tuple(s) for s in c.input_shapes.values()}) != 1 for c in cases):
        why = "inputs have different shapes, so a fresh shape cannot be drawn for all of them alike"
        return [], [ExtraShape(name="extra shapes", why=why)]

    def first_shape(c: ResolvedCase) -> list[int]:
        return list(next(iter(c.input_shapes.values())))

    small = min(cases, key=lambda c: math.prod(first_shape(c)))
    large = max(cases, key=lambda c: math.prod(first_shape(c)))
    drawn: list[tuple[ResolvedCase, list[int], str]] = []
    seen = {tuple(first_shape(c)) for c in cases}

    base = first_shape(small)
    cap = min(MAX_EXTRA_ELEMENTS, domain.max_elements or MAX_EXTRA_ELEMENTS)
    dtype = small.dtype_of(next(iter(small.input_shapes)))
    block = max(1, BLOCK_BYTES // DTYPES[dtype].bytes)
    step = domain.last_dim_multiple
    aligned = base[-1] - base[-1] % block + block if base[-1] % block else base[-1]
    tail = step
    while tail < block:
        # Prefer the smallest case's own width; where the core split then needs many rows, a
        # narrow one (one block plus the tail) keeps the shape small.
        options = []
        for cols in (aligned + tail, block + tail):
            shape = [*base[:-1], cols]
            if len(shape) > 1:
                shape[0] += 1
            options.append(_fit_elements(shape, domain.elements_multiple))
        shape = next((o for o in options if domain.admits(o) is None and math.prod(o) <= cap), options[0])
        drawn.append((small, shape, f"a tail of {tail} element(s) past a {block}-element block"))
        tail *= 2
    if step >= block:
        notes.append(
            ExtraShape(
                name="tails", why=f"the domain's last_dim_multiple {step} leaves no tail below a block"
            )
        )

    big = first_shape(large)
    row = math.prod(big[1:]) if len(big) > 1 else 1
    grown = _fit_elements([min(big[0] * 2, cap // row), *big[1:]], domain.elements_multiple)
    drawn.append((large, grown, "larger than every spec case"))

    out: list[ResolvedCase] = []
    for i, (src, shape, why) in enumerate(drawn):
        name = f"extra-{i + 1}"
        refused = domain.admits(shape)
        if refused is None and math.prod(shape) > cap:
            refused = f"{math.prod(shape)} elements is above the re-check's budget of {cap}"
        if refused is None and why.startswith("larger") and math.prod(shape) <= math.prod(big):
            refused = "the largest case is already at the domain's (or the time budget's) limit"
        if refused is not None or tuple(shape) in seen:
            notes.append(ExtraShape(name=name, shape=shape, why=refused or "a spec case already has it"))
            continue
        seen.add(tuple(shape))
        notes.append(ExtraShape(name=name, shape=shape, why=why, verdict="drawn"))
        out.append(
            src.model_copy(
                update={
                    "index": len(cases) + len(out),
                    "name": name,
                    "input_shapes": {k: list(shape) for k in src.input_shapes},
                }
            )
        )
    return out, notes


def _fit_elements(shape: list[int], multiple: int) -> list[int]:
    """Grow the first dim until the element count is a multiple of `multiple` (the core split)."""
    if multiple <= 1:
        return shape
    rest = math.prod(shape[1:]) if len(shape) > 1 else 1
    need = multiple // math.gcd(rest, multiple)  # the first dim must be a multiple of this
    out = list(shape)
    out[0] = -(-out[0] // need) * need
    if len(shape) == 1:
        out[0] = -(-shape[0] // multiple) * multiple
    return out


def judge(base: Evaluation, best: Evaluation, spec_cases: list[str], notes: list[ExtraShape]) -> str | None:
    """Why the winner fails the re-check, or None. Spec cases must all pass; an extra shape counts
    only where the baseline passed it (a shape the operator as shipped gets wrong is outside what
    it promises). Fills in each drawn note's verdict."""
    by_name_base = {c.name: c for c in base.cases}
    by_name_best = {c.name: c for c in best.cases}
    for name in spec_cases:
        c = by_name_best.get(name)
        if c is None or c.status != "passed":
            return f"case {name}: {c.message if c else 'not run'}"
    failed = None
    for note in notes:
        if note.verdict != "drawn":
            continue
        b, w = by_name_base.get(note.name), by_name_best.get(note.name)
        if b is None or b.status != "passed":
            note.verdict = "skipped (the baseline is wrong on it)"
            note.why = b.message if b is not None and b.message else note.why
        elif w is None or w.status != "passed":
            note.verdict = "failed"
            failed = failed or f"extra shape {note.line()}: {w.message if w else 'not run'}"
        else:
            note.verdict = "counted, passed"
    return failed


def recheck_shapes(
    project: OperatorProject, cases: list[ResolvedCase]
) -> tuple[list[ResolvedCase], list[ExtraShape]]:
    """The operator's extra re-check shapes, and a note on each (checked, or skipped and why)."""
    assert project.spec is not None
    host = project.tiling.host_program if project.tiling else None
    fixed_by = (
        f"main.cpp fixes the shapes: the twin runs its own host program ({', '.join(host.calls)})"
        if host and host.call is None  # a torch extension's function takes any shape
        else None
    )
    return extra_shapes(project.spec, cases, fixed_by=fixed_by)


def spec_only(evaluation: Evaluation, cases: list[ResolvedCase]) -> Evaluation:
    """The evaluation on the spec's cases alone (the extra shapes check correctness only)."""
    names = {c.name for c in cases}
    return evaluation.model_copy(update={"cases": [c for c in evaluation.cases if c.name in names]})
