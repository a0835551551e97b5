"""Each escape from issue 14, tried for real by a candidate kernel against the bubblewrap sandbox."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.sandbox import local_sandbox
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.discovery import load_operator
from tests.evaluation import escapes

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_sandbox() is None, reason="bubblewrap (bwrap) is not usable here"),
]
KERNEL = "op_kernel/add_custom.cpp"
KEY = "sk-test-ESCAPE-0123456789abcdef"


def _processes_named(name: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    out.append(int(entry.name))
            except OSError:
                pass
    return out


async def _run(op: Path, kernel: str) -> Evaluation:
    project = load_operator(op)
    base = baseline(project)
    files = {**base.files, KERNEL: kernel}
    candidate = Candidate(operator=project.name, files=files, origin="kernel_rewrite", llm_written=True)
    assert project.spec is not None
    cases = project.spec.resolve_cases()[:1]
    return await CpuTwinEvaluator(parallel=1).evaluate(project, candidate, cases)


def _message(ev: Evaluation) -> str:
    return " ".join(c.message for c in ev.cases) + " ".join(i.message for i in ev.compile_errors)


@pytest.fixture
def hostile_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ASCENDOPT_LLM_API_KEY", KEY)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(tmp_path / "agent.sock"))
    return home


async def test_reads_outside_the_sandbox_fail(add_op: Path, hostile_env: Path) -> None:
    kernel = (add_op / KERNEL).read_text()
    for payload, what in (
        (escapes.read_file("/etc/hostname"), "read /etc/hostname"),
        (escapes.read_file(str(add_op / "reference.py")), "read"),
        (escapes.read_file(str(hostile_env / ".bashrc")), "read"),
        (escapes.read_env("ASCENDOPT_LLM_API_KEY", "OPENAI_API_KEY", "SSH_AUTH_SOCK", "HOME_IS_SET"), "env"),
    ):
        (hostile_env / ".bashrc").write_text("secret")
        ev = await _run(add_op, escapes.plant(kernel, payload))
        msg = _message(ev)
        assert f"CONTAINED {what}" in msg and "ESCAPED" not in msg, msg


async def test_writes_outside_the_sandbox_fail(add_op: Path, hostile_env: Path) -> None:
    kernel = (add_op / KERNEL).read_text()
    reference = (add_op / "reference.py").read_text()
    for target in (hostile_env / "pwned", add_op / "reference.py", add_op / "ascendopt.toml"):
        ev = await _run(add_op, escapes.plant(kernel, escapes.write_file(str(target))))
        msg = _message(ev)
        assert "CONTAINED write" in msg and "ESCAPED" not in msg, msg
    assert not (hostile_env / "pwned").exists()
    assert (add_op / "reference.py").read_text() == reference
    assert "pwned" not in (add_op / "ascendopt.toml").read_text()


async def test_a_fork_is_a_hostile_verdict_and_nothing_outlives_the_run(
    add_op: Path, hostile_env: Path
) -> None:
    kernel = (add_op / KERNEL).read_text()
    ev = await _run(add_op, escapes.plant(kernel, escapes.forks(200)))
    msg = _message(ev)
    assert "hostile: the candidate's code called clone" in msg and "forked" not in msg, msg
    assert not ev.correct and _processes_named(escapes.ESCAPEE) == []


async def test_a_setsid_straggler_dies_with_the_sandbox(
    add_op: Path, hostile_env: Path, tmp_path: Path
) -> None:
    late = tmp_path / "late-write"
    kernel = (add_op / KERNEL).read_text()
    ev = await _run(add_op, escapes.plant(kernel, escapes.straggler(str(late))))
    assert "hostile: the candidate's code called clone" in _message(ev), _message(ev)
    assert _processes_named(escapes.ESCAPEE) == []
    time.sleep(4)  # longer than the straggler sleeps
    assert not late.exists() and _processes_named(escapes.ESCAPEE) == []


async def test_a_connection_attempt_is_a_hostile_verdict(add_op: Path, hostile_env: Path) -> None:
    kernel = (add_op / KERNEL).read_text()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        ev = await _run(add_op, escapes.plant(kernel, escapes.connect(server.getsockname()[1])))
    msg = _message(ev)
    assert "hostile: the candidate's code called socket" in msg and "ESCAPED" not in msg, msg


async def test_compile_time_include_of_a_system_file_sees_nothing(add_op: Path, hostile_env: Path) -> None:
    kernel = (add_op / KERNEL).read_text()
    hostname = socket.gethostname()
    for path in ("/etc/hostname", "/etc/passwd", str(add_op / "reference.py")):
        ev = await _run(add_op, f'#include "{path}"\n' + kernel)
        assert ev.status == "compile_error"
        text = ev.model_dump_json()
        assert "No such file" in text, text[:2000]
        assert hostname not in text.replace(str(add_op), "")
        assert "root:x:0:0" not in text


async def test_no_network_and_a_cleared_environment(add_op: Path, hostile_env: Path) -> None:
    kernel = (add_op / KERNEL).read_text()
    payload = (
        '    std::FILE *p = std::fopen("/proc/self/environ", "r");\n'
        "    int n = 0; if (p) { while (std::fgetc(p) != EOF) n++; }\n"
        '    std::fprintf(stderr, "environ bytes %d\\n", n);\n'
    ) + escapes.read_env("ASCENDOPT_LLM_API_KEY", "SSH_AUTH_SOCK", "XDG_CACHE_HOME")
    ev = await _run(add_op, escapes.plant(kernel, payload))
    assert "CONTAINED env" in _message(ev), _message(ev)
    assert os.environ["ASCENDOPT_LLM_API_KEY"] == KEY  # still ours, outside


async def test_llm_written_code_is_refused_where_no_sandbox_can_be_had(
    add_op: Path, hostile_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ascendopt.evaluation.runner as runner

    monkeypatch.setattr(runner, "unsandboxed_reason", lambda: "no bwrap here (test)")
    kernel = (add_op / KERNEL).read_text()
    ev = await _run(add_op, escapes.plant(kernel, escapes.write_file(str(hostile_env / "pwned"))))
    assert ev.status == "error" and "refused to run LLM-written code on local" in ev.message
    assert not (hostile_env / "pwned").exists()
    monkeypatch.setenv("ASCENDOPT_ALLOW_UNSANDBOXED", "1")  # the explicit opt-in
    ev = await _run(add_op, (add_op / KERNEL).read_text())
    assert ev.correct, ev.message
