"""Run generated code in a subprocess with wall-time, CPU, memory and file-size limits, and no network.

A kernel that loops or allocates without end is killed and reported; it never hangs the caller.
A command built from candidate code (compiler, tiling program, kernel runner) also gets a
`Confinement`: it runs under bubblewrap in its own mount, PID, network, IPC and UTS
namespaces, sees only the system's toolchain folders and the paths it was given, writes only
where it was told, has a cleared environment and a process-count limit, and every process it
started dies with it (see `sandbox_argv`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from functools import cache
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, Field

from ascendopt.evaluation.evidence import EVIDENCE_FD_ENV, MAX_EVIDENCE_BYTES
from ascendopt.processes import LineSink, OutputTail, read_to_end, wait_exit


class Confinement(BaseModel):
    """What a sandboxed command may touch; paths are the machine's own (maybe an SSH host's)."""

    read: list[str] = Field(default_factory=list)  # bound read-only (files or folders)
    write: list[str] = Field(default_factory=list)  # bound read-write; made writable to `uid`
    sealed: list[str] = Field(default_factory=list)  # read-only files inside `write` (a case's inputs)
    tmp_mb: int = 512  # the private /tmp (g++'s temporary files), in memory
    max_processes: int = 128  # RLIMIT_NPROC inside the sandbox; threads count (one per block)
    env: dict[str, str] = Field(default_factory=dict)  # the whole environment, with BASE_ENV
    # A root caller's sandbox runs as this uid: the process limit counts its processes. A run of
    # candidate code gets a fresh one (`fresh_uid`), so concurrent runs do not share the limit.
    uid: int = 65534


class Limits(BaseModel):
    wall_seconds: float = 120.0
    cpu_seconds: int = 120
    memory_mb: int = 8192
    file_mb: int = 2048
    no_network: bool = True
    confine: Confinement | None = None  # None: not candidate code (a version probe, a CANN script)


class RunResult(BaseModel):
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    signal_name: str | None = None
    evidence: bytes | None = None  # what the command wrote to its evidence descriptor (`evidence=True`)

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


# The system folders a compiler and a dynamically linked program need; nothing under /etc, $HOME,
# /tmp or the workspace. g++ and ld.so run without /etc (no ld.so.cache: the built-in paths).
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/nonexistent",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
}
SANDBOX_UID = 65534  # "nobody": a root caller drops to it, or RLIMIT_NPROC would not apply (root is exempt)
_FRESH_UIDS = (1_600_000_000, 1 << 24)  # base, span: uids no account uses


def fresh_uid() -> int:
    return _FRESH_UIDS[0] + secrets.randbelow(_FRESH_UIDS[1])


DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


class SandboxHost(BaseModel):
    """What `sandbox_argv` needs to know of the machine the command runs on."""

    bwrap: str  # path of the bwrap executable
    root: bool  # the caller runs as root: drop to the confinement's uid inside, no user namespace
    symlinks: dict[str, str] = Field(default_factory=dict)  # /lib -> usr/lib on merged-/usr systems


def sandbox_argv(argv: list[str], cwd: str, confine: Confinement, host: SandboxHost) -> list[str]:
    """`argv` wrapped in bubblewrap: a fresh root holding only SYSTEM_READ, `confine`'s paths, a
    private /tmp and a few character devices; no network; pid 1 of its PID namespace is bwrap,
    so a process that forks, setsids and sleeps dies when the command ends (or is killed)."""
    out = [host.bwrap, "--die-with-parent", "--new-session", "--clearenv"]
    out += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not host.root:
        out.append("--unshare-user")  # an unprivileged caller needs it; RLIMIT_NPROC is then per sandbox
    for path in SYSTEM_READ:
        if path in host.symlinks:
            out += ["--symlink", host.symlinks[path], path]
        else:
            out += ["--ro-bind-try", path, path]
    out += ["--perms", "1777", "--size", str(confine.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    # /dev walkable by the sandbox's uid (bwrap makes it 0700 root: the devices were unreachable)
    out += ["--perms", "0755", "--dir", "/dev"]
    for dev in DEVICES:
        out += ["--dev-bind-try", dev, dev]
    # bwrap makes the folders above a bind 0700: the sandbox user (not root) could not walk through them
    for parent in _parents([*confine.read, *confine.write, cwd]):
        out += ["--perms", "0755", "--dir", parent]
    for path in confine.read:
        out += ["--ro-bind", path, path]
    for path in confine.write:
        out += ["--bind", path, path]
    for path in confine.sealed:
        out += ["--ro-bind", path, path]
    out += ["--chdir", cwd]
    for key, value in {**BASE_ENV, **confine.env}.items():
        out += ["--setenv", key, value]
    if host.root:  # RLIMIT_NPROC is set on bwrap by the caller (`nproc_for`): it binds once uid drops
        drop = ["setpriv", f"--reuid={confine.uid}", f"--regid={confine.uid}", "--clear-groups"]
        return [*out, "--", *drop, "--inh-caps=-all", "--bounding-set=-all", *argv]
    # Unprivileged: set inside, where it counts this user namespace's processes only.
    return [*out, "--", "prlimit", f"--nproc={confine.max_processes}", "--", *argv]


def nproc_for(confine: Confinement | None, host: SandboxHost | None) -> int | None:
    """The RLIMIT_NPROC a root caller sets before bwrap (None: none, or set inside the sandbox)."""
    return confine.max_processes if confine is not None and host is not None and host.root else None


def _parents(paths: list[str]) -> list[str]:
    skip = {"/", "/tmp", "/dev", *SYSTEM_READ}
    found = {str(a) for p in paths for a in PurePosixPath(p).parents} - skip
    return sorted((f for f in found if not any(f.startswith(s + "/") for s in SYSTEM_READ)), key=len)


PROBE_TRIES = 3  # a loaded machine can make one probe slow or fail: believe only repeated failure
PROBE_TIMEOUT = 30.0  # seconds per try
PROBE_RETRY_AFTER = 60.0  # a failed probe is asked again after this long; a working one is kept
_probed: tuple[float, SandboxHost | None, str] | None = None  # (when, the sandbox, why none)


def local_sandbox() -> SandboxHost | None:
    """This machine's bubblewrap, if it is installed and works here (it needs namespaces)."""
    return _probe_local()[0]


