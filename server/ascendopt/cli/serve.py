"""`ascendopt serve`: the language server, over stdio (editors) or TCP (debugging)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from ascendopt.cli.common import app, fail


@app.command("serve")
def serve_cmd(
    tcp: Annotated[
        str | None,
        typer.Option("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)"),
    ] = None,
    log_file: Annotated[
        Path | None, typer.Option("--log-file", help="write the server log here (default: stderr)")
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="log every LSP message (keys are redacted)")
    ] = False,
) -> None:
    """Run the AscendOptimizer language server (what the VS Code extension starts)."""
    # Imported here so that other commands do not pay for pygls.
    from ascendopt.lsp import logs
    from ascendopt.lsp.app import build_server

    logs.configure(logging.DEBUG if verbose else logging.INFO, log_file, verbose=verbose)
    server = build_server()
    if tcp is None:
        server.start_io()
        return
    host, _, port = tcp.rpartition(":")
    if not host or not port.isdigit():
        fail(f"--tcp expects HOST:PORT, got {tcp!r}")
    server.start_tcp(host, int(port))
