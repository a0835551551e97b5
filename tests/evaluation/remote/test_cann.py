"""The CANN toolchain: msprof parsing on hand-written OPPROF fixtures, and the whole orchestration
(build → install → driver → run → msprof op) on local and SSH runners with stand-in scripts named
fake_* (no Ascend machine exists here)."""

from __future__ import annotations

import asyncio
import secrets
import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.backends import ssh_evaluator
from ascendopt.evaluation.cann import msprof
from ascendopt.evaluation.cann.cann_toolchain import CannToolchain, local_cann_evaluator
from ascendopt.evaluation.cann.templates import render
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings
from ascendopt.evaluation.runner import LocalRunner
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import discover, load_operator
from tests.evaluation.remote.conftest import settings_for
from tests.evaluation.remote.sshd_server import LoopbackSshd

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "opprof"
FAKES = HERE / "fakes"
TEMPLATES = HERE.parents[2] / "templates" / "operators"
# The project's build.sh and the generated aclnn driver are replaced by fakes; everything else
# (set_env.sh sourcing, install of the .run, msprof op, file transfer, parsing) is the default flow.
FAKE_COMMANDS = {
    "build": "cd {build} && bash {cann}/fake_build.sh",
    "driver_build": (
        "cp {cann}/fake_add_driver.py {driver}/ascendopt_driver && chmod +x {driver}/ascendopt_driver"
    ),
}


def tree(name: str) -> dict[str, bytes]:
    root = FIXTURES / name
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.csv")}


def test_single_op_tree() -> None:
    [launch] = msprof.parse_opprof(tree("single"))
    assert (launch.op_type, launch.duration_us, launch.block_dim, launch.device) == (
        "AddCustom",
        12.34,
        40,
        3,
    )
    # The critical core is the busiest sub-block (block 0, sub-block 1: 11 µs).
    assert launch.core_time_us == 11.0
    assert launch.pipes["aiv_mte2_time(us)"] == 9.35 and launch.pipes["aiv_mte2_ratio"] == 0.85
    profile = msprof.to_profile([launch], "Ascend910B2", None, "8.0.RC3")
    assert profile.kind == "measured" and profile.duration_us == 12.34 and profile.bound == "memory"
    assert "Ascend910B2" in profile.source and "device 3" in profile.source
    assert "1800 MHz" in profile.source and "CANN 8.0.RC3" in profile.source
    assert {p.pipe for p in profile.pipes} == {
        "aiv_vec_time(us)",
        "aiv_scalar_time(us)",
        "aiv_mte2_time(us)",
        "aiv_mte3_time(us)",
    }


def test_multi_op_tree_keeps_our_kernel_and_takes_the_median_launch() -> None:
    launches = msprof.parse_opprof(tree("multi_op"))
    assert len(launches) == 4
    mine = msprof.select(launches, "AddCustom")
    assert sorted(ln.index for ln in mine) == [0, 1, 2]  # type: ignore[type-var]
    assert msprof.to_profile(mine, "Ascend910B4", 0, None).duration_us == 11.5


def test_multi_device_tree_picks_the_slots_device() -> None:
    launches = msprof.parse_opprof(tree("multi_device"))
    assert sorted(ln.device for ln in launches) == [0, 5]  # type: ignore[type-var]
    [on5] = msprof.select(launches, "SoftmaxCustom", device=5)
    assert on5.duration_us == 25.0
    assert msprof.to_profile([on5], "Ascend910B4", 5, None).bound == "vector"


def test_310p_columns_map_to_the_vector_pipes() -> None:
    [launch] = msprof.parse_opprof(tree("p310"))
    assert launch.variant == "310P" and launch.core_time_us == 28.0
    profile = msprof.to_profile([launch], "Ascend310P3", None, None)
    ratios = {p.pipe: p.ratio for p in profile.pipes}
    assert ratios["aiv_mte2_time(us)"] == 0.71 and ratios["aic_cube_time(us)"] == 0.0
    assert "310P" in profile.source


def test_templates_quote_every_value() -> None:
    hostile = "/tmp/a b/$(touch PWNED);'x'"
    text = render("cd {work} && echo {op} ${{HOME}}", {"work": hostile, "op": "add_custom"})
    assert text == "cd '/tmp/a b/$(touch PWNED);'\"'\"'x'\"'\"'' && echo add_custom ${HOME}"


def _fake_settings(cann: str, **extra: object) -> RemoteSettings:
    return RemoteSettings(
        workspace_id="tests",
        hosts=[HostConfig(name="local", devices="0-1", toolchain="cann", cann=cann)],
        commands=dict(FAKE_COMMANDS),
        **extra,  # type: ignore[arg-type]
    )


def _published_fakes(server: LoopbackSshd) -> str:
    folder = server.dir / f"fake-cann-{secrets.token_hex(3)}"
    shutil.copytree(FAKES, folder)
    folder.chmod(0o755)
    return str(folder)


