"""Assemble the server: one module per LSP feature, each registering its handlers on the instance."""

from __future__ import annotations

from ascendopt.evaluation.backends import make_evaluator
from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.lsp import (
    actions,
    campaign,
    evaluate,
    experience,
    hover,
    lenses,
    mine,
    optimize,
    suggestions,
    sync,
)
from ascendopt.lsp.episodes import RunnerFactory, ServiceRunner
from ascendopt.lsp.server import AscendServer, EvaluatorFactory
from ascendopt.lsp.settings import Settings


def default_evaluator(settings: Settings) -> Evaluator:
    """The backend named in settings, built the way the CLI and the episode build it."""
    return make_evaluator(settings.backend, settings.soc)


def build_server(
    runner_factory: RunnerFactory = ServiceRunner, evaluator_factory: EvaluatorFactory = default_evaluator
) -> AscendServer:
    """`runner_factory` is the seam for episodes: the episode service by default; tests pass a
    scripted one (tests/lsp/scripted_server.py)."""
    ls = AscendServer(runner_factory, evaluator_factory)
    features = (sync, lenses, actions, hover, evaluate, optimize, suggestions, experience, mine, campaign)
    for feature in features:
        feature.register(ls)
    return ls
