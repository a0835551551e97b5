"""`ascendopt llm check`: one small chat call to the configured endpoint, and what it tells.

Success: the model, the latency, the usage (the server's, or counted by us and labelled), the
context length assumed and where that figure comes from. Failure: one sentence per kind (401, 404
with the endpoint's models when /models answers, 429, 5xx, a timeout, a refused connection, an
answer that is not a chat completion), the same sentences an episode journals.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from ascendopt.agent.llm import LLMSettings, complete, failure_sentence, openai_client
from ascendopt.agent.tokens import tokenizer_for
from ascendopt.untrusted import shorten

PROBE = [{"role": "user", "content": "Reply with the single word: ok"}]
MAX_MODELS_SHOWN = 20


class CheckReport(BaseModel):
    ok: bool
    endpoint: str
    model: str | None
    context_tokens: int
    context_source: str
    prompt_budget: int  # what a prompt may take: the context less the reply's share
    tokenizer: str
    latency_seconds: float | None = None
    reply: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    usage_source: str | None = None
    finish_reason: str | None = None
    retries: int = 0
    error: str | None = None
    models: list[str] | None = None  # the endpoint's models, listed when it did not know ours

    def lines(self) -> list[str]:
        rows = [
            f"endpoint: {self.endpoint}",
            f"model: {self.model}",
            f"context: {self.context_tokens:,} tokens assumed ({self.context_source}); "
            f"prompts get {self.prompt_budget:,}",
            f"tokenizer: {self.tokenizer}",
        ]
        if self.ok:
            rows += [
                f"latency: {self.latency_seconds:.2f} s"
                + (f" ({self.retries} retries)" if self.retries else ""),
                f"reply: {self.reply!r} (finish_reason {self.finish_reason})",
                f"usage: {self.prompt_tokens} in, {self.completion_tokens} out ({self.usage_source})",
                "ok",
            ]
        else:
            if self.latency_seconds is not None:
                rows.append(f"failed after {self.latency_seconds:.2f} s")
            if self.models is not None:
                shown = ", ".join(self.models[:MAX_MODELS_SHOWN]) or "(none)"
                hidden = len(self.models) - MAX_MODELS_SHOWN
                more = f" and {hidden} more" if hidden > 0 else ""
                rows.append(f"models this endpoint serves: {shown}{more}")
            rows.append(f"error: {self.error}")
        return rows


async def check_endpoint(
    settings: LLMSettings, sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
) -> CheckReport:
    context = settings.context()
    report = CheckReport(
        ok=False,
        endpoint=settings.base_url or "the default OpenAI endpoint",
        model=settings.model,
        context_tokens=context.tokens,
        context_source=context.source,
        prompt_budget=settings.prompt_budget(),
        tokenizer=tokenizer_for(settings.model).label,
    )
    client = openai_client(settings)
    scrub = settings.scrubber()
    began = time.monotonic()
    try:
        done = await complete(client, settings, PROBE, sleep)
    except Exception as exc:
        report.latency_seconds = time.monotonic() - began
        report.error = scrub.text(failure_sentence(exc, settings))
        if getattr(exc, "status_code", None) == 404:
            report.models = await _models(client)
        return report
    finally:
        await client.close()
    report.ok = True
    report.latency_seconds = done.latency_seconds
    report.reply = scrub.text(shorten(done.text.strip(), 80))
    report.prompt_tokens, report.completion_tokens = done.prompt_tokens, done.completion_tokens
    report.usage_source = done.usage_source
    report.finish_reason = done.finish_reason
    report.retries = done.retries
    return report


async def _models(client: object) -> list[str] | None:
    """The endpoint's model ids, or None when /models does not answer."""
    try:
        page = await client.models.list()  # type: ignore[attr-defined]
        return sorted(str(m.id) for m in page.data)
    except Exception:
        return None
