"""Edit-time checks with no run asked for: the UB budget at the spec's largest case as a hover on
`InitBuffer` and, when it overflows, a diagnostic on the InitBuffer that did not fit; the host tiling
over the spec's cases and shapes around them, a refused one marked on its case's line."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ascendopt.report.blocks import md_literal
from tests.lsp.conftest import KERNEL, OP, uri, wait_for

pytestmark = pytest.mark.slow  # the pre-check builds the operator with g++


def _open(client: LanguageClient, path: Path) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(path), language_id="cpp", version=1, text=path.read_text()
            )
        )
    )


async def _hover(client: LanguageClient, path: Path, line: int) -> str:
    got = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)), position=types.Position(line, 10)
        )
    )
    return got.contents.value if got is not None else ""  # type: ignore[union-attr]


def _init_lines(path: Path) -> list[int]:
    return [i for i, line in enumerate(path.read_text().splitlines()) if "InitBuffer(" in line]


async def test_a_hover_on_init_buffer_gives_that_buffer_and_the_total(
    scripted: LanguageClient, workspace: Path
):
    kernel = workspace / OP / KERNEL
    _open(scripted, kernel)
    first = _init_lines(kernel)[0]

    async def done() -> str:
        text = await _hover(scripted, kernel, first)
        return "" if "being computed" in text else text

    text = ""
    for _ in range(1500):
        if text := await done():
            break
        await asyncio.sleep(0.2)
    budget = "UB at case large: 3 InitBuffer(s), 48.0 KiB of 192.0 KiB (25%) on Ascend910B4"
    assert md_literal(budget) in text, text
    assert "this InitBuffer: 16.0 KiB (TQue)" in text
    assert f"| {md_literal(KERNEL)}:{first + 1} | 16.0 KiB |" in text
    # no diagnostics from it: nothing overflows, every shape is taken
    assert not [d for d in scripted.diagnostics.get(uri(kernel), []) if d.source and "edit-time" in d.source]


async def test_an_overflow_is_a_diagnostic_on_the_buffer_and_the_refused_case_is_marked(
    scripted: LanguageClient, workspace: Path
):
    host = workspace / OP / "op_host" / "add_custom.cpp"
    # tiles of 64 K elements, no longer capped by the UB: 3 queues × 2 buffers × 128 KiB for fp16 at
    # case large, far beyond the 192 KiB UB
    text = re.sub(r"TILE_LENGTH = \d+", "TILE_LENGTH = 65536", host.read_text())
    host.write_text(text.replace("TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile", "TILE_LENGTH"))
    kernel = workspace / OP / KERNEL
    _open(scripted, kernel)
    spec = workspace / OP / "ascendopt.toml"

    def overflow() -> list[types.Diagnostic]:
        return [d for d in scripted.diagnostics.get(uri(kernel), []) if d.code == "twin.ub_overflow"]

    [diag] = await wait_for(overflow, timeout=300, what="the UB overflow diagnostic")
    assert diag.range.start.line in _init_lines(kernel)
    assert diag.message.startswith("UB at case large:") and "192.0 KiB" in diag.message
    refused = await wait_for(lambda: scripted.diagnostics.get(uri(spec)), what="the refused cases")
    assert all(d.code == "tiling-refuses" for d in refused)
    near = [d for d in refused if "a shape near case large (x = [2048, 4096], y = [2048, 4096])" in d.message]
    assert near and near[0].severity == types.DiagnosticSeverity.Warning, [d.message for d in refused]
    assert "UB" in near[0].message
