"""`ascendopt llm check`: one call to the configured LLM endpoint (agent/endpoint_check.py)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ascendopt.cli.common import JsonOpt, app, err, print_raw, say
from ascendopt.redact import LLM_KEY, Scrubber

llm_app = typer.Typer(no_args_is_help=True, help="The LLM endpoint kernel rewriting talks to.")
app.add_typer(llm_app, name="llm")


@llm_app.command("check")
def check_cmd(
    model: Annotated[str | None, typer.Option("--model", help="default: $ASCENDOPT_LLM_MODEL")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="default: $ASCENDOPT_LLM_BASE_URL (or $OPENAI_BASE_URL)")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="seconds to wait for the answer")] = 60.0,
    retries: Annotated[int, typer.Option("--retries", help="retries on 429 / 5xx / a lost connection")] = 3,
    context: Annotated[
        int | None, typer.Option("--context", help="context length to assume ($ASCENDOPT_LLM_CONTEXT)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Make one small chat call; print the model, the latency, the context length assumed, or why it
    failed. Exit 0 ok, 1 the endpoint failed, 2 nothing to check (no model or endpoint set)."""
    from ascendopt.agent.endpoint_check import check_endpoint
    from ascendopt.agent.llm import LLMSettings

    settings = LLMSettings.from_env(model=model, base_url=base_url)
    if not settings.enabled:
        err.print(
            "error: no LLM configured: set ASCENDOPT_LLM_MODEL (or --model) and ASCENDOPT_LLM_BASE_URL "
            "(or --base-url) or ASCENDOPT_LLM_API_KEY",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(2)
    settings = settings.model_copy(
        update={"timeout_seconds": timeout, "max_retries": max(0, retries), "context_tokens": context}
    )
    report = asyncio.run(check_endpoint(settings))
    if as_json:
        print_raw(report.model_dump_json(indent=2) + "\n")
    else:
        for line in report.lines():
            (say if report.ok else _err)(line)
    if not report.ok:
        raise typer.Exit(1)


def _err(line: str) -> None:
    err.print(Scrubber([LLM_KEY.read() or ""]).text(line), markup=False, highlight=False, soft_wrap=True)
