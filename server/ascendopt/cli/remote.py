"""`ascendopt remote check|trust HOST`: look at an SSH host; record its host key on purpose."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ascendopt.cli.common import JsonOpt, app, error, fail, out
from ascendopt.evaluation.remote.settings import RemoteSettings, SettingsError, load_settings
from ascendopt.evaluation.runner import RunnerError

remote_app = typer.Typer(no_args_is_help=True, help="SSH hosts for the ssh:HOST backends.")
app.add_typer(remote_app, name="remote")

HostArg = Annotated[str, typer.Argument(help="a host from .ascendopt/remote.toml, or an ~/.ssh/config alias")]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="remote settings file (default .ascendopt/remote.toml)")
]


def _settings(config: Path | None) -> RemoteSettings:
    try:
        return load_settings(config)
    except SettingsError as exc:
        fail(str(exc))


@remote_app.command("check")
def check_cmd(host: HostArg, config: ConfigOpt = None, as_json: JsonOpt = False) -> None:
    """Connect and report OS, CANN, SoC and NPUs (npu-smi), devices, free disk, g++."""
    settings = _settings(config)
    try:
        from ascendopt.evaluation.remote.check import check_host  # asyncssh: loaded only when used

        report = asyncio.run(check_host(settings, host))
    except RunnerError as exc:
        error(str(exc), f"{host}:")
        raise typer.Exit(1) from exc
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    rows = [
        (
            "address",
            f"{report.user + '@' if report.user else ''}{report.address} "
            f"(connected in {report.connect_seconds:.2f} s, host key verified)",
        ),
        ("os", report.os or "?"),
        ("cann", report.cann or "not found"),
        ("npu-smi", f"{report.soc or '?'}, NPUs {report.npu_devices}" if report.npu_smi else "not found"),
        ("devices", f"{report.configured_devices} (configured)"),
        (
            "free disk",
            f"{report.free_disk_gb:.1f} GB under {report.root}"
            if report.free_disk_gb is not None
            else report.root,
        ),
        ("g++", report.gxx or "not found"),
        ("cpus", str(report.cpus or "?")),
        ("toolchain", f"{report.toolchain} (backend ssh:{host} means ssh:{host}:{report.toolchain})"),
    ]
    if report.parallel is not None:
        rows.append(("parallel", report.parallel.describe()))
    for key, value in rows:
        out.print(f"{key:>10}  {value}", highlight=False)
    for tip in report.suggestions():
        out.print(Text.assemble(("note:", "yellow"), " ", tip))


@remote_app.command("trust")
def trust_cmd(
    host: HostArg,
    config: ConfigOpt = None,
    replace: Annotated[bool, typer.Option("--replace", help="replace a different recorded key")] = False,
) -> None:
    """Record the host's current key in known_hosts (check its fingerprint first)."""
    settings = _settings(config)
    from ascendopt.evaluation.remote.hostkeys import trust  # asyncssh: loaded only when used
    from ascendopt.evaluation.remote.transport import SshTransport

    transport = SshTransport(settings.host(host), settings.ssh)
    try:
        result = asyncio.run(trust(transport, replace=replace))
    except RunnerError as exc:
        error(str(exc), f"{host}:")
        raise typer.Exit(1) from exc
    ep = result.endpoint
    out.print(
        f"{host} ({ep.host}:{ep.port}) {result.key_type} {result.fingerprint}: "
        f"{result.status} in {result.file}",
        highlight=False,
    )
