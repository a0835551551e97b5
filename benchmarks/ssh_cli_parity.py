"""`ascendopt verify` and `ascendopt optimize` over SSH vs locally, as a user runs them; prints figures.

    .venv/bin/python benchmarks/ssh_cli_parity.py [--budget 12] [NAME ...]     (as root: starts sshd)

A real OpenSSH server on 127.0.0.1 with OpenSSH's default limits (MaxSessions 10, MaxStartups
10:30:100; tests/evaluation/remote/sshd_server.py). For each template, the CLI runs `verify
--json` and `optimize --budget N --json` with `--backend cpu-twin` and with `--backend
ssh:loopback`, each on its own copy (no shared journal or cache), and the JSON results are
compared without their timings. Then what the server saw: logins (connections), the most
sessions open at once on one connection, refusals. The host gets as many devices as this
machine has cores, so both sides run the episode with the same number of evaluations at once
(the search batches by it). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.evaluation.remote.sshd_server import LoopbackSshd  # noqa: E402

TEMPLATES = REPO / "templates" / "operators"
DEFAULT = ["add_custom", "softmax_custom", "reduce_sum_custom"]
TIMES = {"wall_seconds", "run_seconds", "created", "episode", "id", "root"}


def _strip(value: Any) -> Any:
    """The result without what differs by machine, run or folder (timings, ids, paths)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMES | {"backend", "hardware"}}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _diff(a: Any, b: Any, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _diff(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {str(a)[:60]} != {str(b)[:60]}"]


def _cli(args: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ascendopt", *args], capture_output=True, text=True, env=env, check=False
    )
    seconds = time.perf_counter() - start
    try:
        return seconds, json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        failed = f"ascendopt {' '.join(args)} failed ({done.returncode})"
        raise SystemExit(f"{failed}: {done.stderr[-2000:]}") from exc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=int, default=12)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    slots = max(1, os.cpu_count() or 1)  # what the local twin runs at once
    server = LoopbackSshd().start()
    scratch = Path(tempfile.mkdtemp(prefix="ascendopt-parity-"))
    try:
        config = scratch / "remote.toml"
        config.write_text(
            f'remote_dir = "{server.remote_dir}"\nworkspace_id = "parity"\n'
            f'[[hosts]]\nname = "loopback"\ndevices = "0-{slots - 1}"\ncase_parallel = {slots}\n'
            f'[ssh]\nssh_config = "{server.client_config}"\n'
        )
        env = {**os.environ, "ASCENDOPT_REMOTE_CONFIG": str(config)}
        env = {k: v for k, v in env.items() if not k.endswith("API_KEY") and "LLM" not in k}  # no LLM
        print(f"{'template':20} {'command':9} {'local s':>8} {'ssh s':>8}  identical  result")
        for name in args.names or DEFAULT:
            for command in ("verify", "optimize"):
                results = {}
                for backend in ("cpu-twin", "ssh:loopback"):
                    root = scratch / command / backend.replace(":", "_") / name
                    shutil.copytree(TEMPLATES / name, root)
                    extra = ["--budget", str(args.budget)] if command == "optimize" else []
                    results[backend] = _cli([command, str(root), "--backend", backend, *extra, "--json"], env)
                (t_local, local), (t_ssh, remote) = results["cpu-twin"], results["ssh:loopback"]
                same = _strip(local) == _strip(remote)
                if not same:
                    print("  differs:", _diff(_strip(local), _strip(remote))[:5])
                if command == "verify":
                    cases = remote.get("cases", [])
                    passed = sum(c.get("status") == "passed" for c in cases)
                    summary = f"{remote.get('status')}, {passed}/{len(cases)} cases passed"
                else:
                    s = remote.get("suggestion") or {}
                    best = f"suggestion {s.get('geomean_speedup', 1.0):.3f}x" if s else "no suggestion"
                    summary = f"{remote.get('evaluations')} evaluations, {best}"
                verdict = "yes" if same else "NO"
                print(f"{name:20} {command:9} {t_local:>8.1f} {t_ssh:>8.1f}  {verdict:9}  {summary}")
        peaks = server.peak_sessions()
        print(
            f"server log: {server.connections()} login(s) (one per CLI run over ssh), at most "
            f"{max(peaks.values(), default=0)} sessions at once on one connection (MaxSessions 10), "
            f"{server.refusals()} 'no more sessions'"
        )
        print("sessions at once, per connection: " + ", ".join(str(v) for v in peaks.values()))
    finally:
        server.cleanup()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
