"""Each feature keeps its own state (lsp/feature.py), not attributes on the server that every module
reads and writes: the server holds only what every feature shares by design."""

from __future__ import annotations

from pygls.lsp.server import LanguageServer

from ascendopt.lsp.app import build_server
from ascendopt.lsp.buffers import Documents
from ascendopt.lsp.diagnostics import Published
from ascendopt.lsp.index import Folders
from ascendopt.lsp.offers import Offers
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.settings import Configuration


def test_the_server_holds_no_feature_state_of_its_own() -> None:
    ls = build_server()
    base = set(vars(LanguageServer("probe", "0")))
    public = {name for name in vars(ls) if not name.startswith("_")} - base
    assert public == {"jobs", "evaluators"}


def test_each_feature_s_state_is_one_object_per_server() -> None:
    one, two = build_server(), build_server()
    for kind in (Configuration, Folders, Documents, Runs, Offers, Published):
        assert one.state(kind) is one.state(kind)
        assert one.state(kind) is not two.state(kind)
    one.state(Runs).last_profiles["op"] = None  # type: ignore[assignment]
    assert two.state(Runs).last_profiles == {}
