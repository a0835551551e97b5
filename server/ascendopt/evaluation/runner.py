"""Where a toolchain's commands run: the Runner seam, and the local runner (sandboxed subprocesses).

A backend is a toolchain (what to build and run: the CPU twin's g++ harness, or CANN)
on a runner (where: this machine, or an SSH host; see `remote/ssh_runner.py`). Paths
on a runner are POSIX strings, because they may name files on another machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import stat
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol, TypeVar, runtime_checkable

from ascendopt.evaluation.sandbox import (
    ENV_ALLOW_UNSANDBOXED,
    Limits,
    RunResult,
    run_limited,
    unsandboxed_reason,
)
from ascendopt.processes import LineSink

T = TypeVar("T")


class RunnerError(RuntimeError):
    """The runner could not do its part (a folder it cannot create, a refused path…)."""


class TransportError(RunnerError):
    """The machine could not be reached, or dropped mid-job: the job may be retried, here or elsewhere."""


class UnsafePath(RunnerError, ValueError):
    """A file name that would escape its folder, or could not be passed safely to a shell."""


class RefusedFile(RunnerError):
    """A file a candidate could have written that is not read: a symlink, not a regular file, or too big."""


# What `get` reads of one file at most: whatever a run leaves (candidate code wrote it) is held in
# memory, parsed and journaled here. An fp32 output of 64 Mi elements fits; findings and the result
# are a few lines per source location.
MAX_READ_BYTES = 256 << 20
READ_CAPS = {"findings.jsonl": 4 << 20, "result.json": 1 << 20}


def read_cap(name: str) -> int:
    return READ_CAPS.get(PurePosixPath(name).name, MAX_READ_BYTES)


def too_big(name: str, cap: int) -> RefusedFile:
    return RefusedFile(f"{name} is over {cap} bytes: refused")


def read_untrusted(folder: str, name: str) -> bytes | None:
    """`folder/name` (None if missing) without following a symlink anywhere below `folder`, refusing
    FIFOs and devices (opened non-blocking, so a FIFO cannot hang us) and files over `read_cap`."""
    parts = safe_relative(name).split("/")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        for n, part in enumerate(parts):
            last = n == len(parts) - 1
            try:
                fds.append(os.open(part, flags | (0 if last else os.O_DIRECTORY), dir_fd=fds[-1]))
            except FileNotFoundError:
                return None
            except OSError as exc:
                link = stat.S_ISLNK(os.stat(part, dir_fd=fds[-1], follow_symlinks=False).st_mode)
                why = "a symlink" if link else "not a folder" if exc.errno == errno.ENOTDIR else exc.strerror
                raise RefusedFile(f"{'/'.join(parts[: n + 1])} is {why}: refused") from exc
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"{name} is not a regular file: refused")
        cap = read_cap(name)
        if info.st_size > cap:
            raise too_big(name, cap)
        chunks, size = [], 0
        while chunk := os.read(fds[-1], min(1 << 20, cap + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:  # grown since fstat
                raise too_big(name, cap)
        return b"".join(chunks)
    finally:
        for fd in fds:
            os.close(fd)


async def gather_settled(*aws: Awaitable[T]) -> list[T | BaseException]:
    """`gather(return_exceptions=True)`, except that a TransportError cancels the rest and is raised.

    A build waits for all its compiles to report every error at once; but once the machine is
    gone, waiting for the others (maybe on a fresh connection, minutes of g++) only delays the
    retry.
    """
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        for fut in asyncio.as_completed(tasks):
            with contextlib.suppress(Exception):
                await fut
            # as_completed hands back fresh futures: look at the task that finished instead
            for t in tasks:
                exc = t.exception() if t.done() and not t.cancelled() else None
                if isinstance(exc, TransportError):
                    raise exc
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return [t.exception() or t.result() for t in tasks]


def safe_relative(name: str) -> str:
    """`name` as a relative POSIX path that stays inside its folder, or UnsafePath.

    Spaces, quotes and `$()` are allowed (every command quotes its arguments); what is
    refused is anything that changes *where* the file lands: absolute paths, `..`, empty
    parts, and control characters (a newline would split a line-based listing).
    """
    if not name or any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise UnsafePath(f"unsafe file name {name!r}: empty or with control characters")
    path = PurePosixPath(name)
    if path.is_absolute() or "\\" in name:
        raise UnsafePath(f"unsafe file name {name!r}: absolute")
    if any(part in ("", ".", "..") for part in name.split("/")):
        raise UnsafePath(f"unsafe file name {name!r}: '..', '.' or an empty part")
    return str(path)


def inside(root: str, path: str) -> bool:
    """`path` (normalised, without resolving links) lies strictly under `root`."""
    norm = os.path.normpath(path)
    return norm.startswith(root.rstrip("/") + "/") and ".." not in PurePosixPath(norm).parts


@runtime_checkable
class Runner(Protocol):
    """Runs commands and moves files on one machine; safe to share between concurrent evaluations."""

    name: str  # "local", "ssh:npu-box"

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        on_line: LineSink | None = None,
        evidence: bool = False,
    ) -> RunResult:
        """`evidence`: the command gets a descriptor, named in EVIDENCE_FD_ENV, on a file no path
        inside its sandbox reaches; `RunResult.evidence` holds what it wrote there."""
        ...

    async def shell(
        self,
        script: str,
        *,
        cwd: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        on_line: LineSink | None = None,
    ) -> RunResult:
        """A bash script (command templates use `source`, pipes, globs)."""
        ...

    async def produce(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        """Run `argv`, which writes `{out}`, unless `out` exists; the product appears atomically."""
        ...

    async def put(self, folder: str, files: Mapping[str, bytes]) -> None:
        """Write files (relative names, checked by `safe_relative`) under `folder`, each atomically."""
        ...

    async def get(self, folder: str, names: Sequence[str]) -> dict[str, bytes | None]:
        """Read files under `folder`; a missing file is None."""
        ...

    async def listdir(self, folder: str) -> list[str]:
        """Files under `folder`, relative, recursively (msprof writes a tree whose names we learn)."""
        ...

    async def workdir(self, *parts: str) -> str:
        """A fresh, empty folder for one evaluation (named after `parts`)."""
        ...

    async def remove(self, folder: str) -> None: ...

    async def mirror(self, local: Path, patterns: Sequence[str]) -> str:
        """A local folder (the files matching `patterns`) made available on this machine; its path."""
        ...

    async def cache_dir(self, name: str) -> str:
        """A build cache folder on this machine, shared by every evaluation that runs there."""
        ...

    async def sandbox_refusal(self, sandboxable: bool = True) -> str | None:
        """Why LLM-written code must not run here (no sandbox, and no opt-in); None when it may.
        `sandboxable` False: the toolchain cannot use a sandbox (CANN), so only the opt-in helps."""
        ...

    async def close(self) -> None: ...


class ShellByRun(ABC):
    """`shell` for any runner that has `run`: the script runs under bash on that machine."""

    @abstractmethod
    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        on_line: LineSink | None = None,
        evidence: bool = False,
    ) -> RunResult: ...

    async def shell(
        self,
        script: str,
        *,
        cwd: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        on_line: LineSink | None = None,
    ) -> RunResult:
        return await self.run(["bash", "-c", script], cwd=cwd, limits=limits, env=env, on_line=on_line)


class LocalRunner(ShellByRun):
    """This machine: subprocesses under rlimits and (where possible) without network."""

    name = "local"

    def __init__(self, scratch: Path | None = None, cache_root: Path | None = None) -> None:
        self.scratch = scratch
        self.cache_root = cache_root

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        on_line: LineSink | None = None,
        evidence: bool = False,
    ) -> RunResult:
        return await run_limited(list(argv), Path(cwd), limits, env=env, on_line=on_line, evidence=evidence)

    async def produce(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        target = Path(out)
        if target.exists():
            return RunResult(returncode=0, stdout="", stderr="")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{id(argv)}.tmp")
        result = await self.run([a.replace("{out}", str(tmp)) for a in argv], cwd=cwd, limits=limits)
        if result.returncode == 0 and tmp.exists():
            tmp.replace(target)
        else:
            tmp.unlink(missing_ok=True)
            if result.returncode == 0:
                result = result.model_copy(update={"returncode": 1, "stderr": result.stderr + "\nno output"})
        return result

    async def put(self, folder: str, files: Mapping[str, bytes]) -> None:
        for name, data in files.items():
            path = Path(folder) / safe_relative(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{id(data)}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)

    async def get(self, folder: str, names: Sequence[str]) -> dict[str, bytes | None]:
        if not os.path.isdir(folder):
            return dict.fromkeys(names)
        return {name: read_untrusted(folder, name) for name in names}

    async def listdir(self, folder: str) -> list[str]:
        """Regular files only: a symlink (to a file or a folder) is neither listed nor followed."""
        out = []
        for top, _, files in os.walk(folder):  # os.walk does not descend into linked folders
            for name in files:
                path = os.path.join(top, name)
                if stat.S_ISREG(os.lstat(path).st_mode):
                    out.append(Path(path).relative_to(folder).as_posix())
        return sorted(out)

    async def workdir(self, *parts: str) -> str:
        base = self.scratch
        if base is not None:
            base.mkdir(parents=True, exist_ok=True)
        prefix = "ascendopt-" + "-".join(safe_relative(p) for p in parts) + "-"
        return tempfile.mkdtemp(prefix=prefix, dir=base)

    async def remove(self, folder: str) -> None:
        await asyncio.to_thread(shutil.rmtree, folder, True)

    async def mirror(self, local: Path, patterns: Sequence[str]) -> str:
        return str(local)

    async def cache_dir(self, name: str) -> str:
        if self.cache_root is not None:
            return str(self.cache_root / name)
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return str(Path(base) / "ascendopt" / safe_relative(name))

    async def sandbox_refusal(self, sandboxable: bool = True) -> str | None:
        if os.environ.get(ENV_ALLOW_UNSANDBOXED) == "1":
            return None
        if not sandboxable:
            why = "this toolchain runs without the sandbox"
            return f"{why}; set {ENV_ALLOW_UNSANDBOXED}=1 to run LLM-written code here"
        return unsandboxed_reason()

    async def close(self) -> None:
        return None
