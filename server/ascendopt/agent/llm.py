"""The LLM client: the official `openai` package against any OpenAI-compatible endpoint.

Every request and response is journaled (the key never is), and a response already in the
journal is returned from it: that is what makes `--resume` and `ascendopt replay` exact
and offline.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, SecretStr

from ascendopt.agent.tokens import Context, Price, Source, context_for, price_from_env, tokenizer_for
from ascendopt.journal.events import LlmEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.redact import LLM_KEY, Scrubber

ENV_BASE_URL = "ASCENDOPT_LLM_BASE_URL"
ENV_MODEL = "ASCENDOPT_LLM_MODEL"
ENV_KEY = "ASCENDOPT_LLM_API_KEY"
ENV_MAX_TOKENS = "ASCENDOPT_LLM_MAX_TOKENS"
# Held back from the context for the reply when no max_tokens is set: a rewrite's blocks fit in it.
DEFAULT_REPLY_RESERVE = 8_192
MAX_RETRY_AFTER = 60.0  # seconds: an endpoint asking to wait longer is reported, not waited for
CONTINUE = (
    "Your reply was cut at the token limit. Continue exactly where it stopped, "
    "without repeating anything already written."
)


class LLMSettings(BaseModel):
    base_url: str | None = None
    model: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = 120.0
    max_retries: int = 3  # ours, on 429 / 5xx / a dropped connection; the openai client's are off
    temperature: float = 0.2
    context_tokens: int | None = None  # None: ASCENDOPT_LLM_CONTEXT, else by model family (agent/tokens.py)
    max_tokens: int | None = None  # sent as the request's max_tokens when set
    price_in: float | None = None  # per million prompt tokens; None: ASCENDOPT_LLM_PRICE_IN
    price_out: float | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None) -> LLMSettings:
        key = LLM_KEY.read()  # taken out of the environment: no child process inherits it
        max_tokens = os.environ.get(ENV_MAX_TOKENS, "").strip()
        return cls(
            base_url=base_url or os.environ.get(ENV_BASE_URL) or os.environ.get("OPENAI_BASE_URL"),
            model=model or os.environ.get(ENV_MODEL),
            api_key=SecretStr(key) if key else None,
            max_tokens=int(max_tokens) if max_tokens.isdigit() else None,
        )

    def context(self) -> Context:
        return context_for(self.model, self.context_tokens)

    def prompt_budget(self) -> int:
        """Tokens a prompt may take: the context less what the reply is given."""
        context = self.context().tokens
        return max(0, context - (self.max_tokens or min(DEFAULT_REPLY_RESERVE, context // 4)))

    def price(self) -> Price | None:
        return price_from_env(self.price_in, self.price_out)

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


class ReplyCut(RuntimeError):
    """The reply stopped at the token limit (finish_reason "length"), even after asking to continue."""


class Completion(BaseModel):
    """One answered chat request: the text (a continuation joined on), its usage, how it was had."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_source: Source = "server"
    finish_reason: str | None = None
    retries: int = 0
    continued: bool = False
    latency_seconds: float = 0.0


