"""Knob domains from the operator's constraints, not powers of two (issue 26, point 2).

With a spec, each inferred knob's values follow its role:

* a tile in elements: multiples of the 32-byte block for the operator's narrowest dtype, up to
  what fits the Unified Buffer at the widest dtype (UB bytes / (dtype bytes x the UB tensors the
  kernel allocates x their depth)) and no more than the largest case holds; in bytes, multiples
  of 32 bytes up to that UB share. Long ranges are thinned to at most `MAX_VALUES` points, every
  one still a whole block multiple, the powers of two in range and the current value kept;
* a block dim: 1 up to the SoC's vector core count, and the counts up to two waves that split
  the largest case's 32-byte blocks evenly;
* a buffer count: 1-4; a tile count: 1-16;
* a threshold: 0 (the path above it always), each case's size and the midpoints between them,
  one past the largest (the path below it always);
* a core grain: like a tile in elements, up to the largest case.
"""

from __future__ import annotations

import itertools
import math

from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.model import Knob
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import OperatorSpec

MAX_VALUES = 256
BLOCK_BYTES = 32


def _thin(lo: int, hi: int, step: int, current: int) -> list[int]:
    if hi < lo:
        return sorted({current})
    count = (hi - lo) // step + 1
    stride = step * max(1, math.ceil(count / MAX_VALUES))
    pow2 = {1 << b for b in range(hi.bit_length()) if lo <= 1 << b <= hi and (1 << b) % step == 0}
    return sorted({*range(lo, hi + 1, stride), *pow2, current})  # powers of two kept: round sizes


def knob_role(k: Knob) -> str:
    """What the knob's value does in the tiling: its role from the dataflow, else from its kind."""
    return k.role or {"tile_length": "tile_elems"}.get(k.kind, k.kind)


def refine(knobs: list[Knob], spec: OperatorSpec, soc: Soc, ub_tensors: int) -> None:
    """Set each inferred knob's values from the spec's dtypes and shapes and the SoC (in place)."""
    try:
        cases = spec.resolve_cases()
    except ValueError:
        return
    widths = [DTYPES[d].bytes for c in cases for d in c.dtypes.values() if d in DTYPES]
    if not cases or not widths:
        return
    narrow, wide = min(widths), max(widths)
    sizes = sorted({max((math.prod(s) for s in c.input_shapes.values()), default=0) for c in cases})
    largest = max(sizes)
    depth = next((int(k.current) for k in knobs if k.kind == "buffer_num" and isinstance(k.current, int)), 2)
    share = soc.ub_size // max(1, ub_tensors * max(1, depth))  # bytes one tile may take
    elem_step = max(1, BLOCK_BYTES // narrow)
    for k in knobs:
        if k.source != "inferred" or not isinstance(k.current, int):
            continue
        role = knob_role(k)
        cur = k.current
        if role == "tile_elems":
            top = min(share // wide, -(-largest // elem_step) * elem_step)
            k.values = _thin(elem_step, top - top % elem_step, elem_step, cur)
        elif role == "tile_bytes":
            top = min(share, -(-largest * wide // BLOCK_BYTES) * BLOCK_BYTES)
            k.values = _thin(BLOCK_BYTES, top - top % BLOCK_BYTES, BLOCK_BYTES, cur)
        elif role == "core_grain":
            k.values = _thin(elem_step, -(-largest // elem_step) * elem_step, elem_step, cur)
        elif role == "block_dim":
            blocks = max(1, largest * narrow // BLOCK_BYTES)
            even = {d for d in range(soc.core_num_aiv + 1, 2 * soc.core_num_aiv + 1) if blocks % d == 0}
            k.values = sorted({*range(1, soc.core_num_aiv + 1), *even, cur})
        elif role == "buffer_num":
            k.values = sorted({1, 2, 3, 4, cur})
        elif role == "tile_num":
            k.values = sorted({*range(1, 17), cur})
        elif role == "threshold":
            mids = {(a + b) // 2 for a, b in itertools.pairwise(sizes)}
            k.values = sorted({0, *sizes, *mids, largest + 1, cur})
        else:
            continue
        k.constraints.append(f"values from the spec and {soc.name}: {len(k.values)} ({role})")


def space_size(knobs: list[Knob]) -> int:
    """How many points the knob space holds (free-form regions left out)."""
    return math.prod(len(k.values) for k in knobs if k.kind != "region" and k.values)
