"""Settings from initializationOptions and workspace/configuration; the API key is never logged or
echoed, even with the server logging every message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, make_test_lsp_client

from ascendopt.agent.settings import EpisodeSettings
from ascendopt.lsp.logs import Redactor, log_format
from ascendopt.lsp.settings import SETTING_NAMES, Settings, from_initialization_options, with_configuration
from tests.conftest import REPO
from tests.lsp.conftest import OP, capabilities, plain, uri, wait_for

SECRET = "sk-test-0123456789abcdef-SECRET"


def test_settings_come_from_initialization_options_then_configuration():
    s, problems = from_initialization_options(
        {
            "ascendopt": {
                "backend": "cpu-twin",
                "budget": 12,
                "llm": {"baseUrl": "http://127.0.0.1:9", "model": "m1", "apiKey": SECRET},
            }
        },
        environ={},
    )
    assert problems == []
    assert (s.budget, s.llm_base_url, s.llm_model) == (12, "http://127.0.0.1:9", "m1")
    assert s.api_key is not None and s.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(s) and SECRET not in s.model_dump_json() and SECRET not in str(s.public())

    s2, problems = with_configuration(
        s, {"budget": 0, "soc": "Ascend910B1", "llm": {"apiKey": "from-settings-sync"}}
    )
    assert s2.soc == "Ascend910B1" and s2.budget == 12
    assert problems == ["ascendopt.budget must be at least 4; keeping 12."]
    assert (
        s2.api_key is not None and s2.api_key.get_secret_value() == SECRET
    )  # never taken from configuration

    assert s.scrub(f"401 for key {SECRET}") == "401 for key ***"

    from_env, _ = from_initialization_options(None, environ={"ASCENDOPT_API_KEY": SECRET})
    assert from_env.api_key is not None and from_env.budget == 40


def test_redactor_blanks_keys_and_known_secrets():
    r = Redactor()
    r.add_secret(SECRET)
    assert SECRET not in r.redact(f'{{"apiKey": "{SECRET}", "x": 1}}')
    assert r.redact("initialization_options={'apiKey': 'abc'}") == "initialization_options={'apiKey': ***}"
    assert SECRET not in r.redact(f"token in a message {SECRET}")


@pytest.fixture
async def verbose_client(tmp_path: Path, workspace: Path):
    log = tmp_path / "server.log"
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "ascendopt", "serve", "--verbose", "--log-file", str(log))
    client.set_configuration({"budget": 7, "llm": {"apiKey": SECRET}}, section="ascendopt")
    yield client, log, workspace
    await client.shutdown_session()
    await client.stop()


async def test_api_key_is_never_logged_or_echoed(verbose_client: tuple[LanguageClient, Path, Path]):
    client, log, workspace = verbose_client
    seen: list[object] = []
    client.feature("ascendopt/indexed")(lambda params: seen.append(plain(params)))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=uri(workspace), name="ws")],
            initialization_options={"ascendopt": {"budget": 0, "llm": {"model": "m", "apiKey": SECRET}}},
        )
    )
    await wait_for(lambda: seen, what="the index")
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="ascendopt.showExperience", arguments=[{"uri": uri(workspace / OP)}]
        )
    )
    text = log.read_text()
    assert "initialize" in text and "apiKey" in text  # the verbose log did record the messages…
    assert SECRET not in text  # …but never the key
    echoed = [m.message for m in client.messages] + [m.message for m in client.log_messages]
    assert any("ascendopt.budget must be" in m for m in echoed)
    assert not any(SECRET in m for m in echoed)


def test_every_problem_is_one_sentence_naming_the_setting():
    base = Settings()
    _, problems = with_configuration(
        base,
        {"budget": 3, "backend": "gpu:box", "llm": {"baseUrl": 7}, "soc": ["x"], "specs": "x.toml"},
    )
    assert problems == [
        "ascendopt.backend must be cpu-twin, local:cann or ssh:HOST; keeping 'cpu-twin'.",
        "ascendopt.soc must be text; keeping None.",
        "ascendopt.budget must be at least 4; keeping 40.",
        "ascendopt.llm.baseUrl must be text; keeping None.",
        "ascendopt.specs must be a list of paths; keeping [].",
    ]
    _, problems = with_configuration(base, {"budget": 10_001})
    assert problems == ["ascendopt.budget must be at most 10000; keeping 40."]
    _, problems = with_configuration(base, {"budget": 4, "backend": "ssh:npu-box"})
    assert problems == []


def test_package_json_bounds_match_the_server_models():
    """What the settings UI lets through is what the server accepts: minimum, maximum and pattern of
    every setting the server reads, from package.json against Settings' JSON schema."""
    package = json.loads((REPO / "extension" / "package.json").read_text())
    props = package["contributes"]["configuration"]["properties"]
    schema = Settings.model_json_schema()["properties"]
    for field, name in SETTING_NAMES.items():
        assert name in props, f"{name} missing from package.json"
        ours = schema[field]
        for bound in ("minimum", "maximum", "pattern"):
            assert props[name].get(bound) == ours.get(bound), f"{name}: {bound}"
        # "" and [] are unset
        assert (props[name]["default"] or None) == (ours.get("default") or None), f"{name}: default"
    assert (
        props["ascendopt.budget"]["minimum"]
        == EpisodeSettings.model_json_schema()["properties"]["budget"]["minimum"]
    )


def test_one_time_stamp_per_line_in_the_editor():
    # The editor reads stderr through a pipe and stamps each line itself.
    assert "asctime" not in log_format(to_file=False, tty=False)
    assert "asctime" in log_format(to_file=True, tty=False)
    assert "asctime" in log_format(to_file=False, tty=True)
