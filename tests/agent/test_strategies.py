"""The comparison searches (random, TPE) against synthetic score tables: no compiles."""

from __future__ import annotations

import pytest

from ascendopt.agent.strategies import strategy_class
from ascendopt.agent.strategies.guided import GuidedSearch
from ascendopt.agent.strategies.knobs import key_of
from ascendopt.agent.strategies.random_search import RandomSearch
from ascendopt.agent.strategies.tpe import TpeSearch
from tests.agent.test_host_search import BASE, KNOBS, SPACE, _random_table


@pytest.mark.parametrize("cls", [RandomSearch, TpeSearch])
def test_proposes_each_point_once_until_the_space_is_spent(cls: type) -> None:
    table = _random_table(3)
    search = cls(KNOBS, 0)
    search.tell(BASE, 1.0)
    tried = [key_of(BASE)]
    for _ in range(200):
        batch = search.propose(4)
        if not batch:
            break
        assert len({key_of(a) for a in batch}) == len(batch)
        for a in batch:
            assert key_of(a) not in tried
            tried.append(key_of(a))
            search.tell(a, table[key_of(a)])
    if cls is RandomSearch:  # without replacement: it runs dry exactly when all is tried
        assert sorted(tried) == sorted(key_of(a) for a in SPACE)
    else:  # TPE may repeat itself near the end; it must still have covered most of the space
        assert len(tried) >= len(SPACE) // 2


@pytest.mark.parametrize("cls", [RandomSearch, TpeSearch])
def test_same_seed_same_proposals_and_best_is_the_lowest_valid_score(cls: type) -> None:
    table = _random_table(5)

    def drive(seed: int) -> tuple[list[tuple[tuple[str, int], ...]], dict[str, int]]:
        search = cls(KNOBS, seed)
        search.tell(BASE, 1.0)
        order = []
        for _ in range(4):
            for a in search.propose(3):
                order.append(key_of(a))
                search.tell(a, table[key_of(a)])
        return order, search.best

    first, best = drive(11)
    assert drive(11)[0] == first
    scored = {k: table[k] for k in [key_of(BASE), *first] if table[k] is not None}
    assert key_of(best) == min(scored, key=lambda k: scored[k])


def test_the_registry_names_the_knob_search() -> None:
    assert type(strategy_class("ours").new_search(KNOBS, 0)) is GuidedSearch  # type: ignore[attr-defined]
    assert type(strategy_class("random").new_search(KNOBS, 0)) is RandomSearch  # type: ignore[attr-defined]
    assert type(strategy_class("tpe").new_search(KNOBS, 0)) is TpeSearch  # type: ignore[attr-defined]
