"""What the editor shows with no run asked for (issue 29): the kernel's Unified Buffer budget at the
spec's largest case (every InitBuffer and the total against the SoC's UB), and the host tiling run
over the spec's cases and a few shapes around them, marking the ones it refuses or whose buffers
overflow the UB. Both are the tiling pre-check's computation (precheck.check_cases), on this
machine, whatever the backend."""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from ascendopt.evaluation.cpu_twin.build import Builder
from ascendopt.evaluation.cpu_twin.precheck import UbBuffer, UbOverflow, check_cases
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import resolve_soc
from ascendopt.operators.spec import CaseSpec, OperatorSpec

AROUND_PER_CASE = 2  # shapes tried around each case: the leading dimension + 1 (a tail) and × 2
AROUND_MAX = 8


class UbBudget(BaseModel):
    case: str  # the spec's largest case (bytes of its inputs)
    soc: str
    capacity: int  # the SoC's UB, bytes
    buffers: list[UbBuffer] = Field(default_factory=list)
    overflow: UbOverflow | None = None  # the twin's finding when the buffers do not fit

    @property
    def total(self) -> int:
        return sum(b.bytes for b in self.buffers)


class ShapeVerdict(BaseModel):
    case: str  # the spec case it is, or is near
    shapes: dict[str, list[int]]
    around: bool  # a shape near the case, not the case itself
    refused: str  # why the operator refuses it


class EditCheck(BaseModel):
    ub: UbBudget | None = None
    refused: list[ShapeVerdict] = Field(default_factory=list)
    unchecked: str | None = None  # why nothing could be checked (does not build, no spec)


def _around(spec: OperatorSpec, case: CaseSpec) -> list[CaseSpec]:
    """Shapes near `case`: the leading dimension of every input shaped like the first one + 1 and
    × 2 (other inputs, a gamma or a scalar, kept), inside the spec's shape domain."""
    if spec.domain.fixed or case.values or any(isinstance(s[0], list) for s in case.shapes.values() if s):
        return []
    first = next(iter(case.shapes.values()), None)
    if not first:
        return []
    out = []
    for lead in (first[0] + 1, first[0] * 2):  # type: ignore[operator]
        shape = [lead, *first[1:]]
        if spec.domain.admits(shape) is not None:
            continue
        shapes = {k: (shape if v == first else v) for k, v in case.shapes.items()}
        out.append(case.model_copy(update={"name": f"{case.name} ~ {shape}", "shapes": shapes}))
    return out[:AROUND_PER_CASE]


def _largest(spec: OperatorSpec) -> str:
    def size(i: int) -> int:
        r = spec.resolve_cases()[i]
        return sum(math.prod(s) * DTYPES[r.dtype_of(t)].bytes for t, s in r.input_shapes.items())

    return spec.cases[max(range(len(spec.cases)), key=size)].name


async def edit_check(project: OperatorProject, builder: Builder | None = None) -> EditCheck:
    spec = project.spec
    if spec is None:
        return EditCheck(unchecked="no spec")
    try:
        largest = _largest(spec)
    except (ValueError, KeyError) as exc:  # a case the spec cannot resolve: the spec's diagnostics say so
        return EditCheck(unchecked=str(exc))
    around = [c for case in spec.cases for c in _around(spec, case)][:AROUND_MAX]
    wider = spec.model_copy(update={"cases": [*spec.cases, *around]})
    checks, unchecked = await check_cases(
        project.model_copy(update={"spec": wider}), builder, frozenset({largest})
    )
    if not checks:
        return EditCheck(unchecked=unchecked)
    soc = resolve_soc(None, None, spec)
    big = checks[largest]
    return EditCheck(
        ub=UbBudget(
            case=largest, soc=soc.name, capacity=soc.ub_size, buffers=big.buffers, overflow=big.overflow
        ),
        refused=[
            ShapeVerdict(
                case=c.name.split(" ~ ", 1)[0],
                shapes={k: v for k, v in c.shapes.items() if isinstance(v[0], int)},
                around=" ~ " in c.name,
                refused=checks[c.name].refused or "",
            )
            for c in wider.cases
            if c.name in checks and checks[c.name].refused
        ],
        unchecked=unchecked if unchecked and "kernel launch" not in unchecked else None,
    )
