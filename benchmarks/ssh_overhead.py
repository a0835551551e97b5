"""Overhead of evaluating over SSH (a real sshd on loopback) vs the local CPU twin; prints figures.

    .venv/bin/python benchmarks/ssh_overhead.py [--runs 5] [NAME ...]     (as root: starts sshd)

For each template: median wall time of a warm evaluation (build caches filled on both
sides, a fresh seed each run so inputs are uploaded) locally and over ssh:loopback:cpu-twin,
the difference (the SSH overhead per evaluation), and whether the results are identical
(every case's status, outputs, errors and findings). Then what the server saw: connections and
the most sessions open at once on one (its own log), against OpenSSH's default limits, which the
test server keeps. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.evaluation.remote.sshd_server import LoopbackSshd  # noqa: E402

from ascendopt.evaluation.backends import ssh_evaluator  # noqa: E402
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator  # noqa: E402
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, SshOptions  # noqa: E402
from ascendopt.evaluation.verify import verify  # noqa: E402
from ascendopt.operators.discovery import discover  # noqa: E402

TEMPLATES = REPO / "templates" / "operators"


async def _timed(evaluator, op, seed: int):
    start = time.perf_counter()
    ev = await verify(evaluator, op, seed=seed)
    return time.perf_counter() - start, ev


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in TEMPLATES.iterdir() if (p / "ascendopt.toml").exists())
    server = LoopbackSshd().start()
    try:
        settings = RemoteSettings(
            remote_dir=server.remote_dir,
            workspace_id="bench",
            hosts=[HostConfig(name="loopback", devices="0", case_parallel=2)],
            ssh=SshOptions(ssh_config=server.client_config),
        )
        remote = ssh_evaluator(["loopback"], None, settings)
        local = CpuTwinEvaluator(parallel=2)
        print(f"{'template':24} {'cases':>5} {'local ms':>9} {'ssh ms':>9} {'overhead ms':>12}  identical")
        overheads = []
        for name in names:
            op = discover(TEMPLATES / name).find(name)
            await verify(local, op, seed=0)  # warm both build caches
            await verify(remote, op, seed=0)
            lt, rt, same = [], [], True
            for run in range(1, args.runs + 1):
                t_local, ev_local = await _timed(local, op, run)
                t_ssh, ev_ssh = await _timed(remote, op, run)
                lt.append(t_local)
                rt.append(t_ssh)
                strip = lambda ev: [c.model_dump(exclude={"run_seconds"}) for c in ev.cases]  # noqa: E731
                same &= ev_local.correct == ev_ssh.correct and strip(ev_local) == strip(ev_ssh)
            ml, mr = statistics.median(lt), statistics.median(rt)
            overheads.append(mr - ml)
            print(
                f"{name:24} {len(ev_ssh.cases):>5} {ml * 1e3:>9.0f} {mr * 1e3:>9.0f} "
                f"{(mr - ml) * 1e3:>12.0f}  {'yes' if same else 'NO'}"
            )
        print(
            f"median SSH overhead per evaluation: {statistics.median(overheads) * 1e3:.0f} ms "
            f"({args.runs} warm runs per template, loopback, 2 cores)"
        )
        runner = remote.pool.hosts[0].runner
        await remote.close()
        stats, seen = runner.stats, runner.transport.stats  # type: ignore[attr-defined]
        print(
            f"uploaded {stats.uploaded_files} files / {stats.uploaded_bytes / 1e6:.1f} MB, "
            f"skipped {stats.skipped_files} already on the host"
        )
        peaks = server.peak_sessions()
        print(
            f"client: {seen.connects} connection(s), at most {seen.peak_channels} channels open on one, "
            f"{seen.refused} refused; server log: {server.connections()} login(s), at most "
            f"{max(peaks.values(), default=0)} sessions at once on one connection "
            f"(MaxSessions 10), {server.refusals()} 'no more sessions'"
        )
    finally:
        server.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
