"""The rewrite reaches every file the SoC's build compiles inside the operator folder: an open-repo
look-alike whose entry only dispatches to classes in headers (tests/operators/cann_reach_style.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import SecretStr

from ascendopt.agent.episode import Episode
from ascendopt.agent.kernel_rewrite import KernelRewriter
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.llm import LLMClient, LLMSettings
from ascendopt.agent.rewrite import Proposal, Rejection, RewriteContext
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies.ours import Ours
from ascendopt.agent.tiling_rewrite import TilingRewriter, editable_span
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.scope import ScopeFile, changed_lines_confined, editable_paths, rewrite_scope
from tests.agent.scripted_llm import ScriptedLLMServer
from tests.operators.cann_reach_style import write_quad_like

ENTRY = "op_kernel/quad_like.cpp"
CLASS_A = "op_kernel/quad_like_a.h"
SHARED = "../../common/inc/op_kernel/shared.h"
HOST = "op_host/quad_like_tiling.cpp"
HELPER = "op_host/quad_like_tiling_helper.h"


def _block(file: str, search: str, replace: str) -> str:
    return f"FILE: {file}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def test_the_scope_is_what_the_socs_build_compiles_in_the_operator_folder(tmp_path: Path) -> None:
    op = load_operator(write_quad_like(tmp_path))
    scope = rewrite_scope(op, op.read_files())
    assert scope == [
        ScopeFile(ENTRY, "kernel_entry", True),
        ScopeFile(CLASS_A, "kernel_header", True),
        ScopeFile(HOST, "tiling_source", True),
        ScopeFile("op_host/quad_like_tiling.h", "tiling_data", True),
        ScopeFile(HELPER, "tiling_header", True),
        ScopeFile(SHARED, "repo_header", False),
    ]
    # the 950's class and its arch35 variant are what an Ascend950 build compiles instead
    on_950 = {f.path: f.role for f in rewrite_scope(op, op.read_files(), soc="Ascend950PR")}
    assert on_950["op_kernel/quad_like_b.h"] == "kernel_header"
    assert SHARED not in editable_paths(scope)


def test_the_tiling_region_is_what_the_registered_entry_reaches(tmp_path: Path) -> None:
    op = load_operator(write_quad_like(tmp_path))
    files = op.read_files()
    mutant = editable_span(op, files)
    assert mutant is not None
    names = {path: [name for _, _, name in spans] for path, spans in mutant.spans.items()}
    assert names == {HOST: ["QuadLikeTilingFunc"], HELPER: ["QuadLikeCoreSplit"]}
    helper = files[HELPER]
    inside = helper.replace("need < 1 ? 1 :", "need < 2 ? need :")
    outside = helper.replace("return total * 2;", "return total * 4;")
    spans = [(s, e) for s, e, _ in mutant.spans[HELPER]]
    assert changed_lines_confined(helper, inside, spans) is None
    assert (
        changed_lines_confined(helper, outside, spans) == helper[: helper.index("total * 2")].count("\n") + 1
    )


def _context(op_dir: Path) -> tuple[RewriteContext, Candidate]:
    op = load_operator(op_dir)
    context = RewriteContext(project=op, view=op, cases=[], note=lambda e: None, progress=lambda s: None)
    return context, Candidate(operator=op.name, files=op.read_files(), knobs={}, origin="baseline")


async def test_a_tiling_mutant_may_edit_the_helper_it_calls_and_nothing_else(tmp_path: Path) -> None:
    op_dir = write_quad_like(tmp_path)
    context, parent = _context(op_dir)
    ev = Evaluation(candidate_id="b", operator="quad_like", backend="t", hardware="t", seed=0, status="ok")
    replies = iter(
        [
            _block(HELPER, "        return need < 1 ? 1 :", "        return need < 2 ? need :"),
            _block(HELPER, "    return total * 2;", "    return total * 4;"),
            _block(HOST, "    int64_t unused = 0;", "    int64_t unused = 1 - 1;"),
        ]
    )
    with ScriptedLLMServer(lambda messages: next(replies)) as server:
        llm = LLMSettings(
            base_url=server.base_url, model="scripted", api_key=SecretStr("k"), context_tokens=65_536
        )
        rewriter = TilingRewriter(LLMClient(llm, EpisodeJournal.create(tmp_path, "t")))
        first = await rewriter.propose(parent, ev, context)
        second = await rewriter.propose(parent, ev, context)
        third = await rewriter.propose(parent, ev, context)
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "class QuadLikeCoreSplit" in prompt and "QuadLikeCoreSplit lines 8-20" in prompt
    assert isinstance(first, Proposal) and "need < 2 ? need :" in first.candidate.files[HELPER]
    assert isinstance(
        second, Rejection
    ) and f"edits {HELPER}:24, outside the function QuadLikeTilingFunc" in (second.reason)
    assert isinstance(third, Rejection) and f"edits {HOST}:32, outside" in third.reason


def _scripted(edits: list[str]) -> ScriptedLLMServer:
    rewrites = iter(edits)

    def reply(messages: list[dict[str, str]]) -> str:
        if "Answer with JSON only" in messages[-1]["content"]:
            return '{"bottleneck": "MTE2 copy-in does not overlap compute", "change": "double buffer"}'
        return next(rewrites, "no more edits")

    return ScriptedLLMServer(reply)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")
async def test_a_header_edit_is_applied_built_and_judged_and_the_shared_header_is_refused(
    tmp_path: Path,
) -> None:
    op_dir = write_quad_like(tmp_path / "repo")
    before = {p: (op_dir / p).read_text() for p in (ENTRY, CLASS_A, SHARED)}
    edits = [
        _block(SHARED, "    return (total + tile - 1) / tile;", "    return total / tile + 1;"),
        _block(CLASS_A, "        pipe_.InitBuffer(inQ_, 1,", "        pipe_.InitBuffer(inQ_, 2,")
        + _block(CLASS_A, "        pipe_.InitBuffer(outQ_, 1,", "        pipe_.InitBuffer(outQ_, 2,"),
    ]
    with _scripted(edits) as server:
        llm = LLMSettings(
            base_url=server.base_url, model="scripted", api_key=SecretStr("k"), context_tokens=65_536
        )
        settings = EpisodeSettings(budget=6, seed=0, kernel_steps=2, tiling_steps=1, top_k=0)
        journal = EpisodeJournal.create(tmp_path, "ep")
        episode = Episode(
            load_operator(op_dir),
            settings,
            Ledger(CpuTwinEvaluator(), journal, settings.budget),
            journal,
            strategy=Ours(KernelRewriter(LLMClient(llm, journal), None, 0), note="on"),
        )
        outcome = await episode.run()
    rewrite_prompts = [r["messages"][-1]["content"] for r in server.requests if "SEARCH/REPLACE" in str(r)]
    assert rewrite_prompts and all(
        f"--- {CLASS_A} (kernel header) ---" in p and "class QuadLikeA" in p for p in rewrite_prompts
    )
    assert (
        f"--- {SHARED} (repository header; read-only: for reference, do not edit) ---"
        in (rewrite_prompts[0])
    )
    assert "class QuadLikeB" not in rewrite_prompts[0] and "arch35" not in rewrite_prompts[0]
    rejected = [e.data.reason for e in journal.events("kernel.rejected")]
    assert f"block 1 edits {SHARED}, a repository header outside the operator folder" in rejected[0]
    # the header edit reached the twin: built, run on every case, judged
    judged = [e.data for e in journal.events("kernel.accepted")] or [
        e.data for e in journal.events("kernel.rejected")[1:]
    ]
    assert judged, outcome.message
    evaluated = [e.data.model_dump() for e in journal.events("evaluation")]
    header_runs = [
        e for e in evaluated if e["evaluation"]["status"] == "ok" and e["purpose"].startswith("kernel")
    ]
    assert header_runs and all(c["status"] == "passed" for c in header_runs[0]["evaluation"]["cases"])
    assert before == {p: (op_dir / p).read_text() for p in before}  # nothing written until accepted