class LLMClient:
    def __init__(
        self,
        settings: LLMSettings,
        journal: EpisodeJournal,
        offline: bool = False,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self.journal = journal
        self.offline = offline
        self.sleep = sleep  # retries wait through this (tests record the waits)
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
            self._client = openai_client(self.settings)
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
            done = await complete(self._openai(), self.settings, messages, self.sleep)
        except Exception as exc:  # the endpoint's failure is the episode's information, not a crash
            why = scrub.text(failure_sentence(exc, self.settings))
            self.journal.append(LlmEvent(key=key, purpose=purpose, error=why))
            raise LLMUnavailable(f"{self.settings.describe()}: {why}") from exc
        text = scrub.text(done.text)  # a hostile endpoint may echo the key it was sent
        self.usage.calls += 1
        self.usage.prompt_tokens += done.prompt_tokens
        self.usage.completion_tokens += done.completion_tokens
        self._recorded[key] = text
        self.journal.append(
            LlmEvent(
                key=key,
                purpose=purpose,
                model=self.settings.model,
                messages=messages,
                response=text,
                usage={"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens},
                usage_source=done.usage_source,
                finish_reason=done.finish_reason,
                retries=done.retries,
                continued=done.continued,
            )
        )
        return text


def openai_client(settings: LLMSettings) -> Any:
    from openai import AsyncOpenAI  # imported on first use: the LLM is optional

    return AsyncOpenAI(
        api_key=settings.api_key.get_secret_value() if settings.api_key else "not-needed",
        base_url=settings.base_url,
        timeout=settings.timeout_seconds,
        max_retries=0,  # ours (`with_retries`): Retry-After honoured, every wait visible and testable
    )


async def complete(
    client: Any,
    settings: LLMSettings,
    messages: list[dict[str, str]],
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> Completion:
    """One chat request, retried on 429 / 5xx; a reply cut at the token limit is asked once to
    continue and the two parts joined; cut again, ReplyCut. Usage the server did not give is counted."""
    began = time.monotonic()
    tries = settings.max_retries
    first, retries = await with_retries(lambda: _create(client, settings, messages), tries, sleep)
    text, finish = reply_text(first), finish_reason(first)
    parts = [(messages, text, first)]
    continued = False
    if finish == "length":
        more = [*messages, {"role": "assistant", "content": text}, {"role": "user", "content": CONTINUE}]
        second, again = await with_retries(lambda: _create(client, settings, more), tries, sleep)
        retries += again
        rest, finish = reply_text(second), finish_reason(second)
        if finish == "length":
            raise ReplyCut(
                "the reply was cut at the model's token limit (finish_reason = length) twice, the second "
                "time after being asked to continue: refused rather than applied half-written"
                + (f"; max_tokens is {settings.max_tokens}" if settings.max_tokens else "")
            )
        parts.append((more, rest, second))
        text, continued = text + rest, True
        if len(text) > MAX_REPLY_CHARS:
            raise MalformedReply(f"the reply has {len(text)} characters, over the {MAX_REPLY_CHARS} cap")
    prompt_tokens = completion_tokens = 0
    source: Source = "server"
    tokenizer = tokenizer_for(settings.model)
    for asked, said, response in parts:
        usage = getattr(response, "usage", None)
        p = _count(getattr(usage, "prompt_tokens", None))
        c = _count(getattr(usage, "completion_tokens", None))
        if usage is None or (p == 0 and c == 0):  # the server gave none: ours, and labelled so
            p, c = tokenizer.count_messages(asked), tokenizer.count(said)
            source = "counted" if tokenizer.exact else "estimated"
        prompt_tokens, completion_tokens = prompt_tokens + p, completion_tokens + c
    return Completion(
        text=text,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        usage_source=source,
        finish_reason=finish,
        retries=retries,
        continued=continued,
        latency_seconds=time.monotonic() - began,
    )


async def _create(client: Any, settings: LLMSettings, messages: list[dict[str, str]]) -> Any:
    extra = {"max_tokens": settings.max_tokens} if settings.max_tokens else {}
    return await client.chat.completions.create(
        model=settings.model, messages=messages, temperature=settings.temperature, **extra
    )


async def with_retries(
    call: Callable[[], Awaitable[Any]], retries: int, sleep: Callable[[float], Awaitable[object]]
) -> tuple[Any, int]:
    """`call()`, again after a wait on 429, 5xx or a dropped connection (not a timeout: that already
    waited the whole timeout), at most `retries` more times. The wait is the answer's Retry-After
    when it gives one (over MAX_RETRY_AFTER: not retried), else 0.5 s doubling, with jitter."""
    attempt = 0
    while True:
        try:
            return await call(), attempt
        except Exception as exc:
            if attempt >= retries or not retryable(exc):
                raise
            asked = retry_after(exc)
            if asked is not None and asked > MAX_RETRY_AFTER:
                raise
            delay = asked if asked is not None else min(8.0, 0.5 * 2**attempt) * (1 + random.random() / 4)
            attempt += 1
            await sleep(delay)


def retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def retry_after(exc: Exception) -> float | None:
    """Seconds the answer asked to wait (`retry-after-ms`, `Retry-After` as seconds or an HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def finish_reason(response: Any) -> str | None:
    choices = getattr(response, "choices", None)
    reason = getattr(choices[0], "finish_reason", None) if isinstance(choices, list) and choices else None
    return reason if isinstance(reason, str) else None


def failure_sentence(exc: BaseException, settings: LLMSettings) -> str:
    """One clear sentence for what went wrong, then the endpoint's own words (shortened)."""
    import openai

    where = settings.base_url or "the default OpenAI endpoint"
    detail = _describe_failure(exc)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, ReplyCut | MalformedReply):
        return str(exc)
    if isinstance(exc, openai.APITimeoutError):
        return f"timeout: {where} gave no answer within {settings.timeout_seconds:g} s"
    if isinstance(exc, openai.APIConnectionError):
        cause = _root_cause(exc)
        if isinstance(cause, ConnectionRefusedError) or "refused" in str(cause).lower():
            return f"connection refused: nothing listens at {where} (is the server running, the port right?)"
        return f"cannot connect to {where}: {_describe_failure(cause) if cause else detail}"
    if status == 401:
        return f"401 unauthorized: {where} refused the API key (check {ENV_KEY}) — {detail}"
    if status == 403:
        return f"403 forbidden: the key may not use model {settings.model!r} at {where} — {detail}"
    if status == 404:
        return (
            f"404 not found: {where} does not know model {settings.model!r}, or the base URL is not the "
            f"API's (it usually ends in /v1) — {detail}"
        )
    if status == 429:
        asked = retry_after(exc)  # type: ignore[arg-type]
        wait = f"; it asked to wait {asked:g} s" if asked is not None else ""
        tries = f" after {settings.max_retries + 1} tries" if settings.max_retries else ""
        return f"429 rate-limited{tries}: {where} is throttling this key or model{wait} — {detail}"
    if isinstance(status, int) and status >= 500:
        tries = f" after {settings.max_retries + 1} tries" if settings.max_retries else ""
        return f"{status} server error{tries}: {where} failed to answer — {detail}"
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError | UnicodeDecodeError):
        return f"not a chat completion: {where} answered with something that is not OpenAI JSON — {detail}"
    return detail


def _root_cause(exc: BaseException) -> BaseException | None:
    seen, cause = 0, exc.__cause__ or exc.__context__
    while cause is not None and seen < 10:
        nxt = cause.__cause__ or cause.__context__
        if nxt is None:
            return cause
        cause, seen = nxt, seen + 1
    return cause


MAX_REPLY_CHARS = 200_000  # a rewrite of a kernel and its tiling program fits in far less


class MalformedReply(ValueError):
    """The endpoint answered, but not with one usable chat completion."""


def reply_text(response: Any) -> str:
    """The first choice's text, or MalformedReply saying what was wrong with the response."""
    if isinstance(response, str | bytes):  # the client hands back a body that was not JSON as is
        head = response[:60].decode("utf-8", "replace") if isinstance(response, bytes) else response[:60]
        raise MalformedReply(
            f"not a chat completion: the endpoint answered with text that is not JSON ({head!r}); "
            "is the base URL the API's (it usually ends in /v1)?"
        )
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


def _describe_failure(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:500] + (" …" if len(text) > 500 else "")


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
