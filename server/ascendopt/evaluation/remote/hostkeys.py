"""Host keys: refuse unknown or changed keys with a message that says what to do; record on request.

Verification is asyncssh's (known_hosts, as OpenSSH reads it). This module only explains a
refusal, and implements `ascendopt remote trust HOST`, the one explicit action that records
a key. A changed key is never replaced silently: `trust --replace` must be asked for.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh
from pydantic import BaseModel

from ascendopt.evaluation.runner import RunnerError

if TYPE_CHECKING:
    from ascendopt.evaluation.remote.transport import SshTransport


class HostKeyError(RunnerError):
    """The host's key is unknown or changed: we refuse to talk to it."""


class HostEndpoint(BaseModel):
    """Where an alias really points (after ~/.ssh/config), and which known_hosts files apply."""

    name: str
    host: str
    port: int
    user: str | None
    known_hosts: list[str]


class TrustResult(BaseModel):
    endpoint: HostEndpoint
    fingerprint: str
    key_type: str
    file: str
    status: str  # "added", "already trusted", "replaced"


def resolve(transport: SshTransport) -> HostEndpoint:
    kw = transport.connect_kwargs()
    opts_kw: dict[str, Any] = {
        k: v for k, v in kw.items() if k in ("config", "port", "username", "known_hosts")
    }
    opts = asyncssh.SSHClientConnectionOptions(host=transport.address, **opts_kw)
    files = opts.known_hosts
    if files is None or files == ():
        listed: list[str] = [str(Path("~/.ssh/known_hosts").expanduser())]
    elif isinstance(files, (str, Path)):
        listed = [str(files)]
    else:
        listed = [str(f) for f in files]  # type: ignore[union-attr]
    return HostEndpoint(
        name=transport.host.name,
        host=str(opts.host),
        port=int(opts.port),
        user=opts.username,
        known_hosts=listed,
    )


def _pattern(ep: HostEndpoint) -> str:
    return ep.host if ep.port == 22 else f"[{ep.host}]:{ep.port}"


def _known_keys(ep: HostEndpoint) -> list[asyncssh.SSHKey]:
    keys: list[asyncssh.SSHKey] = []
    for file in ep.known_hosts:
        path = Path(file).expanduser()
        if not path.is_file():
            continue
        trusted, *_ = asyncssh.read_known_hosts(str(path)).match(ep.host, "", ep.port)
        keys.extend(trusted)
    return keys


async def fetch_key(transport: SshTransport) -> asyncssh.SSHKey:
    ep = resolve(transport)
    try:
        key = await asyncio.wait_for(
            asyncssh.get_server_host_key(ep.host, ep.port), transport.options.connect_timeout_s
        )
    except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
        raise HostKeyError(f"{ep.name}: cannot read the host key of {_pattern(ep)}: {exc}") from exc
    if key is None:
        raise HostKeyError(f"{ep.name}: the server presented no host key")
    return key


async def explain_host_key_failure(transport: SshTransport, exc: asyncssh.HostKeyNotVerifiable) -> str:
    ep = resolve(transport)
    try:
        presented = await fetch_key(transport)
        shown = f"{presented.get_algorithm()} {presented.get_fingerprint('sha256')}"
    except HostKeyError:
        shown = "(could not read it again)"
    files = ", ".join(ep.known_hosts)
    if _known_keys(ep):
        return (
            f"{ep.name} ({_pattern(ep)}): the host key CHANGED — it presents {shown}, which does not match "
            f"{files}. This may be an attack, or a reinstalled machine: ask its admin, then run "
            f"`ascendopt remote trust {ep.name} --replace`."
        )
    return (
        f"{ep.name} ({_pattern(ep)}): unknown host key {shown} (not in {files}). Compare the fingerprint "
        f"with the machine's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` there), then run "
        f"`ascendopt remote trust {ep.name}`."
    )


async def trust(transport: SshTransport, replace: bool = False) -> TrustResult:
    """Record the host's current key in the first known_hosts file that applies."""
    ep = resolve(transport)
    key = await fetch_key(transport)
    public = key.export_public_key("openssh").decode().strip()
    fingerprint = key.get_fingerprint("sha256")
    path = Path(ep.known_hosts[0]).expanduser()
    known = _known_keys(ep)
    result = TrustResult(
        endpoint=ep, fingerprint=fingerprint, key_type=key.get_algorithm(), file=str(path), status="added"
    )
    if any(k.public_data == key.public_data for k in known):
        result.status = "already trusted"
        return result
    pattern = _pattern(ep)
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    if known:
        if not replace:
            raise HostKeyError(
                f"{ep.name} ({pattern}) already has a different key in {path}; the new one is "
                f"{fingerprint}. Pass --replace only if its admin confirms the change."
            )
        lines = [ln for ln in lines if not _line_names(ln, pattern)]
        result.status = "replaced"
    lines.append(f"{pattern} {public}")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
    return result


def _line_names(line: str, pattern: str) -> bool:
    fields = line.split()
    return bool(fields) and not line.startswith("#") and pattern in fields[0].split(",")
