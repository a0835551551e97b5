"""`ours`' knob search: moves that follow what the profile of the best point says, a cost model
fitted on the episode's own evaluations, and random restarts.

The profile of the best point so far (the slowest case's: it has the most time to give back)
says which pipe bounds the kernel, how many of the SoC's vector cores the launch leaves idle,
whether MTE2 overlaps the vector pipe, and how much of the Unified Buffer a block leaves unused.
Each proposal batch is built in this order:

1. guided moves from the best, by the knob's role (operators/dataflow.py), not its name:
   the launch and the blocks' dispatch taking much of the duration, or a memory-bound kernel on
   every core (the GM bandwidth shared by all): a core cap down (half, then the counts that divide
   the current one: fewer, larger blocks pay less fixed cost and each core gets more bandwidth, and
   the work splits as evenly as before); idle cores and a memory- or sync-bound kernel: more
   blocks (a block-dim knob or a core cap up, a core grain down); MTE2 and the vector pipe busy
   but not overlapping: one more buffer; UB headroom: larger tiles (tile elements or bytes up, as
   far as the headroom allows; a tile count or the UB's parts down);
2. once there are enough evaluations to fit it, a small cost model (ridge regression, quadratic in
   each knob's log value, on log score) ranks the neighbours of the elite and a random sample of
   the space, and the best-ranked are proposed; before that, the ring of neighbours of the best;
3. a random restart (one point of the batch) when the last batch did not improve the best.

Deterministic for a seed: proposals depend only on the seed and on what was told.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from ascendopt.agent.strategies.knobs import Assignment, ScoreBook, key_of
from ascendopt.agent.strategies.signals import Signals
from ascendopt.operators.domains import knob_role
from ascendopt.operators.model import Knob

_IDLE = 0.1  # a launch leaving more than this share of the vector cores idle has cores to give
_HEADROOM = 0.25  # a block leaving more than this share of the UB unused has room for larger tiles
_OVERLAP = 0.5  # MTE2 and the vector pipe overlap less than this: one more buffer may hide MTE2
_FIXED = 0.3  # launch and dispatch take more than this share of the duration: blocks too small
_MODEL_POOL = 64  # random points the cost model ranks besides the elite's neighbours

Model = Callable[[np.ndarray], np.ndarray]  # feature rows -> predicted log score


class GuidedSearch(ScoreBook):
    """Propose/tell over the knob space, told each point's profile signals with its score."""

    def __init__(self, knobs: list[Knob], seed: int, elite: int = 4) -> None:
        super().__init__(knobs)
        self.rng = random.Random(seed)
        self.elite_size = elite
        self.signals: dict[tuple[tuple[str, int], ...], Signals | None] = {}
        self._best_at_last_batch: float | None = None

    def tell(self, assignment: Assignment, score: float | None, signals: Signals | None = None) -> None:
        super().tell(assignment, score)
        self.signals[key_of(assignment)] = signals

    # -- proposals ---------------------------------------------------------------------------------

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]:
        out: list[Assignment] = []
        keys: set[tuple[tuple[str, int], ...]] = set()

        def add(a: Assignment) -> None:
            if len(out) < n and a and not self.seen(a) and key_of(a) not in keys:
                out.append(a)
                keys.add(key_of(a))

        best_score = self.scores.get(key_of(self.best))
        stalled = self._best_at_last_batch is not None and best_score == self._best_at_last_batch
        self._best_at_last_batch = best_score
        restart = self._random_points(1) if stalled and n > 1 else []
        model = self._fit()
        ranked = self._ranked(model)
        wanted = [
            *({**self.best, **{k: v for k, v in a.items() if k in self.best}} for a in extra or []),
            *self.guided_moves(),
            *ranked[:1],  # the model's pick from everything it ranked
            *self._by_model(self.rings(), model),
            *ranked[1:],
        ]
        for a in wanted:
            if len(out) >= n - len(restart):
                break
            add(a)
        for a in restart:
            add(a)
        # Nothing left near what is known: the untried rest, so the search runs dry only when spent.
        for a in self._random_points(n):
            add(a)
        return out

    def guided_moves(self) -> list[Assignment]:
        """The moves the best point's profile asks for, most promising first."""
        sig = self.signals.get(key_of(self.best))
        if sig is None:
            return []
        moves: list[Assignment] = []
        fixed_bound = sig.busy_share is not None and sig.busy_share < 1.0 - _FIXED
        if fixed_bound or (sig.bound == "memory" and sig.idle_cores <= _IDLE):
            moves += self._fewer_cores(sig.blocks)
        if sig.idle_cores > _IDLE and sig.bound in ("memory", "sync", "vector", None):
            grow = 1.0 / (1.0 - sig.idle_cores)  # blocks that would fill the cores
            moves += self._scaled("block_dim", grow) + self._scaled("core_grain", 1.0 / grow)
            # Not straight back up after the fixed costs brought the cap down, nor a cap the tiling
            # did not reach (its blocks fewer than the cap: raising it changes nothing).
            caps = [k.name for k in self.knobs if knob_role(k) == "core_cap"]
            if not fixed_bound and (not sig.blocks or any(self.best[n] <= sig.blocks for n in caps)):
                moves += self._scaled("core_cap", grow)
        if sig.overlap is not None and sig.overlap < _OVERLAP and sig.mte2_and_vec_busy:
            moves += self._scaled("buffer_num", None)
        if sig.ub_headroom is not None and sig.ub_headroom > _HEADROOM:
            grow = 1.0 / (1.0 - sig.ub_headroom)  # as far as the UB allows, if it scales with the tile
            moves += self._scaled("tile_elems", grow) + self._scaled("tile_bytes", grow)
            moves += self._scaled("tile_num", 1.0 / grow) + self._scaled("ub_parts", 1.0 / grow)
        return moves

    def _fewer_cores(self, blocks: int) -> list[Assignment]:
        """For each core cap: half the blocks the best launched (its cap, or fewer when the tiling
        launched fewer), then the counts that divide them, largest first, down to a quarter (each new
        block takes whole old blocks: the work splits as evenly as now; a count that does not divide
        it leaves one core a larger share, which the others wait for)."""
        out: list[Assignment] = []
        for knob in (k for k in self.knobs if knob_role(k) == "core_cap"):
            cur = min(self.best[knob.name], blocks or self.best[knob.name])
            even = sorted((v for v in knob.values if cur // 4 <= v < cur and cur % v == 0), reverse=True)
            out += [{**self.best, knob.name: v} for v in [cur // 2, *even] if v in knob.values]
        return out

    def _scaled(self, role: str, factor: float | None) -> list[Assignment]:
        """For each knob of `role`: the value nearest `factor` x the best's, halfway there (in log),
        and the next value that way; factor None: the next value up."""
        out: list[Assignment] = []
        for knob in (k for k in self.knobs if knob_role(k) == role):
            cur = self.best[knob.name]
            idx = knob.values.index(cur) if cur in knob.values else 0
            if factor is None or factor == 1.0:
                out.append(self._at(knob, idx + 1))
                continue
            step = 1 if factor > 1 else -1
            for f in (factor, math.sqrt(factor)):
                target = max(1.0, cur * f)
                near = min(range(len(knob.values)), key=lambda i: abs(math.log(knob.values[i] / target)))
                if near != idx:
                    out.append(self._at(knob, near))
            out.append(self._at(knob, idx + step))
        return [a for a in out if a]

    def _at(self, knob: Knob, idx: int) -> Assignment:
        return {**self.best, knob.name: knob.values[idx]} if 0 <= idx < len(knob.values) else {}

    def rings(self) -> list[list[Assignment]]:
        """The best's neighbours, one knob at a time: one ring per step, the closest first."""
        out: list[list[Assignment]] = []
        for step in (1, 2, 3, 5, 8):
            ring: list[Assignment] = []
            for knob in self.knobs:
                idx = knob.values.index(self.best[knob.name]) if self.best[knob.name] in knob.values else 0
                ring += [a for d in (-step, step) if (a := self._at(knob, idx + d))]
            out.append(ring)
        return out

    def _by_model(self, rings: list[list[Assignment]], model: Model | None) -> list[Assignment]:
        """The rings in order, each ring's points best predicted first when there is a model."""
        out = []
        for ring in rings:
            if model is not None and ring:
                predicted = model(np.array([self._features(a) for a in ring]))
                ring = [ring[i] for i in np.argsort(predicted, kind="stable")]
            out += ring
        return out

    def _ranked(self, model: Model | None) -> list[Assignment]:
        """Neighbours of the elite and random points, best predicted first; [] without a model."""
        if model is None:
            return []
        pool = {key_of(a): a for a in [*self._elite_neighbours(), *self._random_points(_MODEL_POOL)]}
        unseen = [a for k, a in pool.items() if k not in self.scores]
        if not unseen:
            return []
        predicted = model(np.array([self._features(a) for a in unseen]))
        return [unseen[i] for i in np.argsort(predicted, kind="stable")]

    def _elite_neighbours(self) -> list[Assignment]:
        valid = sorted(
            (s, i, a) for i, a in enumerate(self.order) if (s := self.scores[key_of(a)]) is not None
        )
        out = []
        for _, _, a in valid[: self.elite_size]:
            for knob in self.knobs:
                idx = knob.values.index(a[knob.name]) if a[knob.name] in knob.values else 0
                for d in (-4, -2, -1, 1, 2, 4):
                    if 0 <= idx + d < len(knob.values):
                        out.append({**a, knob.name: knob.values[idx + d]})
        return out

    # -- the cost model ----------------------------------------------------------------------------

    def _features(self, a: Assignment) -> list[float]:
        """Per knob its log value scaled to [0, 1] over the domain, and that squared."""
        row = [1.0]
        for k in self.knobs:
            lo, hi = math.log(max(1, k.values[0])), math.log(max(1, k.values[-1]))
            x = (math.log(max(1, a[k.name])) - lo) / (hi - lo) if hi > lo else 0.0
            row += [x, x * x]
        return row

    def _fit(self) -> Model | None:
        """Ridge regression of log score on the features, once there are more valid points than
        features; a failed point counts as twice the worst score seen (the model learns to avoid it)."""
        told = [(a, self.scores[key_of(a)]) for a in self.order]
        valid = [s for _, s in told if s is not None]
        width = 1 + 2 * len(self.knobs)
        if len(valid) <= width:
            return None
        worst = 2 * max(valid)
        x = np.array([self._features(a) for a, _ in told])
        y = np.log(np.array([s if s is not None else worst for _, s in told]))
        ridge = 1e-2 * np.eye(width)
        ridge[0, 0] = 0.0  # the intercept is not shrunk
        w = np.linalg.solve(x.T @ x + ridge, x.T @ y)
        return lambda rows: rows @ w

    def _random_points(self, n: int) -> list[Assignment]:
        """Up to n untried points, uniformly (enumerated when the space is small enough)."""
        every = self.every_point()
        if every is not None:
            pool = [a for a in every if not self.seen(a)]
            return self.rng.sample(pool, min(n, len(pool)))
        return [{k.name: self.rng.choice(k.values) for k in self.knobs} for _ in range(n)]
