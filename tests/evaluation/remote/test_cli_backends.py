"""Backend strings, and `ascendopt remote check|trust` against the loopback sshd."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.backends import BackendError, make_evaluator, parse_backend
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.remote.check import parallelism, parse_npu_smi
from ascendopt.evaluation.remote.settings import HostConfig, RemoteSettings, SshOptions, parse_devices
from ascendopt.evaluation.toolchain_evaluator import ToolchainEvaluator
from tests.evaluation.remote.sshd_server import LoopbackSshd


def test_backend_strings() -> None:
    settings = RemoteSettings(hosts=[HostConfig(name="a", toolchain="cann"), HostConfig(name="b")])
    assert parse_backend("cpu-twin").runner == "local"
    assert parse_backend("local:cann").toolchain == "cann"
    assert parse_backend("ssh:a,b:cpu-twin").hosts == ["a", "b"]
    assert parse_backend("ssh", settings).hosts == ["a", "b"]
    assert parse_backend("ssh:a").toolchain is None  # the host's own setting decides
    for bad in ("ssh:a:gpu", "tpu", "ssh"):
        with pytest.raises(BackendError):
            parse_backend(bad)
    assert isinstance(make_evaluator("cpu-twin"), CpuTwinEvaluator)
    ev = make_evaluator("ssh:a", settings=settings)
    assert isinstance(ev, ToolchainEvaluator) and ev.name == "ssh:a:cann"
    with pytest.raises(BackendError, match="different toolchains"):
        make_evaluator("ssh:a,b", settings=settings)
    assert make_evaluator("ssh:a,b:cpu-twin", settings=settings).pool.slots == 2


def test_devices_and_npu_smi() -> None:
    assert parse_devices("0-3,6") == [0, 1, 2, 3, 6]
    smi = (
        "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
        "| 0     910B2               | OK            | 93.4        40                0    / 0             |\n"
        "| 1     910B2               | OK            | 91.0        41                0    / 0             |\n"
    )
    assert parse_npu_smi(smi) == ("Ascend910B2", [0, 1])


def _config(server: LoopbackSshd, tmp_path: Path) -> Path:
    cfg = tmp_path / "remote.toml"
    cfg.write_text(
        f'remote_dir = "{server.remote_dir}"\nworkspace_id = "cli"\n'
        f'[ssh]\nssh_config = "{server.client_config}"\n'
        '[[hosts]]\nname = "loopback"\ndevices = "0-1"\n'
    )
    return cfg


def test_remote_check_reports_the_host(sshd: LoopbackSshd, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["remote", "check", "loopback", "--config", str(_config(sshd, tmp_path))]
    )
    assert result.exit_code == 0, result.output
    assert "host key verified" in result.output
    assert "g++ (" in result.output and "[0, 1] (configured)" in result.output
    assert "cann  not found" in result.output
    as_json = CliRunner().invoke(
        app, ["remote", "check", "loopback", "--config", str(_config(sshd, tmp_path)), "--json"]
    )
    parallel = json.loads(as_json.stdout)["parallel"]
    # OpenSSH's default MaxSessions, found by its refusal; two devices bound the evaluations.
    assert parallel["sessions_per_connection"] == 10 and parallel["limit_found"] is True
    assert parallel["evaluations"] == 2 and parallel["bound"] == "devices"


def test_parallelism_when_channels_run_out_first() -> None:
    options = SshOptions(max_connections=1)
    # A server that allows 3 sessions: 2 for work, one kept for stopping jobs, one of them SFTP.
    p = parallelism(slots=8, sessions=3, limit_found=True, options=options, per_evaluation=1)
    assert (p.channels_per_connection, p.evaluations, p.bound) == (2, 1, "channels")
    p = parallelism(slots=8, sessions=10, limit_found=True, options=SshOptions(), per_evaluation=2)
    assert (p.channels_per_connection, p.evaluations, p.bound) == (8, 8, "devices")
    p = parallelism(slots=32, sessions=10, limit_found=True, options=SshOptions(), per_evaluation=2)
    assert (p.evaluations, p.bound) == (15, "channels")  # 4 connections x 8 channels - SFTP, 2 each


def test_remote_trust_records_the_key(own_sshd: LoopbackSshd, tmp_path: Path) -> None:
    own_sshd.known_hosts.write_text("")
    cfg = str(_config(own_sshd, tmp_path))
    refused = CliRunner().invoke(app, ["remote", "check", "loopback", "--config", cfg])
    assert refused.exit_code == 1 and "ascendopt remote trust loopback" in refused.output
    trusted = CliRunner().invoke(app, ["remote", "trust", "loopback", "--config", cfg])
    assert trusted.exit_code == 0 and "added" in trusted.output
    assert CliRunner().invoke(app, ["remote", "check", "loopback", "--config", cfg]).exit_code == 0


def test_verify_streams_the_remote_build_live(sshd: LoopbackSshd, tmp_path: Path) -> None:
    """`ascendopt verify --backend ssh:HOST:cann` shows the build's lines while it runs (stderr;
    on a terminal, a panel of the last lines). CANN is the fake stand-in (tests/…/fakes)."""
    from tests.evaluation.remote.test_cann import FAKE_COMMANDS, TEMPLATES, _published_fakes

    cfg = _config(sshd, tmp_path)
    commands = "".join(f"{k} = {json.dumps(v)}\n" for k, v in FAKE_COMMANDS.items())
    cfg.write_text(
        cfg.read_text().replace('devices = "0-1"', f'devices = "0"\ncann = "{_published_fakes(sshd)}"')
        + f"[commands]\n{commands}"
    )
    result = CliRunner(env={"ASCENDOPT_REMOTE_CONFIG": str(cfg)}).invoke(
        app, ["verify", str(TEMPLATES / "add_custom"), "--case", "0", "--backend", "ssh:loopback:cann"]
    )
    assert result.exit_code == 0, result.output
    assert "[ssh:loopback build] [fake build] configuring" in result.stderr
    assert "[ssh:loopback install] [fake install] into" in result.stderr
    assert "[fake build]" not in result.stdout  # stdout keeps the result
    assert "correct on every case" in result.stdout


def test_this_machines_cann_is_where_the_environment_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """`local:cann` with no `local` host entry: the CANN folder CANN's set_env.sh exported (or the
    editor passed on from Huawei's Ascend C Toolkits extension); a configured entry still wins."""
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    assert RemoteSettings().host("local").cann == HostConfig(name="x").cann
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", "/opt/Ascend/cann")
    assert RemoteSettings().host("local").cann == "/opt/Ascend/cann"
    assert RemoteSettings().host("npu-box").cann != "/opt/Ascend/cann"  # another host's CANN is its own
    configured = RemoteSettings(hosts=[HostConfig(name="local", cann="/srv/cann")])
    assert configured.host("local").cann == "/srv/cann"
