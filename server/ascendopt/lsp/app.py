"""Assemble the server: one module per LSP feature, each registering its handlers on the instance."""

from __future__ import annotations

from pathlib import Path

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
    report,
    sidebar,
    spec_init,
    suggestions,
    sync,
    templates,
)
from ascendopt.lsp.episodes import OptimizerService, ServiceFactory
from ascendopt.lsp.evaluators import EvaluatorFactory
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.settings import Settings


def default_evaluator(settings: Settings, workspace: Path) -> Evaluator:
    """The backend named in settings, built the way the CLI and the episode build it, with the
    workspace's remote hosts (`<workspace>/.ascendopt/remote.toml`)."""
    return make_evaluator(settings.backend, settings.soc, workspace=workspace)


def build_server(
    service_factory: ServiceFactory = OptimizerService,
    evaluator_factory: EvaluatorFactory = default_evaluator,
) -> AscendServer:
    """`service_factory` is the seam for episodes: the episode service by default; tests pass a
    scripted one (tests/lsp/scripted_server.py)."""
    ls = AscendServer(service_factory, evaluator_factory)
    features = (
        sync,
        lenses,
        actions,
        hover,
        evaluate,
        optimize,
        suggestions,
        experience,
        mine,
        campaign,
        report,
        sidebar,
        templates,
        spec_init,
    )
    for feature in features:
        feature.register(ls)
    return ls
