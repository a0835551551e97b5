"""ssh + cpu-twin on a real loopback sshd gives exactly the local twin's results."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.backends import ssh_evaluator
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.remote.settings import RemoteSettings
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import discover, load_operator

pytestmark = pytest.mark.slow
TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "operators"


def comparable(ev: Evaluation) -> list[dict]:
    # Everything a case says except how long it took on this machine.
    return [c.model_dump(exclude={"run_seconds"}) for c in ev.cases]


@pytest.mark.parametrize("name", ["add_custom", "softmax_custom"])
async def test_ssh_twin_matches_local_twin(name: str, ssh_settings: RemoteSettings) -> None:
    op = discover(TEMPLATES / name).find(name)
    remote = ssh_evaluator(["loopback"], None, ssh_settings)
    try:
        got = await verify(remote, op, seed=11, profile=True)
    finally:
        await remote.pool.hosts[0].runner.close()
    local = await verify(CpuTwinEvaluator(), op, seed=11, profile=True)
    assert got.status == "ok", got.message
    assert got.correct and local.correct
    assert comparable(got) == comparable(local)
    assert got.backend == "ssh:loopback:cpu-twin"
    assert "on ssh:loopback" in got.hardware
    assert all(c.profile is not None and c.profile.kind == "estimate" for c in got.cases)


async def test_a_sample_whose_main_cpp_runs_gives_the_same_results_over_ssh(
    ssh_settings: RemoteSettings, tmp_path: Path
) -> None:
    # The sample's own main.cpp + host tiling source (built in CPU-debug mode) go up and run there too.
    from ascendopt.operators.spec_init import starting_spec
    from tests.operators import official_style as style

    root = style.write_host_tiling_sample(tmp_path)
    (root / "ascendopt.toml").write_text(starting_spec(load_operator(root)).text)
    op = load_operator(root)
    assert op.tiling is not None and op.tiling.host_program is not None
    remote = ssh_evaluator(["loopback"], None, ssh_settings)
    try:
        got = await verify(remote, op, seed=5, profile=True)
    finally:
        await remote.pool.hosts[0].runner.close()
    local = await verify(CpuTwinEvaluator(), op, seed=5, profile=True)
    assert got.correct and local.correct, got.model_dump_json(indent=1)[:1500]
    assert comparable(got) == comparable(local)
    assert all(c.profile is not None and c.profile.kind == "estimate" for c in got.cases)


async def test_second_upload_skips_what_the_host_has(ssh_settings: RemoteSettings) -> None:
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    runner = SshRunner(ssh_settings.hosts[0], ssh_settings)
    remote = ssh_evaluator(["loopback"], None, ssh_settings, runners={"loopback": runner})
    try:
        first = await verify(remote, op, seed=5)
        before = runner.stats.model_copy()
        second = await verify(remote, op, seed=5)
    finally:
        await runner.close()
    assert first.correct and second.correct
    # Same sources and same seed: sources, twin headers and inputs are already there; only the
    # manifests (one per case, naming this run's folder) are new.
    cases = len(second.cases)
    assert runner.stats.uploaded_files - before.uploaded_files == cases
    assert runner.stats.uploaded_bytes - before.uploaded_bytes < 1024 * cases
    assert runner.stats.skipped_files - before.skipped_files >= len(op.read_files()) + cases


async def test_compile_error_points_at_the_users_line(ssh_settings: RemoteSettings, tmp_path: Path) -> None:
    root = tmp_path / "add_custom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    kernel = root / "op_kernel" / "add_custom.cpp"
    lines = kernel.read_text().splitlines()
    target = next(i for i, ln in enumerate(lines) if "inline void Process()" in ln) + 1  # its "{"
    lines.insert(target + 1, "        undeclared_thing = 3;")
    kernel.write_text("\n".join(lines) + "\n")
    op = load_operator(root)
    remote = ssh_evaluator(["loopback"], None, ssh_settings)
    try:
        got = await verify(remote, op)
    finally:
        await remote.pool.hosts[0].runner.close()
    local = await verify(CpuTwinEvaluator(), op)
    assert got.status == local.status == "compile_error"
    assert [(i.file, i.line) for i in got.compile_errors] == [(i.file, i.line) for i in local.compile_errors]
    assert any(i.file == "op_kernel/add_custom.cpp" and i.line == target + 2 for i in got.compile_errors)
