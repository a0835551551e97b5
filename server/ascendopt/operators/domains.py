"""Knob domains from the operator's constraints, not powers of two (issue 26, point 2).

With a spec, each inferred knob's values follow its role:

* a tile in elements: whole 32-byte blocks of the operator's narrowest dtype, up to what fits the
  Unified Buffer at the widest dtype (UB bytes / (dtype bytes x the UB tensors the kernel
  allocates x their depth)) and no more than the largest case holds; in bytes, whole 32-byte
  blocks up to that UB share. Between them a ladder of quarter octaves (each value about 19 %
  above the last, rounded to a block: a neighbour is a change a measurement can tell apart, where
  a one-block step on a 4 K tile is not), the powers of two, the current value, and the tiles that
  split each case evenly over the cores in one to four rounds (`[64,4096]` over 40 cores: 6560);
* a block dim: 1 up to the SoC's vector core count, and the counts up to two waves that split
  the largest case's 32-byte blocks evenly;
* a buffer count: 1-4; a tile count: 1-16;
* a cap on the cores (the platform's count the host reads, replaced): 1 up to the SoC's count;
* the parts a tiling function's local splits the UB into: a quarter to twice its value;
* a threshold: 0 (the path above it always), each case's size and the midpoints between them,
  one past the largest (the path below it always);
* a core grain: the same ladder in whole 32-byte blocks (whole blocks whether the code reads it
  as bytes or as elements), up to the largest case in bytes (one core takes it all).
"""

from __future__ import annotations

import itertools
import math

from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.model import Knob
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import OperatorSpec

BLOCK_BYTES = 32
STEPS_PER_OCTAVE = 4  # ladder values per doubling: about 19 % apart
ROUNDS = 4  # an even split gives each core one to this many tiles


def _ladder(step: int, top: int, current: int, splits: set[int] | None = None) -> list[int]:
    """Whole multiples of `step` from `step` to `top`: quarter octaves, the powers of two, the
    even splits given and the current value (kept even when out of range: the operator as it is)."""
    if top < step:
        return [current]
    octaves = STEPS_PER_OCTAVE * (top // step).bit_length()
    rungs = {step * round(2 ** (i / STEPS_PER_OCTAVE)) for i in range(octaves + 1)}
    pow2 = {1 << b for b in range(top.bit_length()) if (1 << b) % step == 0}
    return sorted({v for v in (*rungs, *pow2, *(splits or ())) if step <= v <= top} | {current})


def _splits(sizes: list[int], cores: int, step: int) -> set[int]:
    """The tiles (whole multiples of `step`) that give each of `cores` cores the same number of
    tiles, one to ROUNDS, of each size."""
    return {max(step, -(-size // (cores * r * step)) * step) for size in sizes for r in range(1, ROUNDS + 1)}


def ub_parts_values(current: int) -> list[int]:
    """The parts a tiling splits the UB into: a quarter to twice the current count (never 0)."""
    return list(range(max(1, current // 4), 2 * current + 1))


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
            k.values = _ladder(elem_step, top, cur, _splits(sizes, soc.core_num_aiv, elem_step))
        elif role == "tile_bytes":
            top = min(share, -(-largest * wide // BLOCK_BYTES) * BLOCK_BYTES)
            split_bytes = _splits([s * wide for s in sizes], soc.core_num_aiv, BLOCK_BYTES)
            k.values = _ladder(BLOCK_BYTES, top, cur, split_bytes)
        elif role == "core_grain":
            k.values = _ladder(BLOCK_BYTES, -(-largest * wide // BLOCK_BYTES) * BLOCK_BYTES, cur)
        elif role == "block_dim":
            blocks = max(1, largest * narrow // BLOCK_BYTES)
            even = {d for d in range(soc.core_num_aiv + 1, 2 * soc.core_num_aiv + 1) if blocks % d == 0}
            k.values = sorted({*range(1, soc.core_num_aiv + 1), *even, cur})
        elif role == "core_cap":  # the platform's count at most: a cap, not more blocks
            k.values = list(range(1, soc.core_num_aiv + 1))
            k.current = soc.core_num_aiv
        elif role == "ub_parts":  # more parts: smaller tiles, always fit; fewer: verification says
            k.values = ub_parts_values(cur)
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
