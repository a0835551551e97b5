"""Configured secrets (the LLM key) kept out of every text that is stored or shown.

A `Scrubber` is handed to whatever writes: the journal, the experience bank, the LLM client
(a hostile endpoint can echo the key it was sent), the CLI. The key is read from the
environment once and removed from it, so no child process inherits it.
"""

from __future__ import annotations

import json
import os
from typing import Any

MASK = "***"
_MIN_LEN = 6  # shorter "secrets" would mask ordinary words


class Scrubber:
    def __init__(self, secrets: list[str] | None = None) -> None:
        variants: set[str] = set()
        for s in secrets or []:
            if s and len(s) >= _MIN_LEN:
                variants.add(s)
                variants.add(json.dumps(s)[1:-1])  # as it appears inside a JSON string
        self._variants = sorted(variants, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._variants)

    def text(self, text: str) -> str:
        for v in self._variants:
            if v in text:
                text = text.replace(v, MASK)
        return text

    def data(self, value: Any) -> Any:
        """Strings anywhere inside dicts/lists scrubbed (keys too)."""
        if not self._variants:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value


class _EnvSecret:
    """Reads an environment variable once and removes it (children of this process never see it);
    a value set again later (a test, a re-exported variable) replaces the one kept."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self.value: str | None = None

    def read(self) -> str | None:
        for name in self.names:
            fresh = os.environ.pop(name, None)
            if fresh:
                self.value = fresh
                break
        for name in self.names:  # the others go too
            os.environ.pop(name, None)
        return self.value


LLM_KEY = _EnvSecret("ASCENDOPT_LLM_API_KEY", "OPENAI_API_KEY", "ASCENDOPT_API_KEY")
