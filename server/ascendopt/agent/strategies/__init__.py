"""The search strategies, one file each, behind one face (base.py), and their registry.

This is the one place that names them: the settings, the campaign and the CLI read the names
here, and the episode runs whichever class `strategy_class` gives (ARCHITECTURE: strategies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from ascendopt.agent.strategies.base import SearchStrategy

Strategy = Literal["ours", "random", "tpe", "best-of-n", "openevolve"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
DEFAULT_STRATEGY: Strategy = "ours"


def strategy_class(name: Strategy) -> type[SearchStrategy]:
    # Imported here: the strategies import the settings, which name the strategies (above).
    from ascendopt.agent.strategies.best_of_n import BestOfN
    from ascendopt.agent.strategies.openevolve import OpenEvolve
    from ascendopt.agent.strategies.ours import Ours
    from ascendopt.agent.strategies.random_search import RandomStrategy
    from ascendopt.agent.strategies.tpe import TpeStrategy

    classes: dict[str, type[SearchStrategy]] = {
        c.name: c for c in (Ours, RandomStrategy, TpeStrategy, BestOfN, OpenEvolve)
    }
    assert set(classes) == set(STRATEGIES), "every registered name has its class, and only those"
    return classes[name]
