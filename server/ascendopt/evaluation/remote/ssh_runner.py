"""An SSH host as a Runner: everything under one per-workspace root, every argument quoted.

Layout on the host (`<remote_dir>/<workspace>/`):

    blobs/<sha256>        uploaded file contents, by hash: an upload skips what is here
    candidates/<op>-<id>/<run>/   one folder per candidate evaluation (src/, case<N>/)
    cache/<toolchain>/    build products, shared by every slot (device) of the host
    mirror/<digest>/      local trees the toolchains need there (the twin's headers)
    jobs/<token>.pgid     process groups of running commands (see transport.py)

No path outside the root is ever written or removed: every folder is checked against it,
and every file name goes through `safe_relative`.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import shlex
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

import asyncssh
from pydantic import BaseModel

from ascendopt.evaluation.evidence import EVIDENCE_FD_ENV
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings
from ascendopt.evaluation.remote.transport import SshTransport
from ascendopt.evaluation.runner import (
    RefusedFile,
    RunnerError,
    ShellByRun,
    TransportError,
    UnsafePath,
    inside,
    read_cap,
    safe_relative,
    too_big,
)
from ascendopt.evaluation.sandbox import (
    SYSTEM_READ,
    Confinement,
    Limits,
    RunResult,
    SandboxHost,
    nproc_for,
    prlimit_options,
    sandbox_argv,
)
from ascendopt.processes import LineSink

_SAFE_PART = re.compile(r"[^A-Za-z0-9_.-]")
_BLOB_TTL_DAYS = 14
_ROOT_DIRS = ("blobs", "candidates", "cache", "mirror", "jobs")


class HostFacts(BaseModel):
    """What the first connection learnt about the host."""

    home: str
    root: str
    has_prlimit: bool
    uname: str = ""
    sandbox: SandboxHost | None = None  # bubblewrap there (with prlimit, and setpriv for root)


class TransferStats(BaseModel):
    uploaded_files: int = 0
    uploaded_bytes: int = 0
    skipped_files: int = 0  # the host already had their content


def q(value: str) -> str:
    return shlex.quote(value)


class SshRunner(ShellByRun):
    def __init__(
        self, host: HostConfig, settings: RemoteSettings, transport: SshTransport | None = None
    ) -> None:
        self.host = host
        self.settings = settings
        self.name = f"ssh:{host.name}"
        self.transport = transport or SshTransport(host, settings.ssh)
        self.stats = TransferStats()
        self._facts: HostFacts | None = None
        self._facts_lock = asyncio.Lock()
        self._mirrored: dict[str, str] = {}
        self._present: set[str] = set()  # blob hashes seen on the host: not asked about again
        self._dirs: set[str] = set()  # folders made or seen there: not made again

    # -- the root -------------------------------------------------------------------------

    async def facts(self) -> HostFacts:
        async with self._facts_lock:
            if self._facts is None:
                self._facts = await self._probe()
            return self._facts

    async def _probe(self) -> HostFacts:
        """One round trip: home, prlimit, uname, the sandbox tools, and the root's folders made."""
        base = self.settings.remote_dir
        # `~/` is the login's home on that host: expanded there, the rest quoted.
        where = '"$HOME"/' + q(base[2:]) if base.startswith("~/") else q(base)
        key = q(self.settings.workspace_key())
        dirs = " ".join(f'"$r"/{d}' for d in _ROOT_DIRS)
        links = " ".join(SYSTEM_READ)
        # Old blobs go: inputs change with every seed, and nothing else refers to a blob.
        script = (
            f'r={where}/{key}; printf "%s\\n" "$HOME" "$r"; '
            "command -v prlimit >/dev/null && echo prlimit || echo none; uname -sm; "
            "command -v bwrap || echo none; id -u; command -v setpriv || echo none; "
            f'for p in {links}; do [ -L "$p" ] && printf "link %s %s\\n" "$p" "$(readlink "$p")"; done; '
            f'mkdir -p {dirs} && find "$r/blobs" -type f -mtime +{_BLOB_TTL_DAYS} -delete && echo ready'
        )
        got = await self.transport.simple(script)
        lines = got.stdout.splitlines()
        if len(lines) < 4 or not lines[0].startswith("/") or not lines[1].startswith("/"):
            raise TransportError(
                f"{self.name}: unexpected answer to the probe: {got.stdout!r} {got.stderr!r}"
            )
        root = str(PurePosixPath(lines[1]))
        if got.returncode != 0 or lines[-1] != "ready":
            raise RunnerError(f"{self.name}: cannot create {root}: {got.stderr.strip()}")
        has_prlimit = lines[2] == "prlimit"
        sandbox = _sandbox_host(lines[4:-1], has_prlimit)
        if sandbox is not None:  # installed is not enough: it needs namespaces the host may forbid
            probe = " ".join(q(a) for a in sandbox_argv(["true"], "/", Confinement(), sandbox))
            if (await self.transport.simple(probe)).returncode != 0:
                sandbox = None
        return HostFacts(
            home=lines[0].rstrip("/"), root=root, has_prlimit=has_prlimit, uname=lines[3], sandbox=sandbox
        )

    async def root(self) -> str:
        return (await self.facts()).root

    async def _inside(self, path: str) -> str:
        root = await self.root()
        if not inside(root, path):
            raise UnsafePath(f"{path!r} is outside the workspace root {root!r} on {self.name}")
        return str(PurePosixPath(path))

    # -- commands -------------------------------------------------------------------------

    async def sandbox_refusal(self, sandboxable: bool = True) -> str | None:
        if self.host.allow_unsandboxed:
            return None
        if not sandboxable:
            return (
                "this toolchain runs without the sandbox there; set `allow_unsandboxed = true` for "
                f"{self.host.name} in .ascendopt/remote.toml to run LLM-written code on it"
            )
        if (await self.facts()).sandbox is not None:
            return None
        return (
            f"{self.name} has no usable bubblewrap (bwrap, with prlimit, and setpriv for root); "
            "install bubblewrap there, or set `allow_unsandboxed = true` for this host in "
            ".ascendopt/remote.toml to run LLM-written code there without a sandbox"
        )

    async def _hand_over(self, limits: Limits) -> str:
        """A root login's sandbox runs as the confinement's uid: the folders it may write become its own."""
        sandbox = (await self.facts()).sandbox
        if limits.confine is None or sandbox is None or not sandbox.root or not limits.confine.write:
            return ""
        folders = [await self._inside(w) for w in limits.confine.write]
        uid = limits.confine.uid
        return f"chown {uid}:{uid} {' '.join(q(f) for f in folders)} && "

    async def _limited(self, argv: Sequence[str], limits: Limits, cwd: str) -> str:
        facts = await self.facts()
        if limits.confine is not None and facts.sandbox is not None:
            argv = sandbox_argv(list(argv), cwd, limits.confine, facts.sandbox)
        elif limits.confine is not None:  # no sandbox (opted in): at least a cleared environment
            argv = ["env", "-i", *(f"{k}={v}" for k, v in limits.confine.env.items()), *argv]
        if not facts.has_prlimit:
            return " ".join(q(a) for a in argv)
        caps = prlimit_options(limits, nproc_for(limits.confine, facts.sandbox))
        return " ".join(["prlimit", *caps, "--", *(q(a) for a in argv)])

    async def _job(self, command: str, limits: Limits, on_line: LineSink | None) -> RunResult:
        jobs = f"{await self.root()}/jobs"
        return await self.transport.job(command, jobs_dir=jobs, timeout=limits.wall_seconds, on_line=on_line)

    @staticmethod
    def _env(env: Mapping[str, str] | None) -> str:
        if not env:
            return ""
        for key in env:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                raise UnsafePath(f"bad environment variable name {key!r}")
        return "export " + " ".join(f"{k}={q(v)}" for k, v in env.items()) + "; "

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
        cwd = await self._inside(cwd)
        # The evidence file sits under the jobs folder, which no sandbox binds; the shell opens it as fd 3.
        sink = f"{await self.root()}/jobs/{secrets.token_hex(8)}.evidence" if evidence else None
        if sink is not None:
            env = {**(env or {}), EVIDENCE_FD_ENV: "3"}
        if limits.confine is not None and env:
            limits = limits.model_copy(
                update={"confine": limits.confine.model_copy(update={"env": {**limits.confine.env, **env}})}
            )
        prep = await self._hand_over(limits)
        redirect = f" 3>{q(sink)}" if sink is not None else ""
        limited = await self._limited(argv, limits, cwd)
        command = f"cd {q(cwd)} && {prep}{self._env(env)}exec {limited}{redirect}"
        result = await self._job(command, limits, on_line)
        if sink is not None:
            folder, name = sink.rsplit("/", 1)
            result.evidence = (await self.get(folder, [name]))[name]
            await self.transport.simple(f"rm -f {q(sink)}")
        return result

    async def produce(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        cwd, out = await self._inside(cwd), await self._inside(out)
        tmp = f"{out}.{secrets.token_hex(6)}.tmp"
        build = await self._limited([a.replace("{out}", tmp) for a in argv], limits, cwd)
        folder = str(PurePosixPath(out).parent)
        # One round trip: skip when cached, else build to a temporary name and rename atomically.
        prep = await self._hand_over(limits)
        command = (
            f"[ -e {q(out)} ] && exit 0; mkdir -p {q(folder)} && cd {q(cwd)} && {prep}"
            f"{{ {build} && mv -f {q(tmp)} {q(out)}; }}; rc=$?; rm -f {q(tmp)}; exit $rc"
        )
        return await self._job(command, limits, None)

    # -- files ----------------------------------------------------------------------------

    async def put(self, folder: str, files: Mapping[str, bytes]) -> None:
        """Content-addressed over one SFTP session: blobs the host lacks go up, then every file is
        copied from its blob into place (copies, not links: a build that rewrites a source in
        place must not change the blob). Requests are pipelined; no command runs unless the
        server lacks SFTP's copy-data extension."""
        folder = await self._inside(folder)
        names = {safe_relative(name): data for name, data in files.items()}
        if not names:
            return
        blobs = f"{await self.root()}/blobs"
        hashes = {name: hashlib.sha256(data).hexdigest() for name, data in names.items()}
        sftp = await self.transport.sftp()
        try:
            sent = await self._send_blobs(sftp, blobs, {hashes[n]: d for n, d in names.items()})
            try:
                await self._place(sftp, blobs, folder, hashes)
            except asyncssh.SFTPNoSuchFile:
                # A blob or folder we thought there went (another session's cleanup): ask again, once.
                self._present.difference_update(hashes.values())
                self._dirs.clear()
                sent += await self._send_blobs(sftp, blobs, {hashes[n]: d for n, d in names.items()})
                await self._place(sftp, blobs, folder, hashes)
        except (OSError, asyncssh.Error) as exc:
            raise TransportError(f"{self.name}: upload to {folder} failed: {_sftp_reason(exc)}") from exc
        self.stats.uploaded_files += len(sent)
        self.stats.uploaded_bytes += sum(len(data) for data in sent)
        self.stats.skipped_files += len(names) - len(sent)

    async def _send_blobs(
        self, sftp: asyncssh.SFTPClient, blobs: str, by_hash: dict[str, bytes]
    ) -> list[bytes]:
        """Upload the blobs the host lacks (asked only about those we have not seen there)."""
        unknown = sorted(h for h in by_hash if h not in self._present)
        there = await asyncio.gather(*(sftp.exists(f"{blobs}/{h}") for h in unknown))
        missing = [h for h, ok in zip(unknown, there, strict=True) if not ok]

        async def upload(h: str) -> None:
            tmp = f"{blobs}/{h}.{secrets.token_hex(6)}.part"
            async with sftp.open(tmp, "wb") as f:
                await f.write(by_hash[h])
            await sftp.posix_rename(tmp, f"{blobs}/{h}")

        await asyncio.gather(*(upload(h) for h in missing))
        self._present.update(by_hash)
        return [by_hash[h] for h in missing]

    async def _place(
        self, sftp: asyncssh.SFTPClient, blobs: str, folder: str, hashes: dict[str, str]
    ) -> None:
        dirs = {str(PurePosixPath(folder, n).parent) for n in hashes}
        await self._makedirs(sftp, dirs)
        token = secrets.token_hex(4)  # concurrent puts of one file must not share a temporary name
        if not sftp.supports_remote_copy:
            steps = [
                f"cp -f {q(blobs + '/' + h)} {q(f'{folder}/{n}.{token}.part')} && "
                f"mv -f {q(f'{folder}/{n}.{token}.part')} {q(f'{folder}/{n}')}"
                for n, h in hashes.items()
            ]
            placed = await self.transport.simple(" && ".join(steps))
            if placed.returncode != 0:
                raise RunnerError(f"{self.name}: cannot place files in {folder}: {placed.stderr.strip()}")
            return

        async def copy(name: str, h: str) -> None:
            dest, part = f"{folder}/{name}", f"{folder}/{name}.{token}.part"
            async with (
                sftp.open(f"{blobs}/{h}", "rb", block_size=0) as src,
                sftp.open(part, "wb", block_size=0) as dst,
            ):
                await sftp.remote_copy(src, dst)
            await sftp.posix_rename(part, dest)

        await asyncio.gather(*(copy(n, h) for n, h in hashes.items()))

    async def _makedirs(self, sftp: asyncssh.SFTPClient, dirs: set[str]) -> None:
        """`mkdir -p` for each of `dirs` (all inside the root, which exists), level by level."""
        root = await self.root()
        wanted: set[str] = set()
        for d in dirs:
            path = PurePosixPath(d)
            while inside(root, str(path)) and str(path) not in self._dirs:
                wanted.add(str(path))
                path = path.parent
        for depth in sorted({len(PurePosixPath(d).parts) for d in wanted}):
            level = [d for d in wanted if len(PurePosixPath(d).parts) == depth]
            made = await asyncio.gather(*(sftp.mkdir(d) for d in level), return_exceptions=True)
            for d, result in zip(level, made, strict=True):
                if isinstance(result, BaseException) and not await sftp.isdir(d):
                    raise result
        self._dirs.update(wanted)

    async def get(self, folder: str, names: Sequence[str]) -> dict[str, bytes | None]:
        """Read files over the one SFTP session, requests pipelined; a missing file is None.

        As `LocalRunner.get`: no symlink below `folder` is followed (each part is lstat'ed), only a
        regular file is read, and at most its `read_cap`: otherwise RefusedFile."""
        folder = await self._inside(folder)
        sftp = await self.transport.sftp()

        async def one(name: str) -> bytes | None:
            parts = safe_relative(name).split("/")
            try:
                for n in range(len(parts)):
                    attrs = await sftp.lstat(f"{folder}/{'/'.join(parts[: n + 1])}")
                    _check_part(name, parts[: n + 1], attrs, last=n == len(parts) - 1)
                cap = read_cap(name)
                async with sftp.open(f"{folder}/{'/'.join(parts)}", "rb") as f:
                    got = await f.read(cap + 1)
            except asyncssh.SFTPNoSuchFile:
                return None
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.name}: download failed: {_sftp_reason(exc)}") from exc
            data = got if isinstance(got, bytes) else got.encode()
            if len(data) > cap:
                raise too_big(name, cap)
            return data

        got = await asyncio.gather(*(one(n) for n in names))
        return dict(zip(names, got, strict=True))

    async def listdir(self, folder: str) -> list[str]:
        """Files under `folder`, relative, recursively (msprof writes a tree whose names we learn)."""
        folder = await self._inside(folder)
        got = await self.transport.simple(f"cd {q(folder)} 2>/dev/null && find . -type f -print")
        return sorted(line[2:] for line in got.stdout.splitlines() if line.startswith("./"))

    async def workdir(self, *parts: str) -> str:
        root = await self.root()
        name = "-".join(_SAFE_PART.sub("_", p)[:40] for p in parts) or "run"
        folder = f"{root}/candidates/{name}/{secrets.token_hex(4)}"
        try:
            await self._makedirs(await self.transport.sftp(), {folder})
        except (OSError, asyncssh.Error) as exc:
            raise RunnerError(f"{self.name}: cannot create {folder}: {_sftp_reason(exc)}") from exc
        return folder

    async def remove(self, folder: str) -> None:
        folder = await self._inside(folder)
        root = await self.root()
        if len(PurePosixPath(folder).relative_to(root).parts) < 2:
            raise UnsafePath(f"refusing to remove {folder!r}: a top-level folder of the root")
        self._dirs = {d for d in self._dirs if not (d == folder or inside(folder, d))}
        await self.transport.simple(f"rm -rf -- {q(folder)}")

    async def mirror(self, local: Path, patterns: Sequence[str]) -> str:
        files = sorted({p for pat in patterns for p in local.glob(pat) if p.is_file()})
        digest = hashlib.sha256()
        contents: dict[str, bytes] = {}
        for path in files:
            rel = path.relative_to(local).as_posix()
            contents[rel] = path.read_bytes()
            digest.update(rel.encode() + b"\0" + contents[rel] + b"\0")
        key = digest.hexdigest()[:24]
        if key in self._mirrored:
            return self._mirrored[key]
        folder = f"{await self.root()}/mirror/{key}"
        try:
            seen = await (await self.transport.sftp()).exists(f"{folder}/.complete")
        except (OSError, asyncssh.Error) as exc:
            raise TransportError(f"{self.name}: {_sftp_reason(exc)}") from exc
        if not seen:
            await self.put(folder, contents)
            await self.put(folder, {".complete": b""})
        self._mirrored[key] = folder
        return folder

    async def cache_dir(self, name: str) -> str:
        return f"{await self.root()}/cache/{safe_relative(name)}"

    async def close(self) -> None:
        await self.transport.close()


