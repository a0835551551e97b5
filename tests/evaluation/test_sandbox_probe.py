"""The sandbox probe: retried before a failure is believed, a failure asked again later, and its
reason saying what failed (a fake `bwrap` on PATH stands in for the real one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ascendopt.evaluation import sandbox


def fake_bwrap(folder: Path, script: str) -> None:
    """`bwrap` (and prlimit, setpriv) in `folder`, put first on PATH by the caller."""
    folder.mkdir(exist_ok=True)
    for name, body in (("bwrap", script), ("prlimit", "exit 0"), ("setpriv", "exit 0")):
        exe = folder / name
        exe.write_text(f"#!/bin/sh\n{body}\n")
        exe.chmod(0o755)


@pytest.fixture
def fresh_probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(sandbox, "_probed", None)  # restored after the test: the real probe stands
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    return tmp_path / "bin"


def test_a_probe_that_fails_once_is_retried(fresh_probe: Path, tmp_path: Path) -> None:
    count = tmp_path / "count"
    fake_bwrap(
        fresh_probe,
        f'n=$(cat {count} 2>/dev/null || echo 0); echo $((n + 1)) > {count}\n'
        f'[ "$n" -ge 1 ] || {{ echo "bwrap: loaded" >&2; exit 1; }}',
    )
    host = sandbox.local_sandbox()
    assert host is not None and host.bwrap == str(fresh_probe / "bwrap")
    assert count.read_text().strip() == "2"
    assert sandbox.unsandboxed_reason() is None
    assert count.read_text().strip() == "2"  # a working sandbox is probed once


def test_a_failing_probe_says_why_and_is_asked_again_later(
    fresh_probe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bwrap(fresh_probe, 'echo "bwrap: No permissions to creating new namespace" >&2; exit 7')
    reason = sandbox.unsandboxed_reason()
    assert reason is not None
    assert "exit 7" in reason and "No permissions to creating new namespace" in reason
    assert "3 tries" in reason and sandbox.ENV_ALLOW_UNSANDBOXED in reason
    fake_bwrap(fresh_probe, "exit 0")
    assert sandbox.local_sandbox() is None  # not asked again at once
    monkeypatch.setattr(sandbox, "PROBE_RETRY_AFTER", 0.0)
    assert sandbox.local_sandbox() is not None


def test_a_hanging_probe_is_reported_as_a_timeout(fresh_probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "PROBE_TIMEOUT", 0.2)
    fake_bwrap(fresh_probe, "sleep 5")
    reason = sandbox.unsandboxed_reason()
    assert reason is not None and "did not finish a trial run" in reason


def test_missing_bwrap_is_named(fresh_probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    reason = sandbox.unsandboxed_reason()
    assert reason is not None and reason.startswith("bubblewrap (bwrap) is not installed")
