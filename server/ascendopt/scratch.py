"""Scratch folders of this process: one folder under the cache, owned through a lock.

Everything a run writes temporarily (candidate copies, build folders, case inputs and
outputs) goes under `<cache>/ascendopt/scratch/<pid>-<token>/`, held by an exclusive
`flock` on its `owner.lock` for as long as the process lives. The folder is removed at
exit, including on SIGTERM and SIGINT; after a kill -9 the kernel drops the lock, and the
next ascendopt that starts removes every folder whose lock it can take.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

LOCK = "owner.lock"


def scratch_base() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ascendopt" / "scratch"


class Scratch:
    """This process's folder; `claim()` makes it the default temporary directory."""

    def __init__(self, base: Path | None = None) -> None:
        self.base = base or scratch_base()
        self.folder = self.base / f"{os.getpid()}-{secrets.token_hex(4)}"
        self._lock_fd: int | None = None

    def claim(self) -> Path:
        self.base.mkdir(parents=True, exist_ok=True)
        self.sweep()
        self.folder.mkdir()
        fd = os.open(self.folder / LOCK, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._lock_fd = fd
        tempfile.tempdir = str(self.folder)  # mkdtemp/TemporaryDirectory land here from now on
        atexit.register(self.release)
        return self.folder

    def sweep(self) -> list[Path]:
        """Remove the folders of processes that are gone (their lock is free)."""
        removed = []
        for folder in self.base.iterdir() if self.base.is_dir() else []:
            if folder == self.folder or not folder.is_dir():
                continue
            try:
                fd = os.open(folder / LOCK, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:
                fd = None  # a folder being created right now has no lock yet: only old ones go
                if _age_seconds(folder) < 60:
                    continue
            except OSError:
                continue
            try:
                if fd is not None:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except OSError:
                        continue  # its owner is alive
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
            finally:
                if fd is not None:
                    os.close(fd)
        return removed

    def release(self) -> None:
        if tempfile.tempdir == str(self.folder):
            tempfile.tempdir = None
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None


def own_process() -> Termination:
    """Claim this process's scratch folder and install signal handling: every process that builds
    or runs candidate work (the CLI, a campaign's episode worker) starts with this."""
    scratch = Scratch()
    termination = Termination(on_force=scratch.release)
    termination.install()
    scratch.claim()
    return termination


def _age_seconds(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


class Termination:
    """SIGINT, SIGTERM and SIGHUP end the run: every task of the running event loop is cancelled, so
    every `finally` runs and every child is reaped, and the exit code says which signal.

    A SystemExit raised from the handler instead lands at an arbitrary bytecode, e.g. inside
    subprocess start-up, where it left a child nobody waited for and the run hung (seen in CI).
    Should the cancelled work still not end within `GRACE_S` (a second signal: at once), `on_force`
    runs (the scratch folder goes) and the process exits anyway. Outside a loop: KeyboardInterrupt.
    """

    GRACE_S = 30.0

    def __init__(self, on_force: Callable[[], None] = lambda: None) -> None:
        self.signum: int | None = None
        self._on_force = on_force

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(ValueError, OSError):  # not the main thread: leave it
                signal.signal(sig, self._on_signal)

    def exit_code(self, code: object) -> object:
        """The code to exit with: 128 + the signal's number once one arrived, else `code`."""
        return code if self.signum is None else 128 + self.signum

    @contextlib.contextmanager
    def exits(self) -> Iterator[None]:
        """Run the body; once a signal arrived, whatever it ends with (click's SystemExit, the
        cancel coming out of asyncio.run) becomes an exit with 128 + the signal's number."""
        try:
            yield
        except SystemExit as exc:
            raise SystemExit(self.exit_code(exc.code)) from None
        except (asyncio.CancelledError, KeyboardInterrupt):
            if self.signum is None:
                raise
            raise SystemExit(self.exit_code(1)) from None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            self._force()
        self.signum = signum
        watchdog = threading.Timer(self.GRACE_S, self._force)
        watchdog.daemon = True  # a run that ends in time exits without waiting for it
        watchdog.start()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise KeyboardInterrupt from None
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.call_soon_threadsafe(lambda: None)  # wake the selector

    def _force(self) -> None:
        with contextlib.suppress(Exception):
            self._on_force()
        os._exit(128 + (self.signum or signal.SIGTERM))
