"""The real server (`ascendopt serve`) on the CPU twin: Verify diagnostics on the right line and
their clearing, Profile in hovers and lenses, and a real (small) episode end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import HOST, KERNEL, OP, plain, uri, wait_for

pytestmark = pytest.mark.slow

GOOD = "AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);"
BAD = "AscendC::DataCopy(xLocal, xGm[progress * tileLength], count);"


async def _run(client: LanguageClient, command: str, *args: Any) -> Any:
    return plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(args))
        )
    )


def _line(path: Path, needle: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines()) if needle in t)


async def test_misaligned_copy_is_diagnosed_on_its_line_and_cleared_after_the_fix(
    twin: LanguageClient, workspace: Path
):
    kernel = workspace / OP / KERNEL
    good = kernel.read_text()
    kernel.write_text(good.replace(GOOD, BAD, 1))
    bad_line = _line(kernel, BAD)

    result = await _run(twin, "ascendopt.verify", {"uri": uri(kernel), "case": "small-tail"})
    assert result["status"] == "ok" and result["correct"] is False
    diags = twin.diagnostics[uri(kernel)]
    misaligned = [d for d in diags if d.code == "twin.misaligned_copy"]
    assert [d.range.start.line for d in misaligned] == [bad_line]
    assert "not a multiple of 32 B" in misaligned[0].message
    assert misaligned[0].severity == types.DiagnosticSeverity.Error
    text = kernel.read_text().splitlines()[bad_line]
    assert misaligned[0].range.start.character == len(text) - len(text.lstrip())  # the code, not its indent

    kernel.write_text(good)
    twin.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(kernel)))
    )
    evaluated = await wait_for(lambda: twin.seen.evaluated[1:], timeout=120, what="the re-verify")  # type: ignore[attr-defined]
    assert evaluated[0]["correct"] is True
    assert not twin.diagnostics[uri(kernel)]


async def test_profile_shows_the_estimate_in_the_hover_and_the_lens(twin: LanguageClient, workspace: Path):
    kernel = workspace / OP / KERNEL
    result = await _run(
        twin, "ascendopt.profile", {"operatorRoot": str(workspace / OP), "name": OP, "case": "small-tail"}
    )
    assert result["correct"] is True
    entry = _line(kernel, 'extern "C" __global__')

    hover = await twin.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(kernel)),
            position=types.Position(line=entry, character=30),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "`small-tail`:" in text
    assert "µs (estimate, 910B4 model) · MTE2 " in text and " %" in text and "-bound" in text
    assert "hot lines: [op_kernel/add_custom.cpp:" in text  # a link to the line
    assert f"]({uri(workspace / OP / KERNEL)}#L" in text

    away = await twin.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(kernel)),
            position=types.Position(line=0, character=0),
        )
    )
    assert away is None

    lenses = await twin.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(kernel)))
    )
    title = lenses[0].command.title if lenses[0].command else ""
    assert title.startswith("⚡ Optimize · ") and title.endswith(" µs est. 910B4")
    assert twin.seen.lens_refreshes >= 1  # type: ignore[attr-defined]


@pytest.mark.lsp_init({"ascendopt": {"budget": 6}})
async def test_real_episode_end_to_end_then_accept(twin: LanguageClient, workspace: Path):
    root = workspace / OP
    before = {rel: (root / rel).read_text() for rel in (HOST, KERNEL)}
    started = await _run(twin, "ascendopt.optimize", {"uri": uri(root / KERNEL)})
    assert started["status"] == "started"
    ended = await wait_for(lambda: twin.seen.episodes, timeout=300, what="the episode")  # type: ignore[attr-defined]
    assert ended[0]["cancelled"] is False
    outcome = ended[0]["outcome"]  # the episode's outcome record, worded by the server
    assert outcome["headline"] == ended[0]["message"] and not outcome["headline"].startswith(OP)
    assert outcome["status"] in ("suggestion", "no_gain")
    assert "durations: estimate, on cpu-twin" in outcome["details"]

    token = next(
        t for t, v in twin.progress_reports.items() if v and getattr(v[0], "title", "") == f"Optimize {OP}"
    )
    reports = [v for v in twin.progress_reports[token] if isinstance(v, types.WorkDoneProgressReport)]
    assert reports and all("/6 evaluations" in (r.message or "") for r in reports)
    assert [r.percentage for r in reports] == sorted(r.percentage for r in reports)

    suggestion_id = ended[0]["suggestion"]
    if suggestion_id is None:
        pytest.skip(f"the episode found nothing to suggest: {ended[0]['message']}")
    offered = (await wait_for(lambda: twin.seen.suggestions, timeout=30, what="the suggestion"))[-1]  # type: ignore[attr-defined]
    assert offered["id"] == suggestion_id and offered["files"]
    assert offered["title"] == f"{OP}: {outcome['headline']}" and offered["outcome"]["status"] == "suggestion"
    result = await _run(twin, "ascendopt.acceptSuggestion", suggestion_id)
    assert result["applied"] is True
    after = {rel: (root / rel).read_text() for rel in (HOST, KERNEL)}
    for f in offered["files"]:
        assert after[f["path"]] == f["proposed"] != before[f["path"]]
    journal = list((workspace / ".ascendopt").rglob("events.jsonl"))
    lines = [json.loads(line) for p in journal for line in p.read_text().splitlines()]
    assert {"suggestion": suggestion_id, "decision": "accepted"} in [
        e["data"] for e in lines if e["type"] == "decision.user"
    ]


async def test_mine_experience_from_the_editor_adds_measured_lessons(twin: LanguageClient, workspace: Path):
    lenses = await twin.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(workspace / OP / KERNEL)))
    )
    assert any(lens.command and lens.command.command == "ascendopt.mineExperience" for lens in lenses or [])
    result = await _run(twin, "ascendopt.mineExperience", {"operatorRoot": str(workspace / OP), "name": OP})
    assert result["status"] == "ok" and result["lessons"] >= 3
    kept = {s["deoptimization"] for s in result["steps"] if s["kept"]}
    assert {"barrier_after_copy", "second_pass"} <= kept
    shown = await _run(twin, "ascendopt.showExperience", {"operatorRoot": str(workspace / OP)})
    assert any(lesson["timing"] == "estimated" for lesson in shown["lessons"])


async def test_quick_fix_turns_the_misaligned_copy_into_datacopypad_and_verify_passes(
    twin: LanguageClient, workspace: Path
):
    kernel = workspace / OP / KERNEL
    kernel.write_text(kernel.read_text().replace(GOOD, BAD, 1))
    result = await _run(twin, "ascendopt.verify", {"uri": uri(kernel), "case": "small-tail"})
    assert result["correct"] is False
    (diag,) = [d for d in twin.diagnostics[uri(kernel)] if d.code == "twin.misaligned_copy"]
    assert diag.code_description is not None and "atlasascendc_api_07_0265" in diag.code_description.href

    actions = await twin.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(kernel)),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix]),
        )
    )
    fixes = [
        a
        for a in actions or []
        if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix
    ]
    assert [f.title.split(" (")[0] for f in fixes] == ["Use DataCopyPad"]
    assert fixes[0].edit is not None and fixes[0].edit.changes is not None
    (edit,) = fixes[0].edit.changes[uri(kernel)]
    lines = kernel.read_text().splitlines(keepends=True)
    line = lines[edit.range.start.line]
    lines[edit.range.start.line] = (
        line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
    )
    kernel.write_text("".join(lines))
    assert (
        "DataCopyPad(xLocal, xGm[progress * tileLength], AscendC::DataCopyExtParams{1," in kernel.read_text()
    )

    again = await _run(twin, "ascendopt.verify", {"uri": uri(kernel), "case": "small-tail"})
    assert again["correct"] is True, again
