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
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

import asyncssh
from pydantic import BaseModel

from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings
from ascendopt.evaluation.remote.transport import SshTransport
from ascendopt.evaluation.runner import (
    RunnerError,
    ShellByRun,
    TransportError,
    UnsafePath,
    inside,
    safe_relative,
)
from ascendopt.evaluation.sandbox import (
    SYSTEM_READ,
    Confinement,
    Limits,
    LineSink,
    RunResult,
    SandboxHost,
    nproc_for,
    sandbox_argv,
)

_SAFE_PART = re.compile(r"[^A-Za-z0-9_.-]")
_BLOB_TTL_DAYS = 14


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

    # -- the root -------------------------------------------------------------------------

    async def facts(self) -> HostFacts:
        async with self._facts_lock:
            if self._facts is None:
                self._facts = await self._probe()
            return self._facts

    async def _probe(self) -> HostFacts:
        links = " ".join(SYSTEM_READ)
        got = await self.transport.simple(
            'printf "%s\\n" "$HOME"; command -v prlimit >/dev/null && echo prlimit || echo none; uname -sm; '
            "command -v bwrap || echo none; id -u; command -v setpriv || echo none; "
            f'for p in {links}; do [ -L "$p" ] && printf "link %s %s\\n" "$p" "$(readlink "$p")"; done; true'
        )
        lines = got.stdout.splitlines()
        if got.returncode != 0 or len(lines) < 2 or not lines[0].startswith("/"):
            raise TransportError(
                f"{self.name}: unexpected answer to the probe: {got.stdout!r} {got.stderr!r}"
            )
        home = lines[0].rstrip("/")
        base = self.settings.remote_dir
        base = home + base[1:] if base.startswith("~/") else base
        root = f"{base}/{self.settings.workspace_key()}"
        dirs = " ".join(q(f"{root}/{d}") for d in ("blobs", "candidates", "cache", "mirror", "jobs"))
        # Old blobs go: inputs change with every seed, and nothing else refers to a blob.
        made = await self.transport.simple(
            f"mkdir -p {dirs} && find {q(root + '/blobs')} -type f -mtime +{_BLOB_TTL_DAYS} -delete"
        )
        if made.returncode != 0:
            raise RunnerError(f"{self.name}: cannot create {root}: {made.stderr.strip()}")
        has_prlimit = lines[1] == "prlimit"
        sandbox = _sandbox_host(lines[3:], has_prlimit)
        if sandbox is not None:  # installed is not enough: it needs namespaces the host may forbid
            probe = " ".join(q(a) for a in sandbox_argv(["true"], "/", Confinement(), sandbox))
            if (await self.transport.simple(probe)).returncode != 0:
                sandbox = None
        return HostFacts(
            home=home,
            root=root,
            has_prlimit=has_prlimit,
            uname=lines[2] if len(lines) > 2 else "",
            sandbox=sandbox,
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
        mb = 1024 * 1024
        caps = [
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}",
            f"--as={limits.memory_mb * mb}",
            f"--fsize={limits.file_mb * mb}",
            "--core=0",
        ]
        if (nproc := nproc_for(limits.confine, facts.sandbox)) is not None:
            caps.append(f"--nproc={nproc}")
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
    ) -> RunResult:
        cwd = await self._inside(cwd)
        if limits.confine is not None and env:
            limits = limits.model_copy(
                update={"confine": limits.confine.model_copy(update={"env": {**limits.confine.env, **env}})}
            )
        prep = await self._hand_over(limits)
        command = f"cd {q(cwd)} && {prep}{self._env(env)}exec {await self._limited(argv, limits, cwd)}"
        return await self._job(command, limits, on_line)

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
        folder = await self._inside(folder)
        root = await self.root()
        names = {safe_relative(name): data for name, data in files.items()}
        if not names:
            return
        hashes = {name: hashlib.sha256(data).hexdigest() for name, data in names.items()}
        wanted = sorted(set(hashes.values()))
        blobs = f"{root}/blobs"
        listing = await self.transport.simple(
            f'cd {q(blobs)} && for h in {" ".join(wanted)}; do [ -e "$h" ] || echo "$h"; done'
        )
        if listing.returncode != 0:
            raise RunnerError(f"{self.name}: cannot list {blobs}: {listing.stderr.strip()}")
        missing = set(listing.stdout.split())
        by_hash = {h: data for name, data in names.items() if (h := hashes[name]) in missing}
        sftp = await self.transport.sftp()
        await asyncio.gather(*(self._upload(sftp, f"{blobs}/{h}", data) for h, data in by_hash.items()))
        self.stats.uploaded_files += len(by_hash)
        self.stats.uploaded_bytes += sum(len(d) for d in by_hash.values())
        self.stats.skipped_files += len(names) - len(by_hash)
        # Copies, not links: a build that rewrites a source in place must not change the blob.
        dirs = sorted({str(PurePosixPath(folder, n).parent) for n in names})
        steps = [f"mkdir -p {' '.join(q(d) for d in dirs)}"]
        token = secrets.token_hex(4)  # concurrent puts of one file must not share a temporary name
        for name, h in hashes.items():
            dest, part = f"{folder}/{name}", f"{folder}/{name}.{token}.part"
            steps.append(f"cp -f {q(blobs + '/' + h)} {q(part)} && mv -f {q(part)} {q(dest)}")
        placed = await self.transport.simple(" && ".join(steps))
        if placed.returncode != 0:
            raise RunnerError(f"{self.name}: cannot place files in {folder}: {placed.stderr.strip()}")

    async def _upload(self, sftp: asyncssh.SFTPClient, path: str, data: bytes) -> None:
        tmp = f"{path}.{secrets.token_hex(6)}.part"
        try:
            async with sftp.open(tmp, "wb") as f:
                await f.write(data)
            await sftp.posix_rename(tmp, path)
        except (OSError, asyncssh.Error) as exc:
            raise TransportError(f"{self.name}: upload failed: {exc}") from exc

    async def get(self, folder: str, names: Sequence[str]) -> dict[str, bytes | None]:
        folder = await self._inside(folder)
        sftp = await self.transport.sftp()

        async def one(name: str) -> bytes | None:
            try:
                async with sftp.open(f"{folder}/{safe_relative(name)}", "rb") as f:
                    data = await f.read()
            except asyncssh.SFTPNoSuchFile:
                return None
            except (OSError, asyncssh.Error) as exc:
                raise TransportError(f"{self.name}: download failed: {exc}") from exc
            return data if isinstance(data, bytes) else data.encode()

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
        made = await self.transport.simple(f"mkdir -p {q(folder)}")
        if made.returncode != 0:
            raise RunnerError(f"{self.name}: cannot create {folder}: {made.stderr.strip()}")
        return folder

    async def remove(self, folder: str) -> None:
        folder = await self._inside(folder)
        root = await self.root()
        if len(PurePosixPath(folder).relative_to(root).parts) < 2:
            raise UnsafePath(f"refusing to remove {folder!r}: a top-level folder of the root")
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
        marker = f"{folder}/.complete"
        seen = await self.transport.simple(f"[ -e {q(marker)} ] && echo yes || echo no")
        if seen.stdout.strip() != "yes":
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
