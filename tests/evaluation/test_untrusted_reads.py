"""What a sandboxed candidate leaves in its case folder is read without following links, from regular
files only, and up to a cap: a link to a host file or to /proc/self/environ, a FIFO, a huge findings
file are refused with a reason, never read."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin import twin_toolchain
from ascendopt.evaluation.cpu_twin.harness import (
    MAX_FINDING_CHARS,
    MAX_FINDINGS,
    CaseRun,
    TwinRunResult,
    _parse_findings,
    _parse_result,
)
from ascendopt.evaluation.runner import READ_CAPS, LocalRunner, RefusedFile
from ascendopt.evaluation.toolchain import CaseJob, Slot
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.soc import soc

SECRET = "HOST-SECRET-MARKER-5d1e"
NAMES = ["findings.jsonl", "result.json", "out_z.bin", "trace.jsonl"]


@pytest.fixture
def host_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host file holding the marker; the marker is in this process's environment too."""
    monkeypatch.setenv("ASCENDOPT_TEST_SECRET", SECRET)
    secret = tmp_path / "host" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(f'{{"kind": "runner", "message": "{SECRET}"}}\n{SECRET}\n')
    return secret


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("target", ["host", "/proc/self/environ"])
async def test_a_symlink_left_in_the_case_folder_is_refused(
    tmp_path: Path, host_secret: Path, name: str, target: str
) -> None:
    case = tmp_path / "case0"
    case.mkdir()
    (case / name).symlink_to(host_secret if target == "host" else target)
    runner = LocalRunner()
    with pytest.raises(RefusedFile, match=re.escape(f"{name} is a symlink: refused")) as refused:
        await runner.get(str(case), ["result.json", "findings.jsonl", name])
    assert SECRET not in str(refused.value)
    assert name not in await runner.listdir(str(case))


async def test_a_linked_folder_on_the_way_is_refused(tmp_path: Path, host_secret: Path) -> None:
    case = tmp_path / "case0"
    case.mkdir()
    (case / "output").symlink_to(host_secret.parent)
    (case / "kept.bin").write_bytes(b"ok")
    runner = LocalRunner()
    with pytest.raises(RefusedFile, match="output is a symlink: refused"):
        await runner.get(str(case), ["output/secret.txt"])
    assert await runner.listdir(str(case)) == ["kept.bin"]
    assert await runner.get(str(case), ["kept.bin", "missing.bin"]) == {
        "kept.bin": b"ok",
        "missing.bin": None,
    }


async def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    case = tmp_path / "case0"
    case.mkdir()
    os.mkfifo(case / "findings.jsonl")
    with pytest.raises(RefusedFile, match=re.escape("findings.jsonl is not a regular file: refused")):
        await asyncio.wait_for(LocalRunner().get(str(case), ["findings.jsonl"]), timeout=5)
    assert await LocalRunner().listdir(str(case)) == []


async def test_a_file_over_its_cap_is_refused(tmp_path: Path) -> None:
    case = tmp_path / "case0"
    case.mkdir()
    cap = READ_CAPS["findings.jsonl"]
    (case / "findings.jsonl").write_bytes(b"x\n" * (cap // 2 + 1))
    with pytest.raises(RefusedFile, match=re.escape(f"findings.jsonl is over {cap} bytes: refused")):
        await LocalRunner().get(str(case), ["findings.jsonl"])


def test_a_flood_of_findings_is_capped_with_one_dropped_note() -> None:
    line = b'{"kind": "runner", "severity": "warning", "message": "' + b"m" * 5000 + b'"}\n'
    flood = line * 3 + b"not json\n" * 200_000
    findings = _parse_findings(flood)
    assert len(findings) == MAX_FINDINGS + 1
    assert all(len(f.message) <= MAX_FINDING_CHARS for f in findings)
    assert findings[-1].message == f"{200_003 - MAX_FINDINGS} more findings dropped (over {MAX_FINDINGS})"


@pytest.mark.parametrize(
    "data",
    [b"[" * 50_000 + b"]" * 50_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000, b"\xff\xfe", b"9" * 100_000],
)
def test_hostile_result_and_findings_parse_to_nothing(data: bytes) -> None:
    assert _parse_result(data) is None
    findings = _parse_findings(data)
    assert len(findings) == 1 and findings[0].message.startswith("unreadable finding")


@pytest.mark.parametrize(
    "trace",
    [
        b"not json at all\n",
        b'{"format": "ascendopt-trace"}\n{"b": 0, "pipe": "MTE2", "op": "DataCopy", "bytes": "many"}\n',
        b"[" * 50_000 + b"]" * 50_000 + b"\n",
        b'{"format": "ascendopt-trace"}\n{"b": 0, "file": {}, "line": []}\n',
    ],
)
async def test_a_garbage_trace_fails_the_case_with_a_reason(
    add_op: Path, monkeypatch: pytest.MonkeyPatch, trace: bytes
) -> None:
    async def ran(*args: object) -> tuple[CaseRun, dict[str, bytes | None]]:
        return CaseRun(result=TwinRunResult(status="ok", block_dim=8)), {"trace.jsonl": trace}

    monkeypatch.setattr(twin_toolchain, "run_case_on", ran)
    project = load_operator(add_op)
    assert project.spec is not None
    case = project.spec.resolve_cases()[0]
    job = CaseJob(project, case, {}, {}, str(add_op), str(add_op), profile=True, soc=soc("Ascend910B4"))
    artifact = twin_toolchain.TwinArtifact(exe="/nonexistent")
    outcome = await twin_toolchain.CpuTwinToolchain().run_case(Slot(LocalRunner(), "local"), artifact, job)
    assert outcome.error is not None and outcome.error.startswith("unreadable trace: ")
    assert outcome.profile is None
