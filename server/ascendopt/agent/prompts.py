"""Prompt templates live in templates/prompts/ (plain `string.Template` text), not in code."""

from __future__ import annotations

from importlib import resources
from string import Template


def prompt(name: str, **values: object) -> str:
    text = (resources.files("ascendopt.templates") / "prompts" / f"{name}.txt").read_text(encoding="utf-8")
    return Template(text).safe_substitute({k: str(v) for k, v in values.items()})
