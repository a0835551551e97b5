"""`ascendopt remote check HOST`: what a host offers, in one round trip after connecting."""

from __future__ import annotations

import re
import shlex
import time

from pydantic import BaseModel, Field

from ascendopt.evaluation.remote.settings import RemoteSettings, SshOptions
from ascendopt.evaluation.remote.ssh_runner import SshRunner

PROBE_SESSIONS = 16  # beyond OpenSSH's default of 10: enough to find the limit of most servers

# Each section is introduced by a marker line; missing tools simply print nothing.
_SCRIPT = r"""
echo '@@os'; (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); uname -srm
echo '@@cann'; if [ -f {cann}/set_env.sh ]; then
  cat {cann}/version.cfg {cann}/*/ascend_toolkit_install.info 2>/dev/null | grep -im1 version || echo present
fi
echo '@@npu'; command -v npu-smi >/dev/null 2>&1 && npu-smi info 2>&1 | head -40
echo '@@disk'; df -Pk {root} 2>/dev/null | tail -1
echo '@@gxx'; g++ --version 2>/dev/null | head -1
echo '@@cpus'; nproc 2>/dev/null
"""


class Parallelism(BaseModel):
    """How many evaluations this host takes at once, and what bounds it."""

    evaluations: int  # at once
    slots: int  # devices (capped by max_parallel)
    sessions_per_connection: int  # as the server allowed on one connection (or our probe's cap)
    limit_found: bool  # the server refused one more: sessions_per_connection is its limit
    channels_per_connection: int  # what we use of them (one more is kept for stopping jobs)
    connections: int  # at most
    channels_per_evaluation: int  # commands one evaluation runs at once (cases in parallel)
    bound: str  # "devices", "channels"

    def describe(self) -> str:
        sessions = (
            f"the server allows {self.sessions_per_connection} sessions per connection"
            if self.limit_found
            else f"the server took {self.sessions_per_connection} sessions on one connection without refusing"
        )
        return (
            f"{self.evaluations} evaluation(s) at once, bound by {self.bound}: {self.slots} slot(s); "
            f"{sessions}, we use {self.channels_per_connection} (+1 to stop jobs) on each of up to "
            f"{self.connections} connection(s); one evaluation runs {self.channels_per_evaluation} "
            "command(s) at once"
        )


def parallelism(
    slots: int, sessions: int, limit_found: bool, options: SshOptions, per_evaluation: int
) -> Parallelism:
    """Evaluations at once: the slots, unless the channels the server allows run out first (one
    SFTP session per host is shared by every evaluation)."""
    per_connection = max(1, min(options.channels_per_connection, sessions - 1 if limit_found else sessions))
    channels = max(1, per_connection * options.max_connections - 1)
    by_channels = max(1, channels // max(1, per_evaluation))
    return Parallelism(
        evaluations=min(slots, by_channels),
        slots=slots,
        sessions_per_connection=sessions,
        limit_found=limit_found,
        channels_per_connection=per_connection,
        connections=options.max_connections,
        channels_per_evaluation=per_evaluation,
        bound="devices" if slots <= by_channels else "channels",
    )


class HostReport(BaseModel):
    name: str
    address: str
    user: str | None
    connect_seconds: float
    os: str = ""
    cann: str | None = None
    npu_smi: bool = False
    soc: str | None = None
    npu_devices: list[int] = Field(default_factory=list)
    configured_devices: list[int] = Field(default_factory=list)
    free_disk_gb: float | None = None
    gxx: str | None = None
    cpus: int | None = None
    root: str = ""
    toolchain: str = "cpu-twin"
    parallel: Parallelism | None = None

    def suggestions(self) -> list[str]:
        tips = []
        if self.cann and self.toolchain != "cann":
            tips.append(f'CANN found: use --backend ssh:{self.name}:cann (or set toolchain = "cann")')
        if not self.cann and self.toolchain == "cann":
            tips.append("toolchain = cann, but no set_env.sh under the configured `cann` folder")
        if not self.gxx:
            tips.append("no g++: the cpu-twin toolchain cannot run here")
        if (
            self.npu_devices
            and self.configured_devices
            and not set(self.configured_devices) <= set(self.npu_devices)
        ):
            tips.append(f"devices {self.configured_devices} configured, npu-smi lists {self.npu_devices}")
        return tips


def _sections(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("@@"):
            current = line[2:].strip()
            out[current] = []
        elif current:
            out[current].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def parse_npu_smi(text: str) -> tuple[str | None, list[int]]:
    """SoC name and NPU ids from `npu-smi info`'s table (`| 0     910B2   | OK …`)."""
    soc, devices = None, []
    for line in text.splitlines():
        m = re.match(r"^\|\s*(\d+)\s+(\w*\d\w*)\s*\|", line)
        if m:
            devices.append(int(m.group(1)))
            name = m.group(2)
            soc = soc or (name if name.startswith("Ascend") else f"Ascend{name}")
    return soc, sorted(set(devices))


async def check_host(settings: RemoteSettings, name: str) -> HostReport:
    config = settings.host(name)
    runner = SshRunner(config, settings)
    try:
        start = time.perf_counter()
        root = await runner.root()
        seconds = time.perf_counter() - start
        script = _SCRIPT.replace("{cann}", shlex.quote(config.cann)).replace("{root}", shlex.quote(root))
        got = await runner.transport.simple(script)
        # Asked of the server itself (`sshd -T` is not for users): the refusal is the answer.
        sessions, found = await runner.transport.probe_sessions(PROBE_SESSIONS)
    finally:
        await runner.close()
    slots = min(len(config.device_ids), config.max_parallel or len(config.device_ids))
    per_evaluation = 1 if config.toolchain == "cann" else config.case_parallel
    parts = _sections(got.stdout)
    soc, npus = parse_npu_smi(parts.get("npu", ""))
    disk = parts.get("disk", "").split()
    cann = parts.get("cann") or None
    if cann and "=" in cann:
        cann = cann.split("=", 1)[1].strip()
    return HostReport(
        name=name,
        address=runner.transport.address,
        user=config.user,
        connect_seconds=seconds,
        os=" / ".join(ln for ln in parts.get("os", "").splitlines() if ln),
        cann=cann,
        npu_smi=bool(parts.get("npu")),
        soc=soc,
        npu_devices=npus,
        configured_devices=config.device_ids,
        free_disk_gb=int(disk[3]) / 1024 / 1024 if len(disk) >= 4 and disk[3].isdigit() else None,
        gxx=parts.get("gxx") or None,
        cpus=int(parts["cpus"]) if parts.get("cpus", "").isdigit() else None,
        root=root,
        toolchain=config.toolchain,
        parallel=parallelism(slots, sessions, found, settings.ssh, per_evaluation),
    )
