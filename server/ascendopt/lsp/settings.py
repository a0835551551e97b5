"""The server's settings: `initializationOptions` first, then `workspace/configuration` under `ascendopt`.

The LLM API key is accepted only from initializationOptions or the environment (never from
workspace/configuration, which editors may sync or show), and it is a SecretStr so that no repr,
log line or JSON dump of the settings can carry it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_core import ErrorDetails

from ascendopt.agent.settings import DEFAULT_BUDGET, EpisodeSettings
from ascendopt.lsp.feature import FeatureState

SECTION = "ascendopt"
API_KEY_ENV = ("ASCENDOPT_LLM_API_KEY", "ASCENDOPT_API_KEY", "OPENAI_API_KEY")
# The backends evaluation/backends.py parses (package.json's `ascendopt.backend` pattern is this one).
BACKEND_PATTERN = r"^(cpu-twin|local|local:cpu-twin|cann|local:cann|ssh:.+)$"
MIN_BUDGET = EpisodeSettings.model_fields["budget"].metadata[0].ge
# Field → the name the user sees in VS Code's settings (and in package.json).
SETTING_NAMES = {
    "backend": "ascendopt.backend",
    "soc": "ascendopt.soc",
    "budget": "ascendopt.budget",
    "llm_base_url": "ascendopt.llm.baseUrl",
    "llm_model": "ascendopt.llm.model",
    "specs": "ascendopt.specs",
}


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    backend: str = Field(default="cpu-twin", pattern=BACKEND_PATTERN)
    soc: str | None = None  # None: the spec's SoC
    # An episode needs its own minimum (the baseline, a search step and the re-check).
    budget: int = Field(default=DEFAULT_BUDGET, ge=MIN_BUDGET, le=10_000)
    llm_base_url: str | None = None
    llm_model: str | None = None
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    # Spec files kept outside the checkout (the CLI's --spec), each for the operator it names.
    specs: list[str] = []

    def spec_paths(self, folder: Path) -> list[Path]:
        """The specs as paths: absolute, under `~`, or relative to the workspace `folder`."""
        return [folder / Path(s).expanduser() for s in self.specs]

    def scrub(self, text: str) -> str:
        """`text` without the key: error messages from an LLM client may quote the request."""
        key = self.api_key.get_secret_value() if self.api_key else ""
        return text.replace(key, "***") if len(key) >= 4 else text

    def public(self) -> dict[str, Any]:
        """What may be shown or logged: everything but the key (only whether one is set)."""
        return {**self.model_dump(), "api_key": "set" if self.api_key else "unset"}


def _section(raw: Any) -> dict[str, Any]:
    """Accept `{"ascendopt": {...}}` or the flat `{...}`; VS Code sends nested `llm` objects."""
    if not isinstance(raw, dict):
        return {}
    inner = raw.get(SECTION, raw)
    return inner if isinstance(inner, dict) else {}


def _llm(section: dict[str, Any]) -> dict[str, Any]:
    llm = section.get("llm")
    return llm if isinstance(llm, dict) else {}


def _fields(section: dict[str, Any]) -> dict[str, Any]:
    llm = _llm(section)
    out = {
        "backend": section.get("backend"),
        "soc": section.get("soc"),
        "budget": section.get("budget"),
        "llm_base_url": llm.get("baseUrl") or section.get("llmBaseUrl"),
        "llm_model": llm.get("model") or section.get("llmModel"),
        "specs": section.get("specs"),
    }
    return {k: v for k, v in out.items() if v not in (None, "")}


def from_initialization_options(
    raw: Any, environ: dict[str, str] | None = None
) -> tuple[Settings, list[str]]:
    """Settings at startup, plus human-readable problems (never containing values)."""
    environ = dict(os.environ) if environ is None else environ
    section = _section(raw)
    fields = _fields(section)
    llm = _llm(section)
    key = (
        llm.get("apiKey")
        or section.get("apiKey")
        or next((environ[k] for k in API_KEY_ENV if environ.get(k)), None)
    )
    if key:
        fields["api_key"] = SecretStr(str(key))
    return _validated(Settings(), fields)


def with_configuration(current: Settings, raw: Any) -> tuple[Settings, list[str]]:
    """Overlay a `workspace/configuration` answer; the key is ignored there on purpose."""
    return _validated(current, _fields(_section(raw)))


def _validated(base: Settings, fields: dict[str, Any]) -> tuple[Settings, list[str]]:
    problems: list[str] = []
    merged = {**base.model_dump(), "api_key": base.api_key}
    for name, value in fields.items():
        try:
            Settings.model_validate({**merged, name: value})
        except ValidationError as exc:
            problems.append(problem_sentence(name, exc.errors()[0], getattr(base, name)))
            continue
        merged[name] = value
    return Settings.model_validate(merged), problems


def _why(error: ErrorDetails) -> str:
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}"
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be a whole number"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == BACKEND_PATTERN:
        return "must be cpu-twin, local:cann or ssh:HOST"
    if kind.startswith("string"):
        return "must be text"
    if kind == "list_type":
        return "must be a list of paths"
    return "is not a valid value"


def problem_sentence(field: str, error: ErrorDetails, kept: Any) -> str:
    """One sentence naming the setting as the user sees it and what it must be; never the value
    given (a key pasted into the wrong field would be shown)."""
    name = SETTING_NAMES.get(field, f"{SECTION}.{field}")
    return f"{name} {_why(error)}; keeping {kept!r}."


CONFIGURATION_WAIT_S = 5.0


class Configuration(FeatureState):
    """The settings in force (written by sync.py from initializationOptions and workspace/configuration)."""

    def __init__(self) -> None:
        self.settings = Settings()
        self.configured = asyncio.Event()  # set once workspace/configuration has been read (or skipped)

    async def current(self) -> Settings:
        """The settings, after the first workspace/configuration answer (a client slow to answer
        gets a few seconds, then the initializationOptions apply)."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.configured.wait(), CONFIGURATION_WAIT_S)
        return self.settings
