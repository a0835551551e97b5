"""GuidedSearch (ours) against synthetic score tables: no compiles, milliseconds."""

from __future__ import annotations

import itertools
import random

from ascendopt.agent.strategies.guided import GuidedSearch
from ascendopt.agent.strategies.knobs import Assignment
from ascendopt.operators.cpp_source import SourceRange
from ascendopt.operators.model import Knob

_RANGE = SourceRange(
    file="k.cpp", start_byte=0, end_byte=1, start_line=1, start_column=1, end_line=1, end_column=2
)

Key = tuple[tuple[str, int], ...]


def _knob(name: str, kind: str, values: list[int], current: int) -> Knob:
    return Knob(
        name=name, kind=kind, side="host", source="annotation", range=_RANGE, current=current, values=values
    )


def _key(a: Assignment) -> Key:
    return tuple(sorted(a.items()))


# The shape of the templates' spaces: 7 tile lengths x 4 buffer counts, baseline in the middle.
KNOBS = [
    _knob("TILE_LENGTH", "tile_length", [512, 1024, 2048, 4096, 8192, 16384, 32768], 4096),
    _knob("BUFFER_NUM", "buffer_num", [1, 2, 3, 4], 2),
]
SPACE = [{"TILE_LENGTH": t, "BUFFER_NUM": b} for t, b in itertools.product(KNOBS[0].values, KNOBS[1].values)]
BASE = {"TILE_LENGTH": 4096, "BUFFER_NUM": 2}


def _random_table(seed: int) -> dict[Key, float | None]:
    rng = random.Random(seed)
    table: dict[Key, float | None] = {_key(a): rng.uniform(0.5, 1.5) for a in SPACE}
    for a in SPACE:
        if rng.random() < 0.1:
            table[_key(a)] = None  # fails verification
    table[_key(BASE)] = 1.0
    return table


def _drive(table: dict[Key, float | None], seed: int, batch: int = 4) -> list[Assignment]:
    """The episode's loop: tell the baseline, then propose a batch, tell it, until proposals run dry."""
    search = GuidedSearch(KNOBS, seed)
    search.tell(BASE, table[_key(BASE)])
    tried = [BASE]
    for _ in range(len(SPACE) + 1):
        proposals = search.propose(batch)
        if not proposals:
            break
        tried.extend(proposals)
        for a in proposals:
            search.tell(a, table[_key(a)])
    return tried


def test_never_repeats_and_runs_dry_only_when_the_whole_space_is_tried() -> None:
    # Before the fix, crossover + +-2 mutation around the elite could not reach far corners:
    # the search returned no proposal with 4-8 of 28 assignments untried (the episode then
    # stopped as "converged", budget unspent, sometimes with the optimum among the untried).
    for table_seed in range(40):
        table = _random_table(table_seed)
        for seed in range(3):
            tried = _drive(table, seed)
            keys = [_key(a) for a in tried]
            assert len(keys) == len(set(keys)), "an assignment was proposed twice"
            assert set(keys) == {_key(a) for a in SPACE}, (table_seed, seed, len(keys))


def test_deterministic_per_seed() -> None:
    table = _random_table(7)
    assert _drive(table, 3) == _drive(table, 3)


def test_walks_downhill_on_a_smooth_space() -> None:
    # A separable bowl: bigger tiles and more buffers help up to 16384 x 3.
    def score(a: Assignment) -> float:
        t = KNOBS[0].values.index(a["TILE_LENGTH"]) - 5
        b = a["BUFFER_NUM"] - 3
        return 0.7 + 0.05 * t * t + 0.04 * b * b

    table: dict[Key, float | None] = {_key(a): score(a) for a in SPACE}
    for seed in range(5):
        tried = _drive(table, seed)
        first = next(i for i, a in enumerate(tried, 1) if a == {"TILE_LENGTH": 16384, "BUFFER_NUM": 3})
        # Axis rings around the moving best: 4096x2 -> 8192x2 -> 16384x2 -> 16384x3 is <= 11
        # evaluations with the baseline, 12 with the cost model's one pick per batch once it is
        # fitted; uniform random search needs 14.5 on average.
        assert first <= 12, (seed, first)
