"""The episode report from the editor (`ascendopt.episodeReport`: the page a webview shows), and
Accept refreshing what the lenses and hovers say."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.operators.discovery import load_operator
from tests.lsp.conftest import KERNEL, OP, plain, uri, wait_for


async def _run(client: LanguageClient, command: str, *args: Any) -> Any:
    return plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(args))
        )
    )


async def _lens_titles(client: LanguageClient, path: Path) -> list[str]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(path)))
    )
    return [lens.command.title for lens in lenses or [] if lens.command]


@pytest.mark.slow
async def test_episode_report_returns_the_page_of_a_real_episode(twin: LanguageClient, workspace: Path):
    # A real (cancelled) episode on the CPU twin, journaled in the workspace the server indexes.
    cancel = asyncio.Event()
    cancel.set()
    outcome = await Optimizer(workspace).optimize(
        load_operator(workspace / OP), EpisodeSettings(budget=6), cancel=cancel
    )
    by_id = await _run(twin, "ascendopt.episodeReport", {"episode": outcome.episode})
    assert by_id["episode"] == outcome.episode
    page = by_id["html"]
    assert page.startswith("<!doctype html>") and "<svg" in page and "<script" not in page
    assert "cancelled after 2 of 6 evaluations" in page and "<td>small-tail</td>" in page
    # From the kernel file: the operator's newest episode.
    newest = await _run(twin, "ascendopt.episodeReport", {"uri": uri(workspace / OP / KERNEL)})
    assert newest["episode"] == outcome.episode and newest["html"] == page
    missing = await _run(twin, "ascendopt.episodeReport", {"episode": "nope"})
    assert missing == {"error": "no episode 'nope' in this workspace"}


@pytest.mark.slow
async def test_accept_refreshes_lenses_and_drops_the_old_duration(scripted: LanguageClient, workspace: Path):
    kernel = workspace / OP / KERNEL
    profiled = await _run(
        scripted, "ascendopt.profile", {"operatorRoot": str(workspace / OP), "name": OP, "case": "small-tail"}
    )
    assert profiled["correct"] is True
    assert any(t.startswith("⚡ Optimize · ") and "µs" in t for t in await _lens_titles(scripted, kernel))
    await _run(scripted, "ascendopt.optimize", {"uri": uri(kernel)})
    s = (await wait_for(lambda: scripted.seen.suggestions, what="the suggestion"))[-1]  # type: ignore[attr-defined]
    await wait_for(lambda: scripted.seen.episodes, what="the episode's end")  # type: ignore[attr-defined]
    await asyncio.sleep(0.2)  # the end's own lens refresh has arrived
    before = scripted.seen.lens_refreshes  # type: ignore[attr-defined]
    result = await _run(scripted, "ascendopt.acceptSuggestion", s["id"])
    assert result["applied"] is True
    await wait_for(lambda: scripted.seen.lens_refreshes > before, what="a lens refresh after accept")  # type: ignore[attr-defined]
    titles = await _lens_titles(scripted, kernel)
    assert "⚡ Optimize operator" in titles and not any("µs" in t for t in titles)