async def test_ssh_cann_flow_with_fakes(sshd: LoopbackSshd, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_MSPROF_LAYOUT", "single")  # read locally only: the host has its own env
    settings = settings_for(sshd, devices="0-1", toolchain="cann", cann=_published_fakes(sshd))
    settings.commands = dict(FAKE_COMMANDS)
    lines: list[str] = []
    evaluator = ssh_evaluator(["loopback"], None, settings)
    assert isinstance(evaluator.toolchain, CannToolchain)
    evaluator.toolchain.on_line = lines.append
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    try:
        got = await verify(evaluator, op, seed=4, profile=True)
    finally:
        await evaluator.pool.hosts[0].runner.close()
    assert got.status == "ok", (got.message, got.compile_errors)
    assert got.correct, [(c.name, c.message) for c in got.cases]
    assert got.backend == "ssh:loopback:cann" and "CANN" in got.hardware
    for case in got.cases:
        assert case.profile is not None and case.profile.kind == "measured"
        assert case.profile.duration_us == 12.0  # fake_msprof: 10 + launch 2
        assert "CANN 8.0.RC3.fake" in case.profile.source and "1800 MHz" in case.profile.source
    assert any(line.startswith("[fake build]") for line in lines)
    assert any(line.startswith("[fake install]") for line in lines)
    assert any("[fake driver]" in line and "on device" in line for line in lines)
    assert evaluator.pool.slots == 2


async def test_local_cann_flow_with_fakes_and_multi_op_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MSPROF_LAYOUT", "multi-op")
    settings = _fake_settings(str(FAKES))
    runner = LocalRunner(scratch=tmp_path / "scratch", cache_root=tmp_path / "cache")
    evaluator = local_cann_evaluator(settings, runner=runner)
    evaluator.toolchain.launch_count = 3  # type: ignore[attr-defined]
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    got = await verify(evaluator, op, case="0", seed=1, profile=True)
    assert got.correct, (got.message, [(c.name, c.message) for c in got.cases])
    [case] = got.cases
    assert case.profile is not None and case.profile.duration_us == 11.0  # median of 10, 11, 12; Cast ignored
    # Built once per source hash, shared by the devices: a second evaluation does not rebuild.
    again = await verify(evaluator, op, case="0", seed=2)
    assert again.correct
    assert len(list((tmp_path / "cache" / "cann").iterdir())) == 1


async def test_cann_build_error_points_at_the_users_line(tmp_path: Path) -> None:
    root = tmp_path / "add_custom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    kernel = root / "op_kernel" / "add_custom.cpp"
    lines = kernel.read_text().splitlines()
    brace = next(i for i, ln in enumerate(lines) if "inline void Process()" in ln) + 1
    lines.insert(brace + 1, "        FAKE_COMPILE_ERROR;")
    kernel.write_text("\n".join(lines) + "\n")
    settings = _fake_settings(str(FAKES))
    evaluator = local_cann_evaluator(settings, runner=LocalRunner(cache_root=tmp_path / "cache"))
    got = await verify(evaluator, load_operator(root), case="0")
    assert got.status == "compile_error"
    assert [(i.file, i.line) for i in got.compile_errors] == [("op_kernel/add_custom.cpp", brace + 2)]


async def test_cancel_during_remote_build_leaves_nothing(sshd: LoopbackSshd) -> None:
    token = str(secrets.randbelow(10**6)).zfill(6)
    settings = settings_for(sshd, devices="0", toolchain="cann", cann=_published_fakes(sshd))
    settings.commands = {
        **FAKE_COMMANDS,
        "build": f"cd {{build}} && sleep 120.{token} && bash {{cann}}/fake_build.sh",
    }
    evaluator = ssh_evaluator(["loopback"], None, settings)
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    task = asyncio.create_task(verify(evaluator, op, case="0"))
    try:
        for _ in range(200):
            await asyncio.sleep(0.05)
            if any(token in p for p in sshd.remote_processes()):
                break
        assert any(token in p for p in sshd.remote_processes())
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await evaluator.pool.hosts[0].runner.close()
    assert [p for p in sshd.remote_processes() if token in p] == []


async def test_llm_written_code_is_refused_on_cann_unless_opted_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CANN's build and the NPU need the host itself: no sandbox, so LLM code needs the opt-in
    from ascendopt.operators.candidate import baseline

    monkeypatch.setenv("FAKE_MSPROF_LAYOUT", "single")
    runner = LocalRunner(scratch=tmp_path / "scratch", cache_root=tmp_path / "cache")
    evaluator = local_cann_evaluator(_fake_settings(str(FAKES)), runner=runner)
    op = discover(TEMPLATES / "add_custom").find("add_custom")
    assert op.spec is not None
    written = baseline(op).model_copy(update={"llm_written": True})
    cases = op.spec.resolve_cases()[:1]
    refused = await evaluator.evaluate(op, written, cases)
    assert refused.status == "error" and "refused to run LLM-written code" in refused.message
    monkeypatch.setenv("ASCENDOPT_ALLOW_UNSANDBOXED", "1")
    assert (await evaluator.evaluate(op, written, cases)).correct
