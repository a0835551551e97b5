"""A real OpenSSH server on 127.0.0.1 for tests and benchmarks.

Generated host and client keys, a non-root login user, a private ssh_config + known_hosts
for the client. Started and stopped by PID; `drop()` kills the listener and every
per-connection sshd child (what a host dropping off the network looks like to us).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"
USER = "ascendopt-test"


class SshdUnavailable(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_user(user: str = USER) -> pwd.struct_passwd:
    """A login user without a password (`usermod -p '*'` unlocks it for key logins with UsePAM no)."""
    try:
        return pwd.getpwnam(user)
    except KeyError:
        pass
    if os.geteuid() != 0:
        raise SshdUnavailable(f"user {user} does not exist and we are not root to create it")
    subprocess.run(["useradd", "-m", "-s", "/bin/sh", user], check=True, capture_output=True)
    subprocess.run(["usermod", "-p", "*", user], check=True, capture_output=True)
    return pwd.getpwnam(user)


class LoopbackSshd:
    def __init__(
        self,
        alias: str = "loopback",
        user: str = USER,
        remote_dir: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        """`extra`: sshd_config lines for a server stricter than the default (say `MaxSessions 3`)."""
        if not Path(SSHD).exists():
            raise SshdUnavailable(f"{SSHD} is missing (apt-get install openssh-server; .ci/run does)")
        if os.geteuid() != 0:
            raise SshdUnavailable("sshd on a loopback port needs root here (privilege separation)")
        self.alias = alias
        self.user = user
        self.account = ensure_user(user)
        # Traversable by the login user: sshd reads authorized_keys as that user.
        self.dir = Path(tempfile.mkdtemp(prefix="ascendopt-sshd-"))
        self.dir.chmod(0o755)
        self.port = _free_port()
        self.host_key = self.dir / "host_ed25519"
        self.client_key = self.dir / "client_ed25519"
        self.known_hosts = self.dir / "known_hosts"
        self.client_config = self.dir / "ssh_config"
        self.proc: subprocess.Popen[bytes] | None = None
        for key in (self.host_key, self.client_key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        authorized = self.dir / "authorized_keys"
        shutil.copy(f"{self.client_key}.pub", authorized)
        authorized.chmod(0o644)
        self.config = self.dir / "sshd_config"
        self.config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"HostKey {self.host_key}",
                    f"PidFile {self.dir / 'sshd.pid'}",
                    f"AuthorizedKeysFile {authorized}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "UsePAM no",
                    "StrictModes no",
                    "Subsystem sftp internal-sftp",
                    # Every limit (MaxSessions 10, MaxStartups 10:30:100, MaxAuthTries,
                    # LoginGraceTime, ClientAliveInterval) stays at OpenSSH's default, as on a
                    # user's server. Logging is no limit: VERBOSE names every session (see below).
                    "LogLevel VERBOSE",
                    *extra,
                    "",
                ]
            )
        )
        self.trust()
        self.write_client_config()
        # Servers of one test session may share it: the remote build cache stays warm.
        self.remote_dir = remote_dir or f"/tmp/ascendopt-remote-{self.port}"
        self.owns_remote_dir = remote_dir is None

    def trust(self) -> None:
        pub = Path(f"{self.host_key}.pub").read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {pub[0]} {pub[1]}\n")

    def write_client_config(self, extra_aliases: dict[str, int] | None = None) -> None:
        blocks = {self.alias: self.port, **(extra_aliases or {})}
        self.client_config.write_text(
            "".join(
                f"Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {self.user}\n"
                f"  IdentityFile {self.client_key}\n  UserKnownHostsFile {self.known_hosts}\n"
                for alias, port in blocks.items()
            )
        )

    def start(self) -> LoopbackSshd:
        Path("/run/sshd").mkdir(exist_ok=True)  # privilege separation directory
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(self.config), "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "sshd.log", "ab"),  # noqa: SIM115 (the child owns it)
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = (self.dir / "sshd.log").read_text(errors="replace")[-2000:]
                raise SshdUnavailable(f"sshd exited with {self.proc.returncode}: {log}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise SshdUnavailable("sshd did not listen within 10 s")

    def _children(self, pid: int) -> list[int]:
        out: list[int] = []
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            for child in task.read_text().split():
                out.append(int(child))
                out.extend(self._children(int(child)))
        return out

    def drop(self) -> None:
        """Kill the listener and its per-connection children: open sessions break at once."""
        if self.proc is None:
            return
        sshd_children = [p for p in self._children(self.proc.pid) if _comm(p).startswith("sshd")]
        for pid in [self.proc.pid, *sshd_children]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None

    def log(self) -> str:
        return (self.dir / "sshd.log").read_text(errors="replace")

    def connections(self) -> int:
        """Logins so far (one per SSH connection), from the server's own log."""
        return self.log().count(f"Accepted publickey for {self.user} ")

    def refusals(self) -> int:
        """Channel opens the server refused for MaxSessions ("no more sessions")."""
        return self.log().count("no more sessions")

    def peak_sessions(self) -> dict[int, int]:
        """Most sessions (channels) open at once on each connection, by its client port, from the
        VERBOSE log's "Starting session: … port P id N" and "Close session: … port P id N" lines."""
        open_now: dict[int, int] = {}
        peak: dict[int, int] = {}
        for line in self.log().splitlines():
            m = re.match(r"(Starting|Close) session: .* port (\d+) id \d+$", line)
            if m is None:
                continue
            port = int(m.group(2))
            open_now[port] = open_now.get(port, 0) + (1 if m.group(1) == "Starting" else -1)
            peak[port] = max(peak.get(port, 0), open_now[port])
        return peak

    def remote_processes(self) -> list[str]:
        """`ps` of the login user's processes, minus sshd's own and this listing."""
        out = subprocess.run(
            ["ps", "-u", self.user, "-o", "pid=,pgid=,args="], capture_output=True, text=True
        ).stdout
        return [
            ln.strip() for ln in out.splitlines() if ln.strip() and "sshd" not in ln and "<defunct>" not in ln
        ]

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.owns_remote_dir:
            shutil.rmtree(self.remote_dir, ignore_errors=True)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
