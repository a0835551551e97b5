from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.episode import Episode
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.llm import LLMClient, LLMSettings
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies.ours import Ours
from ascendopt.agent.tiling_rewrite import TilingRewriter, confined
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.discovery import load_operator
from tests.agent.scripted_llm import ScriptedLLMServer

HOST = "op_host/add_custom.cpp"
INSIDE = "    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;"
OUTSIDE = '        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");'


def _block(search: str, replace: str) -> str:
    return f"FILE: {HOST}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def test_confined_edits() -> None:
    before = "aaa[bbb]ccc"
    assert confined(before, "aaa[xxxx]ccc", 3, 8)
    assert not confined(before, "aaX[bbb]ccc", 3, 8)
    assert not confined(before, "aaa[bbb]ccX", 3, 8)


@pytest.mark.slow
async def test_llm_tiling_mutants_inside_the_tiling_function_only(add_op: Path) -> None:
    replies = iter(
        [
            _block(OUTSIDE, OUTSIDE.replace("ascend910b", "ascend310p")),  # outside TilingFunc: rejected
            _block(INSIDE, INSIDE.replace("TILE_LENGTH < maxTile ? TILE_LENGTH", "8192 < maxTile ? 8192")),
        ]
    )
    # The tile pinned: the knob search would reach the mutant's 8192 first, leaving it no gain to show.
    host = add_op / HOST
    pinned = "TILE_LENGTH = 4096;"
    host.write_text(host.read_text().replace(pinned, pinned + "  // ascendopt: fixed"))
    with ScriptedLLMServer(lambda messages: next(replies, "nothing")) as server:
        llm = LLMSettings(base_url=server.base_url, model="scripted", api_key=SecretStr("k"))
        journal = EpisodeJournal.create(add_op.parent, "tiling")
        settings = EpisodeSettings(budget=8, seed=0, tiling_steps=1, batch=1)
        episode = Episode(
            load_operator(add_op),
            settings,
            Ledger(CpuTwinEvaluator(), journal, 8),
            journal,
            strategy=Ours(tiling=TilingRewriter(LLMClient(llm, journal))),
        )
        outcome = await episode.run()
    rejected = [e.data.reason for e in journal.events("tiling.rejected")]
    assert rejected and "outside the function TilingFunc" in rejected[0]
    assert len(journal.events("tiling.accepted")) == 1
    assert outcome.suggestion is not None
    [change] = outcome.suggestion.changes
    assert change.path == HOST and "8192 < maxTile ? 8192 : maxTile" in change.proposed_text
