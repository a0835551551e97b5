"""The kernel-entry hover fits: the slowest cases only, hot lines as links to their line, the rest
behind a "more" link whose command answers the whole profile."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from ascendopt.evaluation.records import CaseResult, Evaluation, Profile
from ascendopt.lsp.app import build_server
from ascendopt.lsp.hover import markdown
from ascendopt.lsp.index import op_key
from ascendopt.lsp.runs import Runs
from ascendopt.operators.discovery import load_operator
from tests.conftest import TEMPLATES


def _evaluation(durations: list[float]) -> Evaluation:
    cases = [
        CaseResult(
            index=i,
            name=f"case-{i}",
            dtypes={"x": "float16"},
            status="passed",
            profile=Profile(
                duration_us=d,
                kind="estimate",
                source="timing model, Ascend910B4",
                hot_lines=[f"op_kernel/add_custom.cpp:{40 + j} ({30 - j}%)" for j in range(5)],
            ),
        )
        for i, d in enumerate(durations)
    ]
    return Evaluation(
        candidate_id="baseline",
        operator="add_custom",
        backend="cpu-twin",
        hardware="CPU twin (910B4 model)",
        seed=0,
        status="ok",
        cases=cases,
    )


def test_hover_shows_the_slowest_cases_links_hot_lines_and_hides_the_rest_behind_more():
    op = load_operator(TEMPLATES / "add_custom")
    server = build_server()
    server.state(Runs).last_profiles[op_key(op)] = _evaluation([5, 50, 20, 10, 1])
    text = markdown(server, op)
    shown = [line for line in text.splitlines() if line.startswith("- `case-")]
    assert [line.split("`")[1] for line in shown] == ["case-1", "case-2", "case-3"]  # slowest first
    kernel = (op.root / "op_kernel" / "add_custom.cpp").as_uri()
    assert f"[op_kernel/add_custom.cpp:40]({kernel}#L40) (30%)" in text
    assert "add_custom.cpp:43" not in text  # three hot lines per case in the hover
    more = next(line for line in text.splitlines() if "more case" in line)
    assert more.startswith("[… 2 more cases](command:ascendopt.openProfile?")
    args: list[dict[str, Any]] = json.loads(unquote(more.split("?", 1)[1].rstrip(")")))
    assert args == [{"operatorRoot": str(op.root), "name": "add_custom"}]

    whole = markdown(server, op, limit=None)
    assert all(f"`case-{i}`" in whole for i in range(5)) and "more case" not in whole
    assert "add_custom.cpp:44" in whole
