"""Per-core simulation of one vector core's pipes over the trace.

Model (msopmodeling's vector model plus explicit AscendC synchronisation):

- The scalar unit dispatches every API call in program order, ``scalar_issue_cycles``
  each; an instruction cannot start before it is dispatched. The scalar runs ahead of
  the other pipes unless it itself must wait (WaitFlag to S, PipeBarrier<PIPE_ALL>).
- MTE2, V, MTE3 and S each execute their own instructions in order.
- Cross-pipe order exists only where the kernel asks for it: EnQue (producer) ->
  DeQue (consumer) per queue buffer; FreeTensor (consumer) -> the next AllocTensor
  of the same buffer (producer) — this is what lets a double-buffered kernel copy in
  tile i+1 while computing tile i; SetFlag -> WaitFlag per (hard event, id);
  PipeBarrier<PIPE_ALL> waits for every pipe.
- Vector instruction of R repeats: head + (R-1)·computing cycles when the vector
  pipe had drained (first instruction, after PipeBarrier, after waiting on a
  dependency or on dispatch), R·computing in steady issue. PipeBarrier<PIPE_V> holds
  the next vector instruction until the last one has written back, ``pipe_barrier_cycles``
  after it started (or when its issue ends, if later).
- Data move: fixed latency + bytes / per-core bandwidth (by active-core count;
  packets under 256 B use msopmodeling's small-packet curve). Moves in both
  directions also share the core's slice of aggregate GM bandwidth
  (peak / active cores), which is what makes 40 cores reading and writing at once
  slower than either table alone says.

Each instruction is a node (dispatch and execution separately) with the node that
decided its start time; walking back from the last node gives the critical path.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ascendopt.evaluation.timing.trace import (
    ALL,
    ALLOC,
    BAR,
    CUBE,
    DEQ,
    ENQ,
    FREE,
    MOVE,
    MTE2,
    MTE3,
    NOP,
    SCALAR,
    SETF,
    SYNCALL,
    VEC,
    WAITF,
    Record,
    S,
    V,
)

NPIPES = 8  # indexed by trace's pipe codes: S, V, MTE2, MTE3, (ALL: unused), MTE1, M, FIX


@dataclass(frozen=True)
class CoreParams:
    """Per-core costs in µs, for one active-core count."""

    cycle_us: float
    issue_us: float
    mte_latency_us: float
    barrier_latency_us: float  # PipeBarrier<PIPE_V>: last vector instruction's start to its write-back
    bw_in: float  # GM->UB bytes/µs
    bw_out: float  # UB->GM bytes/µs
    link: float  # this core's share of aggregate GM bandwidth, bytes/µs
    small_in: dict[int, float] = field(default_factory=dict)  # packet bytes -> bytes/µs
    small_out: dict[int, float] = field(default_factory=dict)


@dataclass
class CoreResult:
    start: float
    end: float
    busy: list[float]  # per pipe S, V, MTE2, MTE3 (µs)
    path: dict[int, float]  # line_id -> µs on the critical path


class CoreSim:
    """State of one core; blocks run one after another on it."""

    def __init__(self, t0: float = 0.0) -> None:
        self.free = [t0] * NPIPES  # when each pipe is done with its last instruction
        self.last = [-1] * NPIPES  # node of that instruction
        self.pend = [t0] * NPIPES  # earliest start of the next instruction (deps)
        self.pend_src = [-1] * NPIPES
        self.v_drained = True
        self.v_written = -1  # the write-back node of the last PipeBarrier<PIPE_V>
        self.link_iv: list[tuple[float, float]] = []  # busy intervals of this core's GM link
        self.busy = [0.0] * NPIPES
        self.start = t0
        # Nodes: end time, duration, predecessor, line.
        self.n_end: list[float] = []
        self.n_dur: list[float] = []
        self.n_pred: list[int] = []
        self.n_line: list[int] = []
        # Synchronisation state (per block).
        self.enq: dict[Any, deque[tuple[float, int]]] = {}
        self.freed: dict[Any, tuple[float, int]] = {}
        self.flags: dict[Any, deque[tuple[float, int]]] = {}

    # --- helpers ---------------------------------------------------------------------
    def _node(self, end: float, dur: float, pred: int, line: int) -> int:
        self.n_end.append(end)
        self.n_dur.append(dur)
        self.n_pred.append(pred)
        self.n_line.append(line)
        return len(self.n_end) - 1

    def _link(self, st: float, need: float, horizon: float) -> float:
        """Serve `need` µs of this core's GM link from `st`, filling idle gaps first
        (work-conserving, so moves booked in program order do not leave holes); returns the
        finish. Intervals ending before `horizon` (no later move can start earlier) are dropped."""
        iv = self.link_iv
        t = st
        got: list[tuple[float, float]] = []
        i = 0
        n = len(iv)
        while need > 1e-12:
            while i < n and iv[i][1] <= t:
                i += 1
            if i < n and iv[i][0] <= t:
                t = iv[i][1]
                i += 1
                continue
            gap_end = iv[i][0] if i < n else float("inf")
            take = need if need < gap_end - t else gap_end - t
            got.append((t, t + take))
            need -= take
            t += take
        merged: list[tuple[float, float]] = []
        for s0, e0 in sorted(iv + got):
            if e0 <= horizon:
                continue
            if merged and s0 <= merged[-1][1] + 1e-12:
                if e0 > merged[-1][1]:
                    merged[-1] = (merged[-1][0], e0)
            else:
                merged.append((s0, e0))
        self.link_iv = merged
        return t

    def finish(self) -> float:
        return max(self.free)

    def _last_node(self) -> int:
        best, node = -1.0, -1
        for p in range(NPIPES):
            if self.last[p] >= 0 and self.free[p] >= best:
                best, node = self.free[p], self.last[p]
        return node

    def wait_all(self, t: float, src: int) -> None:
        """Nothing on any pipe starts before t (block start, SyncAll)."""
        for p in range(NPIPES):
            if t >= self.pend[p]:
                self.pend[p] = t
                self.pend_src[p] = src
        self.v_drained = True

    def start_block(self, dispatched: float = 0.0) -> None:
        """The next block on this core: after its last one, and not before the scheduler hands it out."""
        t = max(self.finish(), dispatched)
        self.wait_all(t, self._last_node())
        self.enq.clear()
        self.freed.clear()
        self.flags.clear()

    # --- simulation ----------------------------------------------------------------
    def run(self, recs: list[Record], i: int, cp: CoreParams) -> int:
        """Simulate recs[i:] until a SyncAll (returns the index after it) or the end."""
        free, last, pend, pend_src, busy = self.free, self.last, self.pend, self.pend_src, self.busy
        n_end, n_dur, n_pred, n_line = self.n_end, self.n_dur, self.n_pred, self.n_line
        issue, cyc, lat, bar_lat = cp.issue_us, cp.cycle_us, cp.mte_latency_us, cp.barrier_latency_us
        enq, freed, flags = self.enq, self.freed, self.flags
        n = len(recs)
        while i < n:
            kind, pipe, a, b, key, line = recs[i]
            i += 1
            # Dispatch on the scalar unit.
            d0, dpred = free[S], last[S]
            if pend[S] > d0:
                d0, dpred = pend[S], pend_src[S]
            d1 = d0 + issue
            n_end.append(d1)
            n_dur.append(issue)
            n_pred.append(dpred)
            n_line.append(line)
            dnode = len(n_end) - 1
            free[S], last[S] = d1, dnode
            busy[S] += issue

            if kind in (VEC, MOVE):
                st, pred = d1, dnode
                if free[pipe] > st:
                    st, pred = free[pipe], last[pipe]
                if pend[pipe] > st:
                    st, pred = pend[pipe], pend_src[pipe]
                if kind == VEC:
                    drained = self.v_drained or st > free[V]
                    dur = (a if drained else b) * cyc
                    en = st + dur
                    self.v_drained = False
                else:
                    nbytes = a
                    if b < 256:
                        pkt = int(b)
                        table = cp.small_in if pipe == MTE2 else cp.small_out
                        bw = table.get(pkt) or (cp.bw_in if pipe == MTE2 else cp.bw_out)
                    else:
                        bw = cp.bw_in if pipe == MTE2 else cp.bw_out
                    en = st + lat + nbytes / bw
                    other = free[MTE3] if pipe == MTE2 else free[MTE2]
                    le = self._link(st, nbytes / cp.link, st if st < other else other)
                    if le + lat > en:
                        en = le + lat
                    dur = en - st
                n_end.append(en)
                n_dur.append(dur)
                n_pred.append(pred)
                n_line.append(line)
                free[pipe], last[pipe] = en, len(n_end) - 1
                busy[pipe] += dur
            elif kind == CUBE:
                st, pred = d1, dnode
                if free[pipe] > st:
                    st, pred = free[pipe], last[pipe]
                if pend[pipe] > st:
                    st, pred = pend[pipe], pend_src[pipe]
                dur = a * cyc
                n_end.append(st + dur)
                n_dur.append(dur)
                n_pred.append(pred)
                n_line.append(line)
                free[pipe], last[pipe] = st + dur, len(n_end) - 1
                busy[pipe] += dur
            elif kind == SCALAR:
                dur = a * cyc
                en = d1 + dur
                n_end.append(en)
                n_dur.append(dur)
                n_pred.append(dnode)
                n_line.append(line)
                free[S], last[S] = en, len(n_end) - 1
                busy[S] += dur
            elif kind in (ENQ, FREE, SETF):
                # Release: the producer pipe's earlier instructions are done.
                p = pipe if pipe < NPIPES else S
                rel = (free[p], last[p]) if free[p] > d1 and p != S else (d1, dnode)
                if kind == ENQ:
                    q = enq.get(key)
                    if q is None:
                        q = enq[key] = deque()
                    q.append(rel)
                elif kind == FREE:
                    freed[key] = rel
                else:
                    q = flags.get(key)
                    if q is None:
                        q = flags[key] = deque()
                    q.append(rel)
            elif kind in (DEQ, ALLOC, WAITF):
                p = pipe if pipe < NPIPES else S
                rel = None
                if kind == DEQ:
                    q = enq.get(key)
                    if q:
                        rel = q.popleft()
                elif kind == ALLOC:
                    rel = freed.get(key)
                else:
                    q = flags.get(key)
                    if q:
                        rel = q.popleft()
                if rel is not None and rel[0] > pend[p]:
                    pend[p], pend_src[p] = rel
            elif kind == BAR:
                if pipe == ALL:
                    t, src = d1, dnode
                    for p in range(NPIPES):
                        if free[p] > t:
                            t, src = free[p], last[p]
                    self.wait_all(t, src)
                elif pipe == V:
                    self.v_drained = True
                    # The barrier lets the next vector instruction go only once the last one has
                    # written back, the vector pipeline's depth after that instruction started: a
                    # short instruction exposes most of it, a long one (issue longer than the
                    # depth) none. Busy time of the pipe: its instruction is still in flight.
                    lv = last[V]
                    if lv >= 0 and lv != self.v_written:
                        t = n_end[lv] - n_dur[lv] + bar_lat
                        if t > free[V] and t > d1:
                            n_end.append(t)
                            n_dur.append(t - free[V])
                            n_pred.append(lv)
                            n_line.append(line)
                            busy[V] += t - free[V]
                            free[V], last[V] = t, len(n_end) - 1
                        self.v_written = last[V]
                # A barrier on MTE2/MTE3 orders that pipe, which runs in order already.
            elif kind == SYNCALL:
                return i
            elif kind == NOP:
                pass
        return i

    def result(self) -> CoreResult:
        path: dict[int, float] = {}
        node = self._last_node()
        n_dur, n_pred, n_line = self.n_dur, self.n_pred, self.n_line
        seen = 0
        limit = len(n_dur) + 1
        while node >= 0 and seen < limit:
            ln = n_line[node]
            path[ln] = path.get(ln, 0.0) + n_dur[node]
            node = n_pred[node]
            seen += 1
        return CoreResult(start=self.start, end=self.finish(), busy=list(self.busy), path=path)
