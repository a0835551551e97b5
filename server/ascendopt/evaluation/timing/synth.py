"""Synthetic traces in the CPU twin's format, for tests and the calibration benchmark.

``elementwise`` writes what the canonical AscendC elementwise kernel (the add_custom
sample: CopyIn / Compute / CopyOut over TQue with BUFFER_NUM buffers) records when
it runs on the twin.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import TracebackType
from typing import Any

from ascendopt.evaluation.timing.costs import DTYPE_BYTES

KERNEL = "op_kernel/synthetic.cpp"


class TraceWriter:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in __exit__/close
        self._fh.write(json.dumps({"format": "ascendopt-trace", "version": 1}) + "\n")
        self.count = 0

    def rec(self, **fields: Any) -> None:
        self._fh.write(json.dumps({k: v for k, v in fields.items() if v is not None}, separators=(",", ":")))
        self._fh.write("\n")
        self.count += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def tile_elems_for(
    dtype: str,
    n_inputs: int,
    buffer_num: int,
    ub_bytes: int = 196608 - 8192 - 256,
    compute_dtype: str | None = None,
) -> int:
    """Largest 256 B-aligned tile that fits every queue buffer (and fp32 scratch for casts) in UB."""
    esz = DTYPE_BYTES[dtype]
    per_elem = esz * (n_inputs + 1) * buffer_num
    if compute_dtype and compute_dtype != dtype:
        per_elem += DTYPE_BYTES[compute_dtype] * (n_inputs + 1)
    elems = ub_bytes // per_elem
    align = 256 // esz
    return max(align, elems // align * align)


def elementwise(
    path: Path,
    total: int,
    dtype: str,
    block_dim: int,
    *,
    op: str = "Add",
    n_inputs: int = 2,
    buffer_num: int = 2,
    tile_elems: int | None = None,
    compute_dtype: str | None = None,
    barrier_all: bool = False,
    max_tile_elems: int | None = None,
) -> Path:
    """Trace of a double-buffered (buffer_num=2) elementwise kernel over `total` elements split
    evenly over `block_dim` blocks (32 B-aligned shares; the last block takes the rest).
    compute_dtype="float32" with dtype="bfloat16" casts in and out around the op, as CANN does."""
    esz = DTYPE_BYTES[dtype]
    cast = compute_dtype is not None and compute_dtype != dtype
    if tile_elems is None:
        tile_elems = tile_elems_for(dtype, n_inputs, buffer_num, compute_dtype=compute_dtype)
    if max_tile_elems:
        tile_elems = min(tile_elems, max_tile_elems)
    align = max(1, 32 // esz)
    share = math.ceil(math.ceil(total / block_dim) / align) * align
    f = KERNEL
    qin = list(range(n_inputs))
    qout = n_inputs
    slot = tile_elems * esz
    slot = (slot + 31) // 32 * 32
    with TraceWriter(path) as w:

        def r(**kw: Any) -> None:
            w.rec(**kw)
            if barrier_all:
                w.rec(b=kw["b"], pipe="ALL", op="PipeBarrier", file=f, line=99)

        for b in range(block_dim):
            start = b * share
            count = max(0, min(share, total - start))
            base = 0
            for q in [*qin, qout]:
                w.rec(
                    b=b,
                    pipe="S",
                    op="InitBuffer",
                    queue=q,
                    buf=base,
                    bytes=slot * buffer_num,
                    file=f,
                    line=20,
                )
                base += slot * buffer_num
            ntiles = math.ceil(count / tile_elems) if count else 0
            for t in range(ntiles):
                n = min(tile_elems, count - t * tile_elems)
                nbytes = n * esz
                reps = max(1, math.ceil(nbytes / 256))
                bufs = {q: q * slot * buffer_num + (t % buffer_num) * slot for q in [*qin, qout]}
                for q in qin:  # CopyIn
                    r(b=b, pipe="MTE2", op="AllocTensor", queue=q, buf=bufs[q], bytes=slot, file=f, line=40)
                    r(
                        b=b,
                        pipe="MTE2",
                        op="DataCopy",
                        dtype=dtype,
                        n=n,
                        bytes=nbytes,
                        repeat=1,
                        buf=bufs[q],
                        file=f,
                        line=41 + q,
                    )
                    r(b=b, pipe="MTE2", op="EnQue", queue=q, buf=bufs[q], file=f, line=44)
                for q in qin:  # Compute
                    r(b=b, pipe="V", op="DeQue", queue=q, buf=bufs[q], file=f, line=50)
                r(b=b, pipe="V", op="AllocTensor", queue=qout, buf=bufs[qout], bytes=slot, file=f, line=52)
                if cast:
                    creps = max(1, math.ceil(n * DTYPE_BYTES[str(compute_dtype)] / 256))
                    for _q in qin:
                        r(
                            b=b,
                            pipe="V",
                            op="Cast",
                            dtype=compute_dtype,
                            src_dtype=dtype,
                            n=n,
                            repeat=creps,
                            file=f,
                            line=53,
                        )
                    r(b=b, pipe="V", op=op, dtype=compute_dtype, n=n, repeat=creps, file=f, line=54)
                    r(
                        b=b,
                        pipe="V",
                        op="Cast",
                        dtype=dtype,
                        src_dtype=compute_dtype,
                        n=n,
                        repeat=creps,
                        file=f,
                        line=55,
                    )
                else:
                    r(b=b, pipe="V", op=op, dtype=dtype, n=n, repeat=reps, file=f, line=54)
                r(b=b, pipe="V", op="EnQue", queue=qout, buf=bufs[qout], file=f, line=56)
                for q in qin:
                    r(b=b, pipe="V", op="FreeTensor", queue=q, buf=bufs[q], file=f, line=57)
                # CopyOut
                r(b=b, pipe="MTE3", op="DeQue", queue=qout, buf=bufs[qout], file=f, line=60)
                r(
                    b=b,
                    pipe="MTE3",
                    op="DataCopy",
                    dtype=dtype,
                    n=n,
                    bytes=nbytes,
                    repeat=1,
                    buf=bufs[qout],
                    file=f,
                    line=61,
                )
                r(b=b, pipe="MTE3", op="FreeTensor", queue=qout, buf=bufs[qout], file=f, line=62)
    return Path(path)
