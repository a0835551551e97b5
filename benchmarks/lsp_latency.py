"""Editor latency in a big workspace: the first lens on an open file, and codeLens / hover /
codeAction p95 while the user types. Targets: first lens < 1 s, each p95 < 50 ms.

    .venv/bin/python benchmarks/lsp_latency.py [--operators 200] [--requests 200]

Builds a workspace of N copies of templates/operators/add_custom (each renamed add_custom_<i>, so
every operator is distinct), starts `ascendopt serve` over stdio with a real LSP client
(pytest-lsp's), and, right after `initialized`, opens one operator's kernel and asks for its lenses
until they come. Printed:

- first lens: from `initialized` to the first non-empty codeLens answer on the open file (the
  server discovers the open document's operator on its own, before the workspace index);
- workspace index: from `initialized` to the `ascendopt/indexed` notification (all N operators);
- p50/p95 of codeLens, hover (on the kernel entry) and codeAction (on the entry line), each request
  after a didChange, so every one parses a new buffer version (typing, the worst case).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, make_test_lsp_client

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "templates" / "operators" / "add_custom"


def build_workspace(where: Path, count: int) -> Path:
    for i in range(count):
        name = f"add_custom_{i:03d}"
        dest = where / name
        shutil.copytree(TEMPLATE, dest)
        for path in sorted(dest.rglob("*"), key=lambda p: -len(p.parts)):
            if path.is_file() and path.suffix in (".cpp", ".h", ".toml", ".py", ".json"):
                text = path.read_text(encoding="utf-8")
                path.write_text(text.replace("add_custom", name).replace("AddCustom", f"AddCustom{i:03d}"))
            if "add_custom" in path.name:
                path.rename(path.with_name(path.name.replace("add_custom", name)))
    return where


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def timed(work: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await work()
    return (time.perf_counter() - start) * 1000


async def run(operators: int, requests: int) -> None:
    with tempfile.TemporaryDirectory(prefix="ascendopt-lsp-bench-") as tmp:
        ws = build_workspace(Path(tmp).resolve(), operators)
        target = ws / f"add_custom_{operators // 2:03d}"
        kernel = target / "op_kernel" / f"{target.name}.cpp"
        text = kernel.read_text()
        entry = next(i for i, line in enumerate(text.splitlines()) if "__global__" in line)
        column = text.splitlines()[entry].index(f"{target.name}(") + 2
        client: LanguageClient = make_test_lsp_client()
        indexed = asyncio.Event()
        client.feature("ascendopt/indexed")(lambda params: indexed.set())
        await client.start_io(sys.executable, "-m", "ascendopt", "serve")
        try:
            await client.initialize_session(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(
                        window=types.WindowClientCapabilities(work_done_progress=True)
                    ),
                    workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
                )
            )
            start = time.perf_counter()
            doc = types.TextDocumentIdentifier(uri=kernel.as_uri())
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=doc.uri, language_id="cpp", version=1, text=text)
                )
            )
            while not await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)):
                await asyncio.sleep(0.01)
            first_lens = time.perf_counter() - start
            index_was_in = indexed.is_set()
            await asyncio.wait_for(indexed.wait(), 600)
            index_s = time.perf_counter() - start

            version = 1
            line = types.Range(
                start=types.Position(line=entry, character=0), end=types.Position(line=entry, character=0)
            )

            def typed() -> None:
                nonlocal version
                version += 1
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=version),
                        content_changes=[
                            types.TextDocumentContentChangeWholeDocument(text=text + f"// edit {version}\n")
                        ],
                    )
                )

            calls: dict[str, Callable[[], Awaitable[Any]]] = {
                "codeLens": lambda: client.text_document_code_lens_async(
                    types.CodeLensParams(text_document=doc)
                ),
                "hover": lambda: client.text_document_hover_async(
                    types.HoverParams(
                        text_document=doc, position=types.Position(line=entry, character=column)
                    )
                ),
                "codeAction": lambda: client.text_document_code_action_async(
                    types.CodeActionParams(
                        text_document=doc, range=line, context=types.CodeActionContext(diagnostics=[])
                    )
                ),
            }
            figures: dict[str, list[float]] = {name: [] for name in calls}
            for _ in range(requests):
                for name, call in calls.items():
                    typed()
                    figures[name].append(await timed(call))
        finally:
            await client.shutdown_session()
            await client.stop()

    print(f"workspace: {operators} operators (add_custom copies); {requests} requests of each kind")
    print(
        f"first lens on the open file: {first_lens:.2f} s after initialized (target < 1 s; "
        f"the workspace index was {'already' if index_was_in else 'not yet'} in)"
    )
    print(f"workspace index of all {operators} operators: {index_s:.2f} s after initialized")
    for name, values in figures.items():
        print(
            f"{name:>10}: p50 {statistics.median(values):.1f} ms, p95 {p(values, 0.95):.1f} ms, "
            f"max {max(values):.1f} ms (target p95 < 50 ms; a didChange before each)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--operators", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.operators, args.requests))


if __name__ == "__main__":
    main()