def _probe_local() -> tuple[SandboxHost | None, str]:
    """(the sandbox, "") or (None, what failed); a failure is probed again after PROBE_RETRY_AFTER."""
    global _probed
    now = time.monotonic()
    if _probed is None or (_probed[1] is None and now - _probed[0] >= PROBE_RETRY_AFTER):
        host, why = _probe_once()
        _probed = (time.monotonic(), host, why)
    return _probed[1], _probed[2]


def _probe_once() -> tuple[SandboxHost | None, str]:
    exe = shutil.which("bwrap")
    if exe is None:
        return None, "bubblewrap (bwrap) is not installed (`apt-get install bubblewrap`)"
    if shutil.which("prlimit") is None:
        return None, "prlimit (util-linux) is not installed"
    root = os.geteuid() == 0
    if root and shutil.which("setpriv") is None:
        return None, "setpriv (util-linux) is not installed, and running as root needs it"
    links = {p: os.readlink(p) for p in SYSTEM_READ if os.path.islink(p)}
    host = SandboxHost(bwrap=exe, root=root, symlinks=links)
    probe = sandbox_argv(["true"], "/", Confinement(), host)
    why = ""
    for _ in range(PROBE_TRIES):
        try:
            done = subprocess.run(probe, capture_output=True, timeout=PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            why = f"{exe} did not finish a trial run in {PROBE_TIMEOUT:.0f} s"
            continue
        except OSError as exc:
            why = f"{exe} could not be started: {exc}"
            continue
        if done.returncode == 0:
            return host, ""
        err = done.stderr.decode("utf-8", "replace").strip()[-300:]
        why = f"{exe} failed a trial run (exit {done.returncode}): {err or 'no message'}"
    return None, f"{why} ({PROBE_TRIES} tries)"


def unsandboxed_reason() -> str | None:
    """Why candidate code cannot be sandboxed on this machine (None: it can)."""
    host, why = _probe_local()
    if host is not None:
        return None
    return f"{why}; LLM-written code is not run without a sandbox unless {ENV_ALLOW_UNSANDBOXED}=1 is set"


ENV_ALLOW_UNSANDBOXED = "ASCENDOPT_ALLOW_UNSANDBOXED"


def prepare_writable(confine: Confinement, root: bool) -> None:
    """A root caller's sandbox runs as `confine.uid`: hand it the folders it may write (ours)."""
    if not root:
        return
    for path in confine.write:
        with contextlib.suppress(OSError):
            os.chown(path, confine.uid, confine.uid)


def _caps(limits: Limits, nproc: int | None) -> list[tuple[str, int, int, int]]:
    """(prlimit's name, resource, soft, hard) of every limit a command runs under."""
    mb = 1024 * 1024
    caps = [("nproc", resource.RLIMIT_NPROC, nproc, nproc)] if nproc is not None else []
    return [
        *caps,
        ("cpu", resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5),
        ("as", resource.RLIMIT_AS, limits.memory_mb * mb, limits.memory_mb * mb),
        ("fsize", resource.RLIMIT_FSIZE, limits.file_mb * mb, limits.file_mb * mb),
        ("core", resource.RLIMIT_CORE, 0, 0),
    ]


def prlimit_options(limits: Limits, nproc: int | None = None) -> list[str]:
    """The limits as `prlimit` options (it sets them on itself, then runs the command)."""
    return [f"--{name}={soft}:{hard}" for name, _, soft, hard in _caps(limits, nproc)]


def _limit(limits: Limits, nproc: int | None = None) -> None:
    for _, res, soft, hard in _caps(limits, nproc):
        resource.setrlimit(res, (soft, hard))


async def run_limited(
    argv: list[str],
    cwd: Path,
    limits: Limits,
    *,
    env: Mapping[str, str] | None = None,
    on_line: LineSink | None = None,
    evidence: bool = False,
) -> RunResult:
    """Run `argv` in its own process group; `on_line` receives stdout and stderr lines as they come.

    With `limits.confine` the command runs in the sandbox (or, where bwrap is missing, with the
    cleared environment and no network only; callers refuse LLM-written code there first).
    With `evidence`, the command gets a descriptor (named in EVIDENCE_FD_ENV) on an unlinked file
    no path reaches, and the result holds what was written to it (evaluation/evidence.py).
    Cancelled, the process group is killed and the child reaped before the cancel goes on.
    """
    if not evidence:
        return await _run_limited(argv, cwd, limits, env, on_line, ())
    with tempfile.TemporaryFile(prefix="ascendopt-evidence-") as sink:
        env = {**(env or {}), EVIDENCE_FD_ENV: str(sink.fileno())}
        result = await _run_limited(argv, cwd, limits, env, on_line, (sink.fileno(),))
        sink.seek(0)
        # At most one byte past the cap, as before, but sized by the file: asked for the cap itself, read()
        # first makes a 1 GiB buffer (3x the CPU of the read for a 20 MB trace).
        data = sink.read(min(os.fstat(sink.fileno()).st_size, MAX_EVIDENCE_BYTES) + 1)
        result.evidence = data if len(data) <= MAX_EVIDENCE_BYTES else None
        return result


async def _run_limited(
    argv: list[str],
    cwd: Path,
    limits: Limits,
    env: Mapping[str, str] | None,
    on_line: LineSink | None,
    pass_fds: tuple[int, ...],
) -> RunResult:
    confine = limits.confine
    if confine is not None and env:
        confine = confine.model_copy(update={"env": {**confine.env, **env}})
    host = local_sandbox() if confine is not None else None
    nproc = nproc_for(confine, host)
    if confine is not None and host is not None:
        prepare_writable(confine, host.root)
        argv, run_env = sandbox_argv(argv, str(cwd), confine, host), {}
    else:
        prefix = network_isolation_prefix() if limits.no_network or confine is not None else ()
        argv = [*prefix, *argv]
        run_env = {**BASE_ENV, **confine.env} if confine is not None else {**os.environ, **(env or {})}
    # prlimit sets the limits where it is installed: with no preexec_fn, Popen starts the child with
    # vfork, not a fork that copies this process's page tables (~10 ms of CPU for a 400 MB episode).
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        argv = [prlimit, *prlimit_options(limits, nproc), "--", *argv]
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=run_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=pass_fds,
        preexec_fn=None if prlimit is not None else lambda: _limit(limits, nproc),
    )
    assert proc.stdout is not None and proc.stderr is not None
    out, err = OutputTail(on_line), OutputTail(on_line)
    timed_out = False
    try:
        pumps = asyncio.gather(read_to_end(proc.stdout.fileno(), out), read_to_end(proc.stderr.fileno(), err))
        try:
            await asyncio.wait_for(asyncio.shield(pumps), timeout=limits.wall_seconds)
            await wait_exit(proc)
        except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
            timed_out = isinstance(exc, asyncio.TimeoutError)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await asyncio.gather(pumps, return_exceptions=True)  # ends at EOF, even if it was cancelled
            await wait_exit(proc)
            if not timed_out:
                raise
    finally:
        proc.stdout.close()
        proc.stderr.close()
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
