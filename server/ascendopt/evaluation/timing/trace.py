"""Stream-parse the CPU twin's JSONL trace into compact per-block instruction tuples.

Trace contract (runtime/README.md of the CPU twin): a header line
``{"format":"ascendopt-trace","version":1}`` then one JSON object per AscendC API
call: ``b`` block, ``pipe`` (MTE2/MTE3/V/S/ALL), ``op``, ``dtype``, ``n``, ``bytes``,
``repeat``, ``mask``, ``queue``, ``buf``, ``event``, ``file``, ``line``; fields that do
not apply are omitted. AllocTensor/EnQue carry the producer pipe, DeQue/FreeTensor
the consumer pipe; SetFlag the source pipe, WaitFlag the destination pipe.

Each record becomes one tuple ``(kind, pipe, a, b, key, line_id)``:

- MOVE: a = bytes, b = packet bytes (bytes / repeat for multi-block DataCopyPad); also the Fixpipe (L0C -> GM)
- CUBE: a = cycles of a cube instruction on MTE1 (LoadData) or M (Mmad)
- VEC:  a = cycles after a stall/barrier (head + (R-1)·computing per intrinsic),
        b = cycles in steady issue (R·computing for the first intrinsic)
- SCALAR: a = cycles of work on the S pipe
- ENQ/DEQ/ALLOC/FREE: key = (queue, buf); SETF/WAITF: key = (hard event, id)
- BAR: pipe = the pipe named (ALL for PIPE_ALL); SYNCALL; NOP (dispatch only)
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.evaluation.timing import calibration, costs

S, V, MTE2, MTE3, ALL = 0, 1, 2, 3, 4
# The cube core's pipes (after ALL, so the vector core's codes stay): L1 -> L0A/L0B, Mmad, L0C -> GM.
MTE1, M, FIX = 5, 6, 7
PIPE_NAMES = ("S", "V", "MTE2", "MTE3", "ALL", "MTE1", "M", "FIX")
_PIPES = {
    "S": S,
    "V": V,
    "MTE2": MTE2,
    "MTE3": MTE3,
    "ALL": ALL,
    "SCALAR": S,
    "VEC": V,
    "VECTOR": V,
    "MTE1": MTE1,
    "M": M,
    "CUBE": M,
    "FIX": FIX,
    "FIXPIPE": FIX,
}

MOVE, VEC, SCALAR, ENQ, DEQ, ALLOC, FREE, SETF, WAITF, BAR, SYNCALL, NOP, CUBE = range(13)
_SYNC_KINDS = {
    "EnQue": ENQ,
    "DeQue": DEQ,
    "AllocTensor": ALLOC,
    "FreeTensor": FREE,
    "SetFlag": SETF,
    "WaitFlag": WAITF,
    "PipeBarrier": BAR,
    "SyncAll": SYNCALL,
    # A wait for a cross-core flag: on the twin (vector blocks only) a mode-0 round across the blocks,
    # timed as SyncAll; a block's wait for its own mode-1 flag is costed so too (an over-estimate, rare).
    "CrossCoreWaitFlag": SYNCALL,
}
# S-pipe work, matched by suffix: the twin writes "LocalTensor::GetValue", "GlobalTensor::SetValue" …
_SCALAR_WORK = ("GetValue", "SetValue", "operator[]", "ReadScalar", "WriteScalar")
# A block's stores through raw GM pointers (`n` elements): runtime/twin_core.cpp RawGmSweep.
_RAW_GM_STORES = "RawGm::WriteScalar"
# Where the hard-event name (e.g. "V_S", "MTE2_V") may sit in a SetFlag/WaitFlag record.
_EVENT_NAME_FIELDS = ("hevent", "hard_event", "hardEvent", "event_name", "evt", "kind", "name")

_CONV_SRC = {"F32": "float32", "F16": "float16", "BF1": "bfloat16", "S32": "int32", "DEQ": None}

Record = tuple[int, int, float, float, Any, int]
_OUTSIDE = object()  # a line outside any block: skipped
_MEMO_LINES = 1 << 16  # distinct lines remembered per trace (a trace of all-distinct lines stays bounded)


class TraceFormatError(ValueError):
    pass


@dataclass
class ParsedTrace:
    blocks: dict[int, list[Record]]
    lines: list[str]  # line_id -> "file:line"
    notes: list[str] = field(default_factory=list)
    records: int = 0
    small_packets: set[int] = field(default_factory=set)  # packet sizes under 256 B seen


def _pipe(value: Any) -> int:
    if value is None:
        return S
    name = str(value).upper()
    if name.startswith("PIPE_"):
        name = name[5:]
    return _PIPES.get(name, S)


def _event_key(r: dict[str, Any]) -> tuple[str, int]:
    ev = r.get("event")
    name = None
    for f in _EVENT_NAME_FIELDS:
        v = r.get(f)
        if isinstance(v, str) and v:
            name = v
            break
    if isinstance(ev, str):  # "V_S" in `event`, id elsewhere
        name, ev = name or ev, r.get("id", r.get("eid", 0))
    try:
        eid = int(ev) if ev is not None else 0
    except (TypeError, ValueError):
        eid = 0
    if name and name.startswith("HardEvent::"):
        name = name[len("HardEvent::") :]
    return (name or "?", eid)


class _VecCoster:
    """(stalled, steady) cycles of a vector API call, cached by (op, dtype, repeat)."""

    def __init__(self, soc: str, notes: list[str]) -> None:
        self.soc = soc
        self.notes = notes
        self.cache: dict[tuple[str, str, int, str | None], tuple[float, float]] = {}
        self.noted: set[str] = set()

    def __call__(self, op: str, dtype: str, repeat: int, src: str | None) -> tuple[float, float]:
        key = (op, dtype, repeat, src)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        names = costs.vec_intrinsics(op, dtype, src)
        if names is None:
            self._note(
                f"vector API {op} is not mapped to a msopmodeling intrinsic; "
                f"msopmodeling's default cost ({calibration.FALLBACK_VEC[0]} head / "
                f"{calibration.FALLBACK_VEC[1]} computing cycles) used"
            )
            names = ("NULL_INTRINSIC",)
        stalled = steady = 0.0
        chunks = max(1, math.ceil(repeat / costs.MAX_REPEAT))
        for k, name in enumerate(names):
            if name == "NULL_INTRINSIC":
                head, comp = calibration.FALLBACK_VEC[0], calibration.FALLBACK_VEC[1]
            else:
                # msopmodeling keys conversions by their source type (CONV_F322BF16 -> FP32).
                src_dt = _CONV_SRC.get(name.split("_")[1][:3]) if name.startswith("CONV_") else None
                vc = calibration.vec_cycles(self.soc, name, src_dt or dtype or "float32")
                if vc.fallback:
                    self._note(vc.fallback)
                head, comp = vc.head, vc.computing
            with_head = head + (repeat - 1) * comp
            stalled += with_head
            # Later passes of a composite API depend on the previous one (a pipe barrier
            # inside the API), so only the first pass can issue in steady state.
            steady += max(repeat * comp, chunks) if k == 0 else with_head
        self.cache[key] = (stalled, steady)
        return stalled, steady

    def _note(self, msg: str) -> None:
        if msg not in self.noted:
            self.noted.add(msg)
            self.notes.append(msg)


def parse_trace(
    path: Path | bytes, soc: str, constants: costs.CostConstants = costs.DEFAULT_CONSTANTS
) -> ParsedTrace:
    """The trace in a file, or its bytes as a run handed them back (read as the file would be)."""
    notes: list[str] = []
    vec = _VecCoster(soc, notes)
    blocks: dict[int, list[Record]] = {}
    line_ids: dict[tuple[Any, Any], int] = {}
    lines: list[str] = []
    scalar_cycles = constants.scalar_op_cycles
    gm_cycles = constants.scalar_gm_cycles
    loads = json.loads
    raw_decode = json.JSONDecoder().raw_decode  # no whitespace regex per line
    pipes: dict[Any, int] = dict(_PIPES)
    count = 0
    small: set[int] = set()
    bad = 0
    # A line's record depends on the line alone (and on what its first reading added: its line id, a
    # note, a packet size), so a line seen before is not parsed again.
    memo: dict[str, tuple[list[Record], Record] | object] = {}
    if isinstance(path, bytes):
        fh: io.TextIOBase = io.TextIOWrapper(io.BytesIO(path), encoding="utf-8")
        path = Path("trace.jsonl")  # for the messages
    else:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 (closed by the `with` below)
    with fh:
        first = fh.readline()
        try:
            head = loads(first) if first.strip() else {}
        except json.JSONDecodeError as exc:
            raise TraceFormatError(f"{path}: first line is not JSON: {exc}") from exc
        if head.get("format") != "ascendopt-trace":
            raise TraceFormatError(f"{path}: not an ascendopt trace (header {first.strip()[:80]!r})")
        if head.get("version", 1) != 1:
            notes.append(f"trace version {head.get('version')} read as version 1")
        for raw in fh:
            seen = memo.get(raw)
            if seen is not None:  # the same line again (a loop's same call in the same block): same record
                if isinstance(seen, tuple):
                    count += 1
                    seen[0].append(seen[1])
                continue
            if not raw or raw.isspace():
                continue
            try:
                r = raw_decode(raw)[0]
            except json.JSONDecodeError:
                r = None
            if not isinstance(r, dict):
                try:
                    r = loads(raw)
                except json.JSONDecodeError:
                    r = None
            if not isinstance(r, dict):
                bad += 1
                if bad <= 3:
                    notes.append(f"unparsable trace line skipped: {raw[:60]!r}")
                continue
            b = r.get("b", 0)
            if not isinstance(b, int) or b < 0:  # outside any block (b = -1)
                if len(memo) < _MEMO_LINES:
                    memo[raw] = _OUTSIDE
                continue
            count += 1
            op = r.get("op") or "?"
            pv = r.get("pipe")
            pipe = pipes.get(pv)
            if pipe is None:
                pipe = pipes[pv] = _pipe(pv)
            lk = (r.get("file"), r.get("line"))
            lid = line_ids.get(lk)
            if lid is None:
                lid = line_ids[lk] = len(lines)
                lines.append(f"{lk[0] or '?'}:{lk[1] if lk[1] is not None else 0}")
            blk = blocks.get(b)
            if blk is None:
                blk = blocks[b] = []
            rec: Record
            kind = _SYNC_KINDS.get(op)
            if kind is not None:
                if kind in (SETF, WAITF):
                    rec = (kind, pipe, 0.0, 0.0, _event_key(r), lid)
                elif kind in (BAR, SYNCALL):
                    rec = (kind, pipe, 0.0, 0.0, None, lid)
                else:
                    rec = (kind, pipe, 0.0, 0.0, (r.get("queue", -1), r.get("buf", -1)), lid)
            elif pipe in (MTE1, M):
                # cube work (cpu_twin cube.h): LoadData's bytes, Mmad's multiply-adds over whole fractals
                nbytes = r.get("bytes") or 0
                rec = (
                    CUBE,
                    pipe,
                    costs.cube_cycles(pipe == M, r.get("dtype") or "float16", r.get("n") or 0, nbytes),
                    0.0,
                    None,
                    lid,
                )
            elif pipe in (MTE2, MTE3, FIX):
                nbytes = r.get("bytes")
                if nbytes is None:
                    nbytes = (r.get("n") or 0) * costs.DTYPE_BYTES.get(r.get("dtype") or "", 2)
                rep = r.get("repeat") or 1
                pkt = nbytes / rep if rep > 0 else nbytes
                if pkt < 256:
                    small.add(int(pkt))
                rec = (MOVE, pipe, float(nbytes), float(pkt), None, lid)
            elif pipe == V:
                dtype = r.get("dtype") or "float32"
                rep = r.get("repeat")
                if not rep or rep < 1:
                    nbytes = r.get("bytes")
                    if nbytes is None:
                        nbytes = (r.get("n") or 0) * costs.DTYPE_BYTES.get(dtype, 2)
                    rep = max(1, math.ceil(nbytes / 256))
                stalled, steady = vec(op, dtype, int(rep), r.get("src_dtype"))
                rec = (VEC, V, stalled, steady, None, lid)
            elif op == _RAW_GM_STORES:
                # Stores through a raw `__gm__ T *` the twin found after a block's slice: each element one
                # scalar GM store, costed as GlobalTensor::SetValue is.
                rec = (SCALAR, S, gm_cycles * max(1, int(r.get("n") or 1)), 0.0, None, lid)
            elif op.endswith(_SCALAR_WORK):
                cyc = gm_cycles if op.startswith("GlobalTensor") else scalar_cycles
                rec = (SCALAR, S, cyc, 0.0, None, lid)
            else:
                rec = (NOP, pipe, 0.0, 0.0, None, lid)
            blk.append(rec)
            if len(memo) < _MEMO_LINES:
                memo[raw] = (blk, rec)
    if bad > 3:
        notes.append(f"{bad} unparsable trace lines skipped in all")
    return ParsedTrace(blocks=blocks, lines=lines, notes=notes, records=count, small_packets=small)
