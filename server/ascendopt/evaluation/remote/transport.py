"""One SSH host: a kept-alive asyncssh connection, commands as killable process groups, SFTP.

Why the job wrapper: asyncssh cancels only our side of a channel, and sshd ignores the
signal request for root logins, so a cancelled build would keep running.
Every command therefore starts under `setsid` and writes its process-group id to a file;
cancelling (or a timeout) kills that group from a second channel. If the connection
itself drops, the groups still running are remembered and killed after reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shlex
import signal
from typing import Any

import asyncssh

from ascendopt.evaluation.remote.hostkeys import HostKeyError, explain_host_key_failure
from ascendopt.evaluation.remote.settings import HostConfig, SshOptions
from ascendopt.evaluation.runner import RunnerError, TransportError
from ascendopt.evaluation.sandbox import LineSink, OutputTail, RunResult

log = logging.getLogger(__name__)

# $1 = pid file, $2 = the command. The middle `sh` leads the new session and process group,
# so `kill -- -PGID` reaches everything the command started, and the file goes when it ends.
_WRAPPER = 'echo $$ > "$1"; sh -c "$2"; rc=$?; rm -f "$1"; exit $rc'
# `kill -s SIG -- -PGID`: dash (Debian's sh) rejects the `kill -TERM -- -PGID` spelling.
_KILL = (
    'f=$1; i=0; while [ ! -s "$f" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; '
    '[ -s "$f" ] || exit 0; pg=$(cat "$f"); kill -s TERM -- -"$pg" 2>/dev/null; i=0; '
    'while kill -s 0 -- -"$pg" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; '
    'kill -s KILL -- -"$pg" 2>/dev/null; rm -f "$f"; exit 0'
)


class AuthError(RunnerError):
    """The host refused our key: retrying will not help."""


class _Client(asyncssh.SSHClient):
    def __init__(self, transport: SshTransport) -> None:
        self._transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport._lost()


class SshTransport:
    """A connection to one host, reopened with backoff when it drops."""

    def __init__(self, host: HostConfig, options: SshOptions) -> None:
        self.host = host
        self.options = options
        self._conn: asyncssh.SSHClientConnection | None = None
        self._sftp: asyncssh.SFTPClient | None = None
        self._lock = asyncio.Lock()
        self._running: set[str] = set()  # pid files of jobs in flight
        self._orphans: set[str] = set()  # jobs in flight when the connection dropped
        self.connects = 0

    def connect_kwargs(self) -> dict[str, Any]:
        h, o = self.host, self.options
        kw: dict[str, Any] = {
            "connect_timeout": o.connect_timeout_s,
            "keepalive_interval": o.keepalive_interval_s,
            "keepalive_count_max": o.keepalive_count_max,
        }
        kw["config"] = [str(o.ssh_config)] if o.ssh_config else ()
        if h.port:
            kw["port"] = h.port
        if h.user:
            kw["username"] = h.user
        if h.key:
            kw["client_keys"] = [str(h.key.expanduser())]
        if o.known_hosts:
            kw["known_hosts"] = str(o.known_hosts)
        return kw

    @property
    def address(self) -> str:
        return self.host.host or self.host.name

    def _lost(self) -> None:
        self._conn = None
        self._sftp = None
        self._orphans |= self._running

    async def connection(self) -> asyncssh.SSHClientConnection:
        async with self._lock:
            if self._conn is not None and not self._conn.is_closed():
                return self._conn
            last: BaseException | None = None
            for attempt in range(self.options.reconnect_attempts):
                if attempt:
                    await asyncio.sleep(self.options.reconnect_backoff_s * 2 ** (attempt - 1))
                try:
                    conn = await asyncssh.connect(
                        self.address, client_factory=lambda: _Client(self), **self.connect_kwargs()
                    )
                except asyncssh.HostKeyNotVerifiable as exc:
                    raise HostKeyError(await explain_host_key_failure(self, exc)) from exc
                except asyncssh.PermissionDenied as exc:
                    raise AuthError(f"{self.host.name}: the host refused our key ({exc.reason})") from exc
                except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
                    last = exc
                    log.info("connect to %s failed (%s), attempt %d", self.host.name, exc, attempt + 1)
                    continue
                self._conn = conn
                self.connects += 1
                break
            else:
                raise TransportError(f"cannot reach {self.host.name}: {_describe(last)}")
        if self._orphans:
            orphans, self._orphans = self._orphans, set()
            for pidfile in orphans:
                with contextlib.suppress(TransportError):
                    await self._kill(pidfile)
        return conn

    async def sftp(self) -> asyncssh.SFTPClient:
        conn = await self.connection()
        if self._sftp is None:
            try:
                self._sftp = await conn.start_sftp_client()
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.host.name}: sftp: {_describe(exc)}") from exc
        return self._sftp

    async def simple(self, command: str, timeout: float = 60.0) -> RunResult:
        """A short bookkeeping command (not a job): no wrapper, no streaming."""
        conn = await self.connection()
        try:
            done = await asyncio.wait_for(conn.run(command, check=False), timeout)
        except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
            raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
        return RunResult(
            returncode=done.exit_status if done.exit_status is not None else -1,
            stdout=_text(done.stdout),
            stderr=_text(done.stderr),
        )

    async def job(
        self,
        command: str,
        *,
        jobs_dir: str,
        timeout: float | None = None,
        on_line: LineSink | None = None,
    ) -> RunResult:
        """Run `command` (a shell string) as a killable process group, streaming its lines."""
        conn = await self.connection()
        pidfile = f"{jobs_dir}/{secrets.token_hex(8)}.pgid"
        wrapped = "exec setsid -w sh -c " + " ".join(
            shlex.quote(a) for a in (_WRAPPER, "ascendopt-job", pidfile, command)
        )
        out, err = OutputTail(on_line), OutputTail(on_line)
        self._running.add(pidfile)
        timed_out = False
        try:
            try:
                proc = await conn.create_process(wrapped, encoding="utf-8", errors="replace")
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
            pumps = asyncio.gather(_pump_ssh(proc.stdout, out), _pump_ssh(proc.stderr, err))
            try:
                await asyncio.wait_for(asyncio.shield(pumps), timeout)
                done = await proc.wait(check=False)
            except asyncio.TimeoutError:
                timed_out = True
                await asyncio.shield(self._kill(pidfile))
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pumps, 10)
                proc.close()
                return RunResult(
                    returncode=-9,
                    stdout=out.close(),
                    stderr=err.close(),
                    timed_out=True,
                    signal_name="SIGKILL",
                )
            except asyncio.CancelledError:
                await asyncio.shield(self._kill_quietly(pidfile))
                proc.close()
                raise
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
        finally:
            if not timed_out:
                self._running.discard(pidfile)
        lost = self._conn is None or self._conn.is_closed()
        if done.exit_status is None and done.exit_signal is None and lost:
            # The channel closed without an exit status: the connection went away under us.
            self._orphans.add(pidfile)
            raise TransportError(f"{self.host.name}: connection lost while running a job")
        return _result(done, out.close(), err.close())

    async def _kill(self, pidfile: str) -> None:
        conn = await self.connection()
        command = "sh -c " + " ".join(shlex.quote(a) for a in (_KILL, "ascendopt-kill", pidfile))
        try:
            await asyncio.wait_for(conn.run(command, check=False), 15)
        except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
            self._orphans.add(pidfile)
            raise TransportError(f"{self.host.name}: could not stop a job: {_describe(exc)}") from exc
        finally:
            self._running.discard(pidfile)

    async def _kill_quietly(self, pidfile: str) -> None:
        with contextlib.suppress(TransportError, HostKeyError, AuthError):
            await self._kill(pidfile)

    async def close(self) -> None:
        conn, self._conn, self._sftp = self._conn, None, None
        if conn is not None:
            conn.close()
            with contextlib.suppress(Exception):
                await conn.wait_closed()


async def _pump_ssh(stream: asyncssh.SSHReader[str], tail: OutputTail) -> None:
    with contextlib.suppress(asyncssh.Error, OSError):
        while chunk := await stream.read(65536):
            tail.feed(chunk)


def _result(done: asyncssh.SSHCompletedProcess, stdout: str, stderr: str) -> RunResult:
    if done.exit_signal:
        name = done.exit_signal[0]
        return RunResult(returncode=-9, stdout=stdout, stderr=stderr, signal_name=f"SIG{name}")
    rc = done.exit_status if done.exit_status is not None else -1
    sig = None
    if 128 < rc < 128 + 65:
        # The wrapper's shell reports a command killed by signal N as 128 + N.
        with contextlib.suppress(ValueError):
            sig = signal.Signals(rc - 128).name
            rc = -(rc - 128)
    return RunResult(returncode=rc, stdout=stdout, stderr=stderr, signal_name=sig)


def _text(data: object) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return str(data or "")


def _describe(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown error"
    if isinstance(exc, asyncio.TimeoutError):
        return "timed out"
    reason = getattr(exc, "reason", None)
    return f"{type(exc).__name__}: {reason or exc}"
