"""The LLM client: the official `openai` package against any OpenAI-compatible endpoint.

Every request and response is journaled (the key never is), and a response already in the
journal is returned from it: that is what makes `--resume` and `ascendopt replay` exact
and offline.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from pydantic import BaseModel, SecretStr

from ascendopt.journal.events import LlmEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.redact import LLM_KEY, Scrubber

ENV_BASE_URL = "ASCENDOPT_LLM_BASE_URL"
ENV_MODEL = "ASCENDOPT_LLM_MODEL"
ENV_KEY = "ASCENDOPT_LLM_API_KEY"


class LLMSettings(BaseModel):
    base_url: str | None = None
    model: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = 120.0
    max_retries: int = 3
    temperature: float = 0.2

    @property
    def enabled(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None) -> LLMSettings:
        key = LLM_KEY.read()  # taken out of the environment: no child process inherits it
        return cls(
            base_url=base_url or os.environ.get(ENV_BASE_URL) or os.environ.get("OPENAI_BASE_URL"),
            model=model or os.environ.get(ENV_MODEL),
            api_key=SecretStr(key) if key else None,
        )

    def scrubber(self) -> Scrubber:
        return Scrubber([self.api_key.get_secret_value()] if self.api_key else [])

    def describe(self) -> str:
        """For journals and logs: never the key."""
        return f"model {self.model} at {self.base_url or 'the default OpenAI endpoint'}"


class LLMUnavailable(RuntimeError):
    pass


class Usage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def request_key(model: str | None, messages: list[dict[str, str]], temperature: float, ordinal: int) -> str:
    payload = json.dumps(
        {"model": model, "messages": messages, "temperature": temperature, "n": ordinal}, sort_keys=True
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


class LLMClient:
    def __init__(self, settings: LLMSettings, journal: EpisodeJournal, offline: bool = False) -> None:
        self.settings = settings
        self.journal = journal
        self.offline = offline
        self.usage = Usage()
        self._recorded: dict[str, str] = {  # only well-formed records: the journal may hold anything
            e.data.key: e.data.response
            for e in journal.events("llm")
            if isinstance(e.data, LlmEvent) and isinstance(e.data.response, str)
        }
        self._asked: dict[str, int] = {}
        self._client: Any = None

    def _openai(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI  # imported on first use: the LLM is optional

            self._client = AsyncOpenAI(
                api_key=self.settings.api_key.get_secret_value() if self.settings.api_key else "not-needed",
                base_url=self.settings.base_url,
                timeout=self.settings.timeout_seconds,
                max_retries=self.settings.max_retries,
            )
        return self._client

    async def chat(self, messages: list[dict[str, str]], purpose: str) -> str:
        base = request_key(self.settings.model, messages, self.settings.temperature, 0)
        ordinal = self._asked.get(base, 0)  # the same prompt asked again is a new question
        self._asked[base] = ordinal + 1
        key = request_key(self.settings.model, messages, self.settings.temperature, ordinal)
        if key in self._recorded:
            return self._recorded[key]
        if self.offline:
            raise LLMUnavailable(f"replay: no recorded response for this {purpose} request")
        scrub = self.settings.scrubber()
        try:
            response = await self._openai().chat.completions.create(
                model=self.settings.model, messages=messages, temperature=self.settings.temperature
            )
            text = reply_text(response)
        except Exception as exc:  # the endpoint's failure is the episode's information, not a crash
            why = scrub.text(_describe_failure(exc))
            self.journal.append(LlmEvent(key=key, purpose=purpose, error=why))
            raise LLMUnavailable(f"{self.settings.describe()}: {why}") from exc
        text = scrub.text(text)  # a hostile endpoint may echo the key it was sent
        usage = getattr(response, "usage", None)
        self.usage.calls += 1
        self.usage.prompt_tokens += _count(getattr(usage, "prompt_tokens", 0))
        self.usage.completion_tokens += _count(getattr(usage, "completion_tokens", 0))
        self._recorded[key] = text
        self.journal.append(
            LlmEvent(
                key=key,
                purpose=purpose,
                model=self.settings.model,
                messages=messages,
                response=text,
                usage=self.usage.model_dump(),
            )
        )
        return text


MAX_REPLY_CHARS = 200_000  # a rewrite of a kernel and its tiling program fits in far less


class MalformedReply(ValueError):
    """The endpoint answered, but not with one usable chat completion."""


def reply_text(response: Any) -> str:
    """The first choice's text, or MalformedReply saying what was wrong with the response."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise MalformedReply("the response holds no choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if content is None:
        raise MalformedReply("the first choice has no text content")
    if not isinstance(content, str):
        raise MalformedReply(f"the first choice's content is a {type(content).__name__}, not text")
    if len(content) > MAX_REPLY_CHARS:
        raise MalformedReply(f"the reply has {len(content)} characters, over the {MAX_REPLY_CHARS} cap")
    return content


def _describe_failure(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text[:500] + (" …" if len(text) > 500 else "")


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
