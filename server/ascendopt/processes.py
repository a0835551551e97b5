"""Child-process plumbing every layer may use: a stream read to its end on the event loop, its last
characters kept (whole lines handed on as they complete), and a child's exit awaited on its pidfd.

Nothing here confines anything (that is evaluation/sandbox.py's job); the campaign's worker
processes, the sandboxed runs and the SSH transport all read their children through it.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import subprocess
from collections.abc import Callable

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


async def read_to_end(fd: int, tail: OutputTail) -> None:
    """Read `fd` to its end through the loop's selector, in chunks (a compiler line can exceed
    asyncio's 64 KiB line limit).

    No task or transport of asyncio's own is involved, so cancelling every task (a signal,
    `asyncio.run` ending with work left) cannot strand one: asyncio's subprocess pipes, cancelled
    while still connecting, leave the process never awaited to its end (CPython gh-125502; an
    init-spec whose failed build ended `asyncio.run` hung so, forever)."""
    loop = asyncio.get_running_loop()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    done: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        try:
            tail.feed(decoder.decode(chunk, final=not chunk))
        except Exception as exc:  # the line sink's own failure ends the read, as the caller's
            loop.remove_reader(fd)
            if not done.done():
                done.set_exception(exc)
            return
        if not chunk:
            loop.remove_reader(fd)
            if not done.done():
                done.set_result(None)

    os.set_blocking(fd, False)
    loop.add_reader(fd, ready)
    try:
        await done
    finally:
        loop.remove_reader(fd)


async def wait_exit(proc: subprocess.Popen[bytes]) -> int:
    """The child's exit status, awaited on its pidfd (by polling where the kernel has none)."""
    loop = asyncio.get_running_loop()
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:
        while proc.poll() is None:
            await asyncio.sleep(0.01)
        return proc.returncode
    gone: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not gone.done():
            gone.set_result(None)

    loop.add_reader(pidfd, readable)
    try:
        if proc.poll() is None:
            await gone
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)
    return proc.wait()
