"""A campaign from the editor: the real server runs it in the background with progress and
says where the report is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import OP, plain, wait_for

pytestmark = pytest.mark.slow


async def test_campaign_command_runs_every_operator_and_reports(twin: LanguageClient, workspace: Path):
    started = plain(
        await twin.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="ascendopt.runCampaign", arguments=[{"budget": 4, "strategies": ["ours", "random"]}]
            )
        )
    )
    assert started["status"] == "started" and started["tasks"] == 2
    seen = twin.seen  # type: ignore[attr-defined]
    ended = await wait_for(lambda: seen.campaigns, timeout=300, what="the campaign's end")
    report = Path(ended[0]["report"])
    assert report.is_file() and report.parent.parent.parent == workspace / ".ascendopt"
    assert [line.split(":")[0] for line in ended[0]["summary"]] == ["ours", "random"]
    data = json.loads((report.parent / "report.json").read_text())
    assert {(o["operator"], o["strategy"]) for o in data["operators"]} == {(OP, "ours"), (OP, "random")}
    # progress went through work-done notifications, ending with the summary
    ends = [p for p in twin.progress_reports.values() if p and isinstance(p[-1], types.WorkDoneProgressEnd)]
    assert any("report" in (p[-1].message or "") for p in ends)
