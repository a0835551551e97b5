"""Run generated code in a subprocess with wall-time, CPU, memory and file-size limits, and no network.

A kernel that loops or allocates without end is killed and reported; it never hangs the caller.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import resource
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from pydantic import BaseModel


class Limits(BaseModel):
    wall_seconds: float = 120.0
    cpu_seconds: int = 120
    memory_mb: int = 8192
    file_mb: int = 2048
    no_network: bool = True


class RunResult(BaseModel):
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    signal_name: str | None = None

    @property
    def killed_reason(self) -> str | None:
        if self.timed_out:
            return "killed: ran past the wall-time limit (a kernel that never finishes hangs the NPU too)"
        if self.signal_name == "SIGXCPU":
            return "killed: ran past the CPU-time limit"
        if self.signal_name == "SIGXFSZ":
            return "killed: wrote past the file-size limit"
        if self.signal_name in ("SIGSEGV", "SIGBUS"):
            return f"crashed with {self.signal_name} (an access outside any buffer the twin knows about)"
        if self.signal_name in ("SIGKILL", "SIGABRT"):
            return f"killed by {self.signal_name} (memory limit reached, or an abort)"
        if self.signal_name:
            return f"killed by {self.signal_name}"
        return None


@cache
def network_isolation_prefix() -> tuple[str, ...]:
    """`unshare --net` where the kernel lets us (root, or unprivileged user namespaces)."""
    exe = shutil.which("unshare")
    if exe is None:
        return ()
    for prefix in ((exe, "--net"), (exe, "--user", "--map-root-user", "--net")):
        try:
            ok = subprocess.run([*prefix, "true"], capture_output=True, timeout=5).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return prefix
    return ()


def _limit(limits: Limits) -> None:
    mb = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * mb, limits.memory_mb * mb))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * mb, limits.file_mb * mb))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


LineSink = Callable[[str], None]
_TAIL = 20000


class OutputTail:
    """The last `_TAIL` characters of a stream, plus whole lines handed to a sink as they complete."""

    def __init__(self, sink: LineSink | None) -> None:
        self.sink = sink
        self.parts: list[str] = []
        self.size = 0
        self.partial = ""

    def feed(self, chunk: str) -> None:
        self.parts.append(chunk)
        self.size += len(chunk)
        if self.size > 4 * _TAIL:  # keep memory bounded on chatty builds
            text = "".join(self.parts)[-_TAIL:]
            self.parts, self.size = [text], len(text)
        if self.sink is not None:
            *lines, self.partial = (self.partial + chunk).split("\n")
            for line in lines:
                self.sink(line)

    def close(self) -> str:
        if self.sink is not None and self.partial:
            self.sink(self.partial)
            self.partial = ""
        return "".join(self.parts)[-_TAIL:]


async def pump_output(stream: asyncio.StreamReader | None, tail: OutputTail) -> None:
    # Chunks, not readline(): a compiler line can exceed asyncio's 64 KiB line limit.
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := await stream.read(65536):
        tail.feed(decoder.decode(chunk))
    tail.feed(decoder.decode(b"", final=True))


async def run_limited(
    argv: list[str],
    cwd: Path,
    limits: Limits,
    *,
    env: Mapping[str, str] | None = None,
    on_line: LineSink | None = None,
) -> RunResult:
    """Run `argv` in its own process group; `on_line` receives stdout and stderr lines as they come."""
    prefix = network_isolation_prefix() if limits.no_network else ()
    proc = await asyncio.create_subprocess_exec(
        *prefix,
        *argv,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: _limit(limits),
    )
    out, err = OutputTail(on_line), OutputTail(on_line)
    pumps = asyncio.gather(pump_output(proc.stdout, out), pump_output(proc.stderr, err))
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(pumps), timeout=limits.wall_seconds)
        await proc.wait()
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        timed_out = isinstance(exc, asyncio.TimeoutError)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await pumps
        await proc.wait()
        if not timed_out:
            raise
    rc = proc.returncode if proc.returncode is not None else -9
    sig = None
    if rc < 0:
        with contextlib.suppress(ValueError):
            sig = signal.Signals(-rc).name
    return RunResult(
        returncode=rc,
        stdout=out.close(),
        stderr=err.close(),
        timed_out=timed_out,
        signal_name="SIGKILL" if timed_out else sig,
    )
