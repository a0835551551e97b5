"""Scratch folders: under the cache, removed on SIGTERM/SIGINT, and after a kill -9 by the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ascendopt.scratch import Scratch

pytestmark = pytest.mark.slow


def _start(args: list[str], cache: Path) -> subprocess.Popen[bytes]:
    # stderr to a file, not a pipe nobody reads: a full pipe would block the process, not its bug.
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / "stderr.log").open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "ascendopt", *args], env=env, stdout=subprocess.DEVNULL, stderr=log
        )


def _exit_code(proc: subprocess.Popen[bytes], cache: Path, timeout: float = 60) -> int:
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        tail = (cache / "stderr.log").read_text()[-3000:]
        raise AssertionError(f"still running after {timeout} s; its stderr:\n{tail}") from None


def _wait_for_work(base: Path, proc: subprocess.Popen[bytes]) -> Path:
    """The process's scratch folder once an evaluation folder exists in it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        for folder in base.glob("*/ascendopt-*"):
            return folder.parent
        time.sleep(0.05)
    raise AssertionError(f"no evaluation folder appeared under {base}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_terminated_run_leaves_nothing_behind(tmp_path: Path, templates: Path, sig: signal.Signals) -> None:
    base = tmp_path / "cache" / "ascendopt" / "scratch"
    proc = _start(["verify", str(templates / "add_custom")], tmp_path / "cache")
    folder = _wait_for_work(base, proc)
    proc.send_signal(sig)
    _exit_code(proc, tmp_path / "cache")
    assert not folder.exists(), sorted(p.name for p in folder.rglob("*"))[:10]
    assert list(base.iterdir()) == []


def test_sigterm_at_any_moment_of_the_builds_exits_143_and_cleans_up(tmp_path: Path, templates: Path) -> None:
    # A SystemExit raised from the handler once landed inside subprocess start-up: the child
    # was never reaped and the run hung. Signals sent at staggered moments catch that.
    for i, delay in enumerate((0.0, 0.15, 0.3, 0.6, 1.0)):
        base = tmp_path / str(i) / "ascendopt" / "scratch"
        proc = _start(["verify", str(templates / "add_custom")], tmp_path / str(i))
        _wait_for_work(base, proc)
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        assert _exit_code(proc, tmp_path / str(i)) == 128 + signal.SIGTERM
        assert list(base.iterdir()) == []


def test_after_kill_9_the_next_start_cleans_up(tmp_path: Path, templates: Path) -> None:
    base = tmp_path / "cache" / "ascendopt" / "scratch"
    proc = _start(["verify", str(templates / "add_custom")], tmp_path / "cache")
    folder = _wait_for_work(base, proc)
    proc.kill()
    proc.wait(timeout=30)
    assert folder.exists()  # nothing could clean up
    done = _start(["discover", str(templates / "add_custom")], tmp_path / "cache")
    assert _exit_code(done, tmp_path / "cache") == 0
    assert not folder.exists()


def test_a_live_owner_keeps_its_folder(tmp_path: Path) -> None:
    first, second = Scratch(tmp_path), Scratch(tmp_path)
    mine = first.claim()
    try:
        (mine / "work").mkdir()
        second.sweep()
        assert (mine / "work").is_dir()
    finally:
        first.release()
    assert not mine.exists()
