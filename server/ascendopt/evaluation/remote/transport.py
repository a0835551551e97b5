"""One SSH host: a few kept-alive connections, a bounded number of channels on each, SFTP,
and commands as killable process groups.

Servers limit us, and most users cannot change that: OpenSSH's `MaxSessions` (default 10)
caps the channels open at once on one connection, and `MaxStartups` (10:30:100) starts
dropping connections that are still authenticating. So every channel takes a slot first:
at most `channels_per_connection` (8) for work on a connection, plus one kept for stopping
a job. When the work wants more, another connection is opened, one handshake at a time,
up to `max_connections`. A refused channel open ("open failed", sshd logs "no more
sessions") is the server telling us its limit: that connection takes fewer channels from
then on, and the open is retried after a backoff; the host is not down.

Why the job wrapper: asyncssh cancels only our side of a channel, and sshd ignores the
signal request for root logins, so a cancelled build would keep running.
Every command therefore starts under `setsid` and writes its process-group id to a file;
cancelling (or a timeout) kills that group from a second channel. If a connection drops,
the groups it was running are remembered and killed after reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import shlex
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import asyncssh
from pydantic import BaseModel

from ascendopt.evaluation.remote.hostkeys import HostKeyError, explain_host_key_failure
from ascendopt.evaluation.remote.settings import HostConfig, SshOptions
from ascendopt.evaluation.runner import RunnerError, TransportError
from ascendopt.evaluation.sandbox import RunResult
from ascendopt.processes import LineSink, OutputTail

log = logging.getLogger(__name__)
T = TypeVar("T")

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


class ChannelStats(BaseModel):
    """What the connections to one host have seen (for `remote check`, benchmarks and tests)."""

    connects: int = 0  # connections opened, reconnects included
    peak_connections: int = 0
    peak_channels: int = 0  # most channels open at once on one connection (the kill channel included)
    refused: int = 0  # channel opens the server refused
    limit: int = 0  # work channels a connection may take now (lowered by refusals)


@dataclass(eq=False)
class _Link:
    """One connection and the channels it has open."""

    conn: asyncssh.SSHClientConnection
    limit: int  # work channels at once
    work: int = 0
    kills: int = 0
    alive: bool = True
    running: set[str] = field(default_factory=set)  # pid files of the jobs it carries

    @property
    def open(self) -> int:
        return self.work + self.kills


class _Client(asyncssh.SSHClient):
    def __init__(self, transport: SshTransport, box: list[_Link]) -> None:
        self._transport = transport
        self._box = box  # the link, once made

    def connection_lost(self, exc: Exception | None) -> None:
        if self._box:
            self._transport._lost(self._box[0])


class SshTransport:
    """The connections to one host, opened on demand within the server's limits, reopened with
    backoff when they drop."""

    def __init__(self, host: HostConfig, options: SshOptions) -> None:
        self.host = host
        self.options = options
        self.stats = ChannelStats(limit=options.channels_per_connection)
        self._links: list[_Link] = []
        self._opening = 0
        self._changed = asyncio.Condition()
        self._handshake = asyncio.Lock()  # one unauthenticated connection at a time (MaxStartups)
        self._sftp: asyncssh.SFTPClient | None = None
        self._sftp_link: _Link | None = None
        self._sftp_lock = asyncio.Lock()
        self._orphans: set[str] = set()  # jobs in flight when their connection dropped
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def connects(self) -> int:
        return self.stats.connects

    def connect_kwargs(self) -> dict[str, Any]:
        h, o = self.host, self.options
        kw: dict[str, Any] = {
            "connect_timeout": o.connect_timeout_s,
            "keepalive_interval": o.keepalive_interval_s,
            "keepalive_count_max": o.keepalive_count_max,
        }
        kw["config"] = [str(o.ssh_config)] if o.ssh_config else ()
        if o.ciphers:
            kw["encryption_algs"] = list(o.ciphers)
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

    # -- connections ------------------------------------------------------------------------

    def _lost(self, link: _Link) -> None:
        if not link.alive:
            return
        link.alive = False
        self._orphans |= link.running
        if self._sftp_link is link:
            self._sftp, self._sftp_link = None, None
            link.work -= 1
        # Waiters may now open a fresh connection in its place.
        task = asyncio.get_running_loop().create_task(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _connect(self) -> _Link:
        async with self._handshake:
            last: BaseException | None = None
            for attempt in range(self.options.reconnect_attempts):
                if attempt:
                    await asyncio.sleep(self.options.reconnect_backoff_s * 2 ** (attempt - 1))
                box: list[_Link] = []  # the link, once made: what a lost connection reports
                try:
                    factory = functools.partial(_Client, self, box)
                    kwargs = self.connect_kwargs()
                    conn = await asyncssh.connect(self.address, client_factory=factory, **kwargs)
                except asyncssh.HostKeyNotVerifiable as exc:
                    raise HostKeyError(await explain_host_key_failure(self, exc)) from exc
                except asyncssh.PermissionDenied as exc:
                    raise AuthError(f"{self.host.name}: the host refused our key ({exc.reason})") from exc
                except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
                    last = exc
                    log.info("connect to %s failed (%s), attempt %d", self.host.name, exc, attempt + 1)
                    continue
                box.append(_Link(conn=conn, limit=self.stats.limit))
                self.stats.connects += 1
                return box[0]
            raise TransportError(f"cannot reach {self.host.name}: {_describe(last)}")

    async def _acquire(self, kill: bool = False) -> _Link:
        """A slot for one channel: on the least busy connection with room, else on a new one."""
        async with self._changed:
            while True:
                self._links = [ln for ln in self._links if ln.alive or ln.open]
                live = [ln for ln in self._links if ln.alive]
                # A kill may use the one channel kept free on each connection, or a work slot.
                free = [ln for ln in live if ln.work < ln.limit or (kill and ln.kills == 0)]
                if free:
                    link = min(free, key=lambda ln: ln.open)
                    if kill and link.kills == 0:
                        link.kills += 1
                    else:
                        link.work += 1
                    self.stats.peak_channels = max(self.stats.peak_channels, link.open)
                    return link
                # A connection being opened will have room: wait for it rather than open another
                # (two callers at start would otherwise open two).
                if self._opening == 0 and (len(live) < self.options.max_connections or not live):
                    break
                await self._changed.wait()
            self._opening += 1
        try:
            link = await self._connect()
        finally:
            async with self._changed:
                self._opening -= 1
                self._changed.notify_all()
        async with self._changed:
            self._links.append(link)
            alive = sum(ln.alive for ln in self._links)
            self.stats.peak_connections = max(self.stats.peak_connections, alive)
            if kill:
                link.kills += 1
            else:
                link.work += 1
            self.stats.peak_channels = max(self.stats.peak_channels, link.open)
            self._changed.notify_all()
        await self._kill_orphans()
        return link

    async def _release(self, link: _Link, kill: bool = False) -> None:
        async with self._changed:
            if kill and link.kills:
                link.kills -= 1
            else:
                link.work -= 1
            self._changed.notify_all()

    def _refused(self, link: _Link, exc: asyncssh.ChannelOpenError) -> None:
        """The server said no to one more channel: it allows what was open besides, and we keep
        one of those free for stopping jobs. A connection that closed is no refusal (sshd says
        OPEN_CONNECT_FAILED "open failed" for both; asyncssh's own is "SSH connection closed")."""
        if not link.alive or link.conn.is_closed() or exc.reason == "SSH connection closed":
            raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
        self.stats.refused += 1
        accepted = link.open - 1  # the refused open holds a slot too
        link.limit = max(1, min(link.limit, accepted - 1))
        self.stats.limit = min(self.stats.limit, link.limit)
        log.info(
            "%s refused a channel with %d open (%s): %d per connection from now on",
            self.host.name,
            accepted,
            exc.reason,
            link.limit,
        )

    async def _on_channel(
        self, use: Callable[[_Link], Awaitable[T]], *, kill: bool = False, what: str = "a session"
    ) -> T:
        """Run `use` (which opens one channel on the link and is done with it when it returns)
        in a slot; a refused open is retried after a backoff."""
        last: asyncssh.ChannelOpenError | None = None
        for attempt in range(self.options.channel_retries + 1):
            link = await self._acquire(kill)
            try:
                return await use(link)
            except asyncssh.ChannelOpenError as exc:
                self._refused(link, exc)
                last = exc
            finally:
                await self._release(link, kill)
            await asyncio.sleep(min(self.options.channel_backoff_s * 2**attempt, 2.0))
        raise TransportError(
            f"{self.host.name}: the server refused {what} {self.options.channel_retries + 1} times "
            f"({_describe(last)}); is its MaxSessions lower than {self.stats.limit + 1}?"
        )

    async def probe_sessions(self, up_to: int) -> tuple[int, bool]:
        """How many sessions one connection of ours may hold, by asking: sessions are opened on a
        connection of its own until the server refuses one (or `up_to` are open), then closed.
        (bool: a refusal was seen, so the count is the server's limit, not a lower bound.)"""
        link = await self._connect()
        held: list[asyncssh.SSHClientProcess[Any]] = []
        try:
            for _ in range(up_to):
                try:
                    held.append(await link.conn.create_process("cat"))  # waits on stdin: holds the slot
                except asyncssh.ChannelOpenError as exc:
                    if link.conn.is_closed() or exc.reason == "SSH connection closed":
                        raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
                    return len(held), True
            return len(held), False
        finally:
            for proc in held:
                proc.close()
            link.conn.close()
            with contextlib.suppress(Exception):
                await link.conn.wait_closed()

    # -- commands ---------------------------------------------------------------------------

    async def sftp(self) -> asyncssh.SFTPClient:
        """One SFTP session for the host (requests are pipelined on its one channel)."""
        async with self._sftp_lock:
            if self._sftp is not None and self._sftp_link is not None and self._sftp_link.alive:
                return self._sftp
            for attempt in range(self.options.channel_retries + 1):
                link = await self._acquire()  # held while the session lives
                try:
                    self._sftp = await link.conn.start_sftp_client()
                except asyncssh.ChannelOpenError as exc:
                    try:
                        self._refused(link, exc)
                    finally:
                        await self._release(link)
                    await asyncio.sleep(min(self.options.channel_backoff_s * 2**attempt, 2.0))
                    continue
                except (OSError, asyncssh.Error) as exc:
                    await self._release(link)
                    raise TransportError(f"{self.host.name}: sftp: {_describe(exc)}") from exc
                self._sftp_link = link
                return self._sftp
            raise TransportError(f"{self.host.name}: the server refused an SFTP session")

    async def simple(self, command: str, timeout: float = 60.0) -> RunResult:
        """A short bookkeeping command (not a job): no wrapper, no streaming."""

        async def use(link: _Link) -> RunResult:
            try:
                done = await asyncio.wait_for(link.conn.run(command, check=False), timeout)
            except asyncssh.ChannelOpenError:
                raise
            except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
                raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
            return RunResult(
                returncode=done.exit_status if done.exit_status is not None else -1,
                stdout=_text(done.stdout),
                stderr=_text(done.stderr),
            )

        return await self._on_channel(use)

    async def job(
        self,
        command: str,
        *,
        jobs_dir: str,
        timeout: float | None = None,
        on_line: LineSink | None = None,
    ) -> RunResult:
        """Run `command` (a shell string) as a killable process group, streaming its lines."""
        pidfile = f"{jobs_dir}/{secrets.token_hex(8)}.pgid"
        wrapped = "exec setsid -w sh -c " + " ".join(
            shlex.quote(a) for a in (_WRAPPER, "ascendopt-job", pidfile, command)
        )

        async def use(link: _Link) -> RunResult:
            out, err = OutputTail(on_line), OutputTail(on_line)
            try:
                proc = await link.conn.create_process(wrapped, encoding="utf-8", errors="replace")
            except asyncssh.ChannelOpenError:
                raise
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
            link.running.add(pidfile)
            keep = False
            try:
                pumps = asyncio.gather(_pump_ssh(proc.stdout, out), _pump_ssh(proc.stderr, err))
                try:
                    await asyncio.wait_for(asyncio.shield(pumps), timeout)
                    done = await proc.wait(check=False)
                except asyncio.TimeoutError:
                    keep = True  # _kill forgets it
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
                    keep = True
                    await asyncio.shield(self._kill_quietly(pidfile))
                    proc.close()
                    raise
                except (OSError, asyncssh.Error) as exc:
                    raise TransportError(f"{self.host.name}: {_describe(exc)}") from exc
            finally:
                if not keep:
                    link.running.discard(pidfile)
            if done.exit_status is None and done.exit_signal is None and not link.alive:
                # The channel closed without an exit status: the connection went away under us.
                self._orphans.add(pidfile)
                raise TransportError(f"{self.host.name}: connection lost while running a job")
            return _result(done, out.close(), err.close())

        return await self._on_channel(use, what="a job")

    async def _kill(self, pidfile: str) -> None:
        command = "sh -c " + " ".join(shlex.quote(a) for a in (_KILL, "ascendopt-kill", pidfile))

        async def use(link: _Link) -> None:
            try:
                await asyncio.wait_for(link.conn.run(command, check=False), 15)
            except asyncssh.ChannelOpenError:
                raise
            except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
                self._orphans.add(pidfile)
                raise TransportError(f"{self.host.name}: could not stop a job: {_describe(exc)}") from exc

        try:
            await self._on_channel(use, kill=True, what="the channel that stops a job")
        finally:
            for link in self._links:
                link.running.discard(pidfile)

    async def _kill_quietly(self, pidfile: str) -> None:
        with contextlib.suppress(TransportError, HostKeyError, AuthError):
            await self._kill(pidfile)

    async def _kill_orphans(self) -> None:
        if self._orphans:
            orphans, self._orphans = self._orphans, set()
            for pidfile in orphans:
                await self._kill_quietly(pidfile)

    async def close(self) -> None:
        """Close every connection; the transport can be used again afterwards (it reconnects)."""
        async with self._changed:
            links, self._links = self._links, []
            self._sftp, self._sftp_link = None, None
            for link in links:
                link.alive = False
            self._changed.notify_all()
        for link in links:
            link.conn.close()
        for link in links:
            with contextlib.suppress(Exception):
                await link.conn.wait_closed()


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
