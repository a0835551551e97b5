"""The suggestions offered this session (written by suggestions.py; the sidebar lists them)."""

from __future__ import annotations

from ascendopt.agent.suggestion import Suggestion
from ascendopt.lsp.feature import FeatureState


class Offers(FeatureState):
    def __init__(self) -> None:
        self.suggestions: dict[str, Suggestion] = {}  # offered and not yet decided, by id
        self.decided: dict[str, str] = {}  # id → "accepted"/"rejected" this session: decide once
