"""A feature's own state (the model: esbonio's `server/feature.py`): each LSP feature keeps what it
remembers in one object of its own, made with the server and reached by its type
(`AscendServer.state(Runs)`), not in attributes on the server that every module reads and writes.
The class says which feature writes it; the others only read it.
"""

from __future__ import annotations


class FeatureState:
    """Base of a feature's state: made once per server, with no arguments, on first use."""
