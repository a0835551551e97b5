"""Index, lenses, code actions and discovery diagnostics: no compiling, the scripted server."""

from __future__ import annotations

import ast
import asyncio
import shutil
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import TEMPLATES
from tests.lsp.conftest import HOST, KERNEL, OP, plain, uri, wait_for


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines()) if needle in line)


async def test_lenses_on_kernel_entry_tiling_function_and_spec(scripted: LanguageClient, workspace: Path):
    root = workspace / OP
    assert [o["name"] for o in scripted.seen.indexed[-1]["operators"]] == [OP]  # type: ignore[attr-defined]

    lenses = await scripted.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(root / KERNEL)))
    )
    entry = _line_of(root / KERNEL, 'extern "C" __global__')
    assert {lens.range.start.line for lens in lenses} == {entry}
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles == ["⚡ Optimize operator", "Tune tiling only", "Verify", "Profile", "Mine experience"]
    assert lenses[0].command and lenses[0].command.command == "ascendopt.optimize"
    assert plain(lenses[0].command.arguments) == [{"operatorRoot": str(root), "name": OP}]

    host_lenses = await scripted.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(root / HOST)))
    )
    assert {lens.range.start.line for lens in host_lenses} == {_line_of(root / HOST, "TilingFunc(gert::")}

    spec_lenses = await scripted.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(root / "ascendopt.toml")))
    )
    assert len(spec_lenses) == 5

    reference = await scripted.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(root / "reference.py")))
    )
    assert not reference


def _action_command(action: types.Command | types.CodeAction) -> str:
    # lsprotocol's client-side converter reads a CodeAction whose `command` is a Command as a
    # Command whose `command` is that object's repr; unwrap it (a real editor parses it fine).
    if isinstance(action, types.CodeAction):
        assert action.command is not None
        return action.command.command
    assert action.title.startswith("AscendOptimizer: ")
    return str(ast.literal_eval(action.command)["command"])


async def test_code_actions_only_inside_the_kernel_entry(scripted: LanguageClient, workspace: Path):
    kernel = workspace / OP / KERNEL
    entry = _line_of(kernel, 'extern "C" __global__')

    async def actions(line: int) -> list[str]:
        got = await scripted.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri(kernel)),
                range=types.Range(
                    start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
                ),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        return [_action_command(a) for a in got or []]

    assert await actions(entry + 2) == [
        "ascendopt.optimize",
        "ascendopt.tuneTiling",
        "ascendopt.verify",
        "ascendopt.profile",
        "ascendopt.mineExperience",
    ]
    assert await actions(0) == []


async def test_spec_error_shows_on_its_line_and_clears_when_fixed(scripted: LanguageClient, workspace: Path):
    spec = workspace / OP / "ascendopt.toml"
    good = spec.read_text()
    spec.write_text(good.replace('dtype = "float32"', 'dtype = "float33"'))
    bad_line = _line_of(spec, "float33")
    scripted.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri(spec), type=types.FileChangeType.Changed)]
        )
    )
    diags = await wait_for(lambda: scripted.diagnostics.get(uri(spec)), what="the spec diagnostic")
    assert [d.range.start.line for d in diags] == [bad_line]
    assert "float33" in diags[0].message and diags[0].severity == types.DiagnosticSeverity.Error

    spec.write_text(good)
    scripted.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(spec)))
    )
    await wait_for(lambda: not scripted.diagnostics[uri(spec)], what="the spec diagnostic to clear")


async def test_new_operator_is_indexed_when_its_files_appear(scripted: LanguageClient, workspace: Path):
    shutil.copytree(TEMPLATES / "mul_custom", workspace / "mul_custom")
    kernel = workspace / "mul_custom" / "op_kernel" / "mul_custom.cpp"
    scripted.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri(kernel), type=types.FileChangeType.Created)]
        )
    )

    async def lens_count() -> int:
        got = await scripted.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri(kernel)))
        )
        return len(got or [])

    for _ in range(200):
        if await lens_count() == 5:
            break
        await asyncio.sleep(0.05)
    assert await lens_count() == 5
    assert [o["name"] for o in scripted.seen.indexed[-1]["operators"]] == ["add_custom", "mul_custom"]


async def test_a_spec_kept_outside_the_workspace_applies_once_named_in_the_settings(
    scripted: LanguageClient, workspace: Path
):
    """`ascendopt.specs` is the editor's `--spec`: the operator takes the spec that names it, and
    the spec file outside the workspace gets the operator's lenses."""
    mine = workspace.parent / "mine"
    mine.mkdir()
    shutil.copy(workspace / OP / "ascendopt.toml", mine / "add_custom.toml")
    shutil.copy(workspace / OP / "reference.py", mine / "reference.py")
    spec_doc = types.TextDocumentIdentifier(uri=uri(mine / "add_custom.toml"))
    outside = types.CodeLensParams(text_document=spec_doc)
    assert not await scripted.text_document_code_lens_async(outside)

    indexed = len(scripted.seen.indexed)  # type: ignore[attr-defined]
    scripted.set_configuration({"specs": [str(mine / "add_custom.toml")]}, section="ascendopt")
    scripted.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: len(scripted.seen.indexed) > indexed, what="the re-index")  # type: ignore[attr-defined]
    lenses = await scripted.text_document_code_lens_async(outside)
    assert [lens.command.title for lens in lenses if lens.command][2:4] == ["Verify", "Profile"]
    assert plain(lenses[0].command.arguments) == [{"operatorRoot": str(workspace / OP), "name": OP}]  # type: ignore[union-attr]