def _sandbox_host(lines: list[str], has_prlimit: bool) -> SandboxHost | None:
    """The probe's bwrap / uid / setpriv / symlink lines as the sandbox to use there, if any."""
    if len(lines) < 3 or not lines[0].startswith("/") or not has_prlimit:
        return None
    root = lines[1].strip() == "0"
    if root and not lines[2].startswith("/"):
        return None
    links = {}
    for line in lines[3:]:
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] == "link":
            links[parts[1]] = parts[2]
    return SandboxHost(bwrap=lines[0].strip(), root=root, symlinks=links)


def _check_part(name: str, parts: list[str], attrs: asyncssh.SFTPAttrs, last: bool) -> None:
    """RefusedFile unless `parts` (of `name`) is a folder on the way, or the regular file at its end."""
    mode = attrs.permissions or 0
    what = "/".join(parts)
    if stat.S_ISLNK(mode):
        raise RefusedFile(f"{what} is a symlink: refused")
    if last and not stat.S_ISREG(mode):
        raise RefusedFile(f"{name} is not a regular file: refused")
    if last and attrs.size is not None and attrs.size > read_cap(name):
        raise too_big(name, read_cap(name))
    if not last and not stat.S_ISDIR(mode):
        raise RefusedFile(f"{what} is not a folder: refused")


def _sftp_reason(exc: BaseException) -> str:
    return str(getattr(exc, "reason", None) or exc) or type(exc).__name__
