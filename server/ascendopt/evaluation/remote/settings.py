"""Remote machines and how to use them: `.ascendopt/remote.toml` (or $ASCENDOPT_REMOTE_CONFIG).

```toml
remote_dir = "~/.ascendopt-remote"      # on each host; one folder per workspace below it
[[hosts]]
name = "npu-box"                        # an alias in ~/.ssh/config, or give host/port/user/key
devices = "0-7"
toolchain = "cann"                      # what `ssh:npu-box` means when the backend names none
[commands]                              # CANN command templates (cann/templates.py)
build = "bash build.sh"
[operators.add_custom.commands]         # per-operator overrides
run = "..."
```
Nothing here is a secret: keys are named by path, never inlined.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ascendopt.evaluation.pool import RetryPolicy

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ToolchainName = Literal["cpu-twin", "cann"]
SETTINGS_FILE = Path(".ascendopt") / "remote.toml"
_NAME = re.compile(r"^[A-Za-z0-9_.@-]+$")


class SettingsError(ValueError):
    pass


def parse_devices(text: str) -> list[int]:
    """`"0-7"`, `"0,2,4-5"` → device ids (sorted, unique)."""
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi) if sep else int(lo)
        except ValueError as exc:
            raise SettingsError(f"devices {text!r}: {part!r} is not N or N-M") from exc
        if a < 0 or b < a:
            raise SettingsError(f"devices {text!r}: bad range {part!r}")
        out.update(range(a, b + 1))
    if not out:
        raise SettingsError(f"devices {text!r}: no device")
    return sorted(out)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CommandOverrides(_Strict):
    """Command templates by step name; see `cann/templates.py` for the steps and variables."""

    commands: dict[str, str] = Field(default_factory=dict)


class HostConfig(_Strict):
    name: str  # how the backend string and `ascendopt remote …` name it; an ssh_config alias if no host
    host: str | None = None  # HostName; default: resolved through the ssh config, else `name`
    port: int | None = None
    user: str | None = None
    key: Path | None = None  # private key file (never the key itself)
    devices: str = "0"
    max_parallel: int | None = Field(default=None, ge=1, description="evaluations at once on this host")
    case_parallel: int = Field(default=2, ge=1, description="cpu-twin cases at once per evaluation")
    toolchain: ToolchainName = "cpu-twin"
    cann: str = "/usr/local/Ascend/ascend-toolkit/latest"  # holds set_env.sh
    soc: str | None = None  # e.g. Ascend910B2; default: the spec's
    # Run LLM-written code here even without bubblewrap (it then has limits, but sees the host).
    allow_unsandboxed: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"host name {v!r}: letters, digits and _ . @ - only")
        return v

    @property
    def device_ids(self) -> list[int]:
        return parse_devices(self.devices)


class SshOptions(_Strict):
    ssh_config: Path | None = None  # default ~/.ssh/config
    known_hosts: Path | None = None  # default: the ssh config's UserKnownHostsFile, else ~/.ssh/known_hosts
    connect_timeout_s: float = 10.0
    keepalive_interval_s: float = 15.0
    keepalive_count_max: int = 3
    reconnect_attempts: int = Field(default=3, ge=1)
    reconnect_backoff_s: float = 0.5
    # OpenSSH's MaxSessions defaults to 10 channels per connection: 8 for work, one kept for
    # stopping a job, one spare. A server that allows fewer says so by refusing; we then use fewer.
    channels_per_connection: int = Field(default=8, ge=1, le=64)
    # More connections when the work wants more channels; opened one at a time (MaxStartups).
    max_connections: int = Field(default=4, ge=1, le=16)
    channel_retries: int = Field(default=8, ge=0, description="tries of a refused channel open")
    channel_backoff_s: float = Field(default=0.1, ge=0)
    # AES-GCM first: with AES instructions (x86, Kunpeng) it moves inputs and outputs about three
    # times faster than chacha20-poly1305, asyncssh's first choice. [] = the ssh config's Ciphers.
    ciphers: list[str] = Field(
        default_factory=lambda: [
            "aes128-gcm@openssh.com",
            "aes256-gcm@openssh.com",
            "chacha20-poly1305@openssh.com",
            "aes128-ctr",
            "aes256-ctr",
        ]
    )


class RemoteSettings(_Strict):
    remote_dir: str = "~/.ascendopt-remote"
    workspace_id: str | None = None  # default: derived from the workspace folder
    hosts: list[HostConfig] = Field(default_factory=list)
    ssh: SshOptions = Field(default_factory=SshOptions)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    commands: dict[str, str] = Field(default_factory=dict)
    operators: dict[str, CommandOverrides] = Field(default_factory=dict)
    workspace: Path | None = Field(default=None, exclude=True)

    @field_validator("remote_dir")
    @classmethod
    def _remote_dir(cls, v: str) -> str:
        if not (v.startswith("/") or v.startswith("~/")) or "\n" in v or "/../" in f"{v}/":
            raise ValueError(f"remote_dir {v!r}: an absolute path or one starting with ~/")
        return v.rstrip("/")

    def host(self, name: str) -> HostConfig:
        """The configured host, or an ssh-config alias with default settings. This machine
        (`local`, unconfigured) has its CANN where the environment says: `ASCEND_TOOLKIT_HOME`, as
        CANN's set_env.sh exports it (or the editor passes on from Huawei's Ascend C Toolkits)."""
        for h in self.hosts:
            if h.name == name:
                return h
        here = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip() if name == "local" else ""
        return HostConfig(name=name, **({"cann": here} if here else {}))

    def workspace_key(self) -> str:
        """The workspace's folder name on every host: readable, and unique per workspace path."""
        if self.workspace_id:
            return _safe_component(self.workspace_id)
        where = (self.workspace or Path.cwd()).resolve()
        digest = hashlib.sha256(str(where).encode()).hexdigest()[:10]
        return f"{_safe_component(where.name or 'workspace')}-{digest}"


def _safe_component(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).strip(".") or "workspace"


def settings_path(workspace: Path | None = None) -> Path | None:
    env = os.environ.get("ASCENDOPT_REMOTE_CONFIG")
    if env:
        return Path(env)
    for candidate in (
        (workspace or Path.cwd()) / SETTINGS_FILE,
        Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "ascendopt" / "remote.toml",
    ):
        if candidate.is_file():
            return candidate
    return None


def load_settings(path: Path | None = None, workspace: Path | None = None) -> RemoteSettings:
    path = path or settings_path(workspace)
    if path is None:
        return RemoteSettings(workspace=workspace)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        settings = RemoteSettings.model_validate(data)
    except (OSError, ValueError) as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    settings.workspace = workspace or path.resolve().parent.parent
    return settings


def operator_commands(settings: RemoteSettings, operator: str, op_root: Path | None) -> dict[str, str]:
    """Workspace templates, overridden by `[operators.<name>]`, overridden by `<op>/ascendopt.remote.toml`."""
    merged = dict(settings.commands)
    if operator in settings.operators:
        merged.update(settings.operators[operator].commands)
    local = op_root / "ascendopt.remote.toml" if op_root else None
    if local is not None and local.is_file():
        try:
            merged.update(CommandOverrides.model_validate(tomllib.loads(local.read_text("utf-8"))).commands)
        except ValueError as exc:
            raise SettingsError(f"{local}: {exc}") from exc
    return merged
