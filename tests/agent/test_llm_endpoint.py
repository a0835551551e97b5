"""The LLM endpoint against loopback servers: retries honouring Retry-After, a reply cut at the token
limit continued or refused, usage journaled per call (the server's, or counted by us and labelled),
and `ascendopt llm check`'s sentence for each failure."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from ascendopt.agent.endpoint_check import check_endpoint
from ascendopt.agent.llm import LLMClient, LLMSettings, LLMUnavailable
from ascendopt.agent.tokens import context_for, tokenizer_for, totals
from ascendopt.cli import app
from ascendopt.journal.events import LlmEvent
from ascendopt.journal.store import EpisodeJournal
from tests.agent.scripted_llm import Answer, RawReply, ScriptedLLMServer, error_reply

MESSAGES = [{"role": "user", "content": "rewrite it"}]
runner = CliRunner()


def _settings(server: ScriptedLLMServer, **kw: object) -> LLMSettings:
    return LLMSettings(base_url=server.base_url, model="m", api_key=SecretStr("sk-test"), **kw)  # type: ignore[arg-type]


def _journal(tmp_path: Path) -> EpisodeJournal:
    return EpisodeJournal.create(tmp_path, "ep1")


def _events(journal: EpisodeJournal) -> list[LlmEvent]:
    return [e.data for e in journal.events("llm") if isinstance(e.data, LlmEvent)]


def _then(*replies: str | RawReply | Answer):  # type: ignore[no-untyped-def]
    queue = list(replies)
    return lambda messages: queue.pop(0) if len(queue) > 1 else queue[0]


async def test_429_with_retry_after_is_waited_out_then_answered(tmp_path: Path) -> None:
    with ScriptedLLMServer(_then(error_reply(429, "slow down", {"Retry-After": "1"}), "done")) as server:
        journal = _journal(tmp_path)
        began = time.monotonic()
        text = await LLMClient(_settings(server), journal).chat(MESSAGES, "rewrite")
        waited = time.monotonic() - began
    assert text == "done" and len(server.requests) == 2
    assert waited >= 1.0  # the real client slept the second the server asked for
    (event,) = _events(journal)
    assert event.retries == 1 and event.usage == {"prompt_tokens": 100, "completion_tokens": 50}


async def test_5xx_backs_off_and_a_long_retry_after_is_not_waited_for(tmp_path: Path) -> None:
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    with ScriptedLLMServer(_then(error_reply(503, "busy"), error_reply(502, "busy"), "ok")) as server:
        assert await LLMClient(_settings(server), _journal(tmp_path), sleep=sleep).chat(MESSAGES, "x") == "ok"
    assert len(waits) == 2 and 0.5 <= waits[0] <= 0.7 and 1.0 <= waits[1] <= 1.3  # doubling, with jitter
    waits.clear()
    with (
        ScriptedLLMServer(_then(error_reply(429, "quota", {"Retry-After": "3600"}))) as server,
        pytest.raises(LLMUnavailable, match=r"429 rate-limited.*asked to wait 3600 s"),
    ):
        await LLMClient(_settings(server), _journal(tmp_path / "b"), sleep=sleep).chat(MESSAGES, "x")
    assert waits == [] and len(server.requests) == 1


async def test_a_reply_cut_at_the_limit_is_continued_once_then_refused(tmp_path: Path) -> None:
    with ScriptedLLMServer(
        _then(Answer("FILE: a\n<<<<<<< SE", "length"), Answer("ARCH\nx\n", "stop"))
    ) as server:
        journal = _journal(tmp_path)
        text = await LLMClient(_settings(server), journal).chat(MESSAGES, "rewrite")
    assert text == "FILE: a\n<<<<<<< SEARCH\nx\n"
    asked_again = server.requests[1]["messages"]
    assert asked_again[-2] == {"role": "assistant", "content": "FILE: a\n<<<<<<< SE"}
    assert "Continue exactly where it stopped" in asked_again[-1]["content"]
    (event,) = _events(journal)
    assert event.continued and event.usage == {"prompt_tokens": 200, "completion_tokens": 100}

    with ScriptedLLMServer(_then(Answer("half", "length"))) as server:
        journal = _journal(tmp_path / "b")
        with pytest.raises(
            LLMUnavailable, match=r"cut at the model's token limit \(finish_reason = length\) twice"
        ):
            await LLMClient(_settings(server), journal).chat(MESSAGES, "rewrite")
    assert len(server.requests) == 2 and "finish_reason = length" in (_events(journal)[0].error or "")


async def test_usage_the_server_omits_is_counted_and_labelled(tmp_path: Path) -> None:
    for finish in (None, "eos"):  # llama.cpp / some vLLM builds: no usage, odd finish reasons
        with ScriptedLLMServer(_then(Answer("one two three", finish, usage=False))) as server:
            journal = _journal(tmp_path / str(finish))
            assert await LLMClient(_settings(server), journal).chat(MESSAGES, "x") == "one two three"
        (event,) = _events(journal)
        tokenizer = tokenizer_for("m")
        assert event.usage_source == ("counted" if tokenizer.exact else "estimated")
        assert event.usage == {
            "prompt_tokens": tokenizer.count_messages(MESSAGES),
            "completion_tokens": tokenizer.count("one two three"),
        }
        assert event.finish_reason == finish


def test_the_episode_total_sums_calls_and_prices_them() -> None:
    from ascendopt.agent.tokens import Price

    total = totals(
        [
            ({"prompt_tokens": 1000, "completion_tokens": 200}, "server"),
            ({"prompt_tokens": 10, "completion_tokens": 5}, "counted"),
            (None, None),
        ],
        Price(2.0, 8.0),
    )
    assert (total.calls, total.prompt_tokens, total.completion_tokens, total.counted_calls) == (
        2,
        1010,
        205,
        1,
    )
    assert total.cost == pytest.approx((1010 * 2 + 205 * 8) / 1e6)
    assert "2 calls, 1,010 tokens in, 205 out, cost 0.0037" in total.line()
    assert "1 of 2 calls counted by us" in total.line()


def test_the_tokenizer_counts_offline_as_tiktoken_does() -> None:
    tokenizer = tokenizer_for("deepseek-chat")
    if not tokenizer.exact:
        pytest.skip("bpe-openai is not installed: counts are estimates (and say so)")
    assert tokenizer.encoding == "cl100k_base" and tokenizer.count("tiktoken is great!") == 6
    assert tokenizer_for("gpt-4o").encoding == "o200k_base"
    assert tokenizer.count("<|endoftext|>") > 1  # a special token in a source file is text


def test_the_context_length_by_family_and_by_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCENDOPT_LLM_CONTEXT", raising=False)
    assert context_for("deepseek-chat").tokens == 131_072
    assert context_for("qwen-max").tokens == 32_768 and context_for("qwen-plus").tokens == 131_072
    assert context_for("gpt-4o-mini").tokens == 128_000
    assert context_for("whatever-local").source.startswith("default")
    assert context_for("deepseek-chat", 131_072).source == "setting"
    monkeypatch.setenv("ASCENDOPT_LLM_CONTEXT", "128k")
    assert context_for("qwen-max").tokens == 131_072
    assert LLMSettings(model="m", max_tokens=4096).prompt_budget() == 131_072 - 4096


# -- ascendopt llm check ---------------------------------------------------------------------------


def _check(url: str, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["llm", "check", "--base-url", url, "--model", "m", "--retries", "0", *extra])
    return result.exit_code, result.output


def test_check_reports_model_latency_and_context() -> None:
    with ScriptedLLMServer(lambda m: "ok") as server:
        code, text = _check(server.base_url, "--context", "65536")
    assert code == 0, text
    assert "model: m" in text and "latency: " in text and "context: 65,536 tokens assumed (setting)" in text
    assert "usage: 100 in, 50 out (server)" in text and text.rstrip().endswith("ok")


FAILURES = [
    (error_reply(401, "Incorrect API key provided"), "401 unauthorized", "refused the API key"),
    (error_reply(404, "The model `m` does not exist"), "404 not found", "models this endpoint serves: a, b"),
    (error_reply(429, "Rate limit reached", {"Retry-After": "7"}), "429 rate-limited", "asked to wait 7 s"),
    (error_reply(500, "upstream exploded"), "500 server error", "upstream exploded"),
    (RawReply(b"<html>502 bad gateway</html>", 200, "text/html"), "not a chat completion", "not JSON"),
]


@pytest.mark.parametrize(("reply", "sentence", "detail"), FAILURES, ids=["401", "404", "429", "500", "html"])
def test_check_says_what_failed(reply: RawReply, sentence: str, detail: str) -> None:
    with ScriptedLLMServer(lambda m: reply, models=["b", "a"]) as server:
        code, text = _check(server.base_url)
    assert code == 1, text
    assert sentence in text and detail in text, text


def test_check_a_refused_connection_and_a_timeout() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, text = _check(f"http://127.0.0.1:{port}/v1")
    assert code == 1 and "connection refused: nothing listens at" in text, text

    def slow(messages: list[dict[str, str]]) -> str:
        time.sleep(1.5)
        return "late"

    with ScriptedLLMServer(slow) as server:
        code, text = _check(server.base_url, "--timeout", "0.5")
    assert code == 1 and "timeout: " in text and "within 0.5 s" in text, text


def test_check_without_a_model_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASCENDOPT_LLM_MODEL", "ASCENDOPT_LLM_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = runner.invoke(app, ["llm", "check"])
    assert result.exit_code == 2 and "no LLM configured" in result.output


async def test_check_service_reports_the_refusal_sentence_as_data() -> None:
    with ScriptedLLMServer(lambda m: error_reply(401, "bad key")) as server:
        report = await check_endpoint(_settings(server, max_retries=0))
    assert not report.ok and report.error is not None and report.error.startswith("401 unauthorized")
